// src/nn/blas.hpp — row-major GEMM through OpenBLAS's CBLAS for float and double.
#pragma once

#include <cblas.h>

#include <cstddef>

namespace fastconv::nn {

/// The GEMMs run on fastconv's own OpenMP threads, each on its share of the work, so OpenBLAS
/// itself must not start threads. Its OpenMP build does not inside a parallel region; its
/// pthreads build would, and its threads then fight ours for the cores (im2col 8 ms against
/// 0.7 ms on one shape), so that build is set to one thread — once, for the whole process, as
/// OpenBLAS offers no per-call setting. Which build is loaded is decided at run time (the
/// Python extension, for one, gets whichever `libopenblas.so.0` the system points to).
inline void keep_blas_single_threaded() {
  static const bool done = [] {
    if (openblas_get_parallel() == 1) openblas_set_num_threads(1);
    return true;
  }();
  (void)done;
}

/// C = alpha·A·B + beta·C, row-major: A is m×k (row stride lda), B k×n (ldb), C m×n (ldc).
inline void gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                 const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

inline void gemm(std::size_t m, std::size_t n, std::size_t k, double alpha, const double* a, std::size_t lda,
                 const double* b, std::size_t ldb, double beta, double* c, std::size_t ldc) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

}  // namespace fastconv::nn
