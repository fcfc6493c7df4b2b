// src/nn/blas.hpp — row-major GEMM through OpenBLAS's CBLAS for float and double.
#pragma once

#include <cblas.h>

#include <cstddef>

namespace fastconv::nn {

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
