// src/cuda/kernels.cuh — the CUDA kernels of every variant and their launch sequences. The
// per-thread work is in device_helpers.hpp (tested on the CPU); these are the loops, the
// grids, the shared memory and the warp shuffles around it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/device_helpers.hpp"

namespace fastconv::cuda {

/// Throws a device Error naming the CUDA call and its error (defined in cuda_backend.cu).
void check(cudaError_t status, const char* call);
#define FC_CUDA(call) ::fastconv::cuda::check((call), #call)

/// Counts the launches of one operation (Backend::timings().launches).
struct LaunchCount {
  std::uint64_t n = 0;
  /// Starts an operation's count, clearing a launch error that the caller's own code may have
  /// left pending, so that after_launch() reports this operation's launches only.
  LaunchCount() { static_cast<void>(cudaGetLastError()); }
  void after_launch() {
    ++n;
    FC_CUDA(cudaGetLastError());
  }
};

constexpr unsigned kMaxGridY = 65535;

// ---- seed 001: Algorithm 1 -------------------------------------------------------------------

template <class W>
__global__ void gajic_fwt_step(W* x, std::uint64_t row_length, std::uint64_t step) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (tid >= row_length / 2) return;
  gajic_butterfly(x + blockIdx.y * row_length, tid, step);
}

template <class W>
__global__ void elementwise_combine(W* x, const W* s, std::uint64_t count, std::uint64_t s_mask, int mode, double scale,
                                    std::uint64_t factor) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= count) return;
  Vec<W, 1> v{{x[i]}};
  Combine<W, 1> c{mode, reinterpret_cast<const Vec<W, 1>*>(s), s_mask, scale, factor};
  c(v, i);
  x[i] = v.w[0];
}

template <class W>
__global__ void scale_words(W* x, std::uint64_t count, double scale) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < count) x[i] = scaled(x[i], scale, 1);
}

inline unsigned blocks_for(std::uint64_t threads, unsigned block) {
  return static_cast<unsigned>((threads + block - 1) / block);
}

/// n launches of one FWT step each over `rows` rows (grid.y, at most 65535 per launch).
template <class W>
void gajic_wht(W* data, int log2n, std::size_t rows, cudaStream_t s, LaunchCount& count) {
  const std::uint64_t n = std::uint64_t{1} << log2n;
  for (std::size_t first = 0; first < rows; first += kMaxGridY) {
    const unsigned y = static_cast<unsigned>(std::min<std::size_t>(kMaxGridY, rows - first));
    for (int step = 0; step < log2n; ++step) {
      gajic_fwt_step<W><<<dim3(blocks_for(n / 2, 256), y), 256, 0, s>>>(data + first * n, n, std::uint64_t{1} << step);
      count.after_launch();
    }
  }
}

// ---- seed 004: Algorithms 1-6 ------------------------------------------------------------------

/// Algorithms 1 (branch) and 2 (branch-free): step r of span j, ping-pong between wf and temp.
template <class W, bool BranchFree>
__global__ void bikov_step(W* wf, W* temp, int r, std::uint64_t j) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const W* from = r % 2 ? wf : temp;
  W* to = r % 2 ? temp : wf;
  if (BranchFree) bikov_a2_element(from, to, i, j);
  else bikov_a1_element(from, to, i, j);
}

/// Algorithm 3: M consecutive elements per thread.
template <class W>
__global__ void bikov_step_m(W* wf, W* temp, int r, std::uint64_t j, unsigned m) {
  const std::uint64_t t = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const W* from = r % 2 ? wf : temp;
  W* to = r % 2 ? temp : wf;
  for (std::uint64_t i = t * m; i < (t + 1) * m; ++i) bikov_a1_element(from, to, i, j);
}

/// Algorithms 4-6, first kernel: the first log2(blockDim) steps of each block's part in shared
/// memory; Algorithm 6 does the steps below 32 with warp shuffles first.
/// __shfl_xor over the lanes of this block's (first) warp: all 32, or the block's threads
/// when the block is smaller than a warp.
template <class W>
__device__ W shuffle_xor(W v, unsigned lane_mask) {
  const unsigned lanes = blockDim.x >= 32 ? 0xffffffffu : (1u << blockDim.x) - 1;
  if constexpr (sizeof(W) == 16) {
    U128 r;
    r.lo = __shfl_xor_sync(lanes, v.lo, lane_mask);
    r.hi = __shfl_xor_sync(lanes, v.hi, lane_mask);
    return r;
  } else {
    return __shfl_xor_sync(lanes, v, lane_mask);
  }
}

/// The shared-memory loop of Algorithms 4-6 over spans j in [j0, limit): thread i of the block.
template <class W>
__device__ W shared_steps(W value, W* shared, unsigned i, unsigned j0, unsigned limit) {
  for (unsigned j = j0; j < limit; j *= 2) {
    shared[i] = value;
    __syncthreads();
    value = bikov_shared_step(value, shared, i, j);
    __syncthreads();
  }
  return value;
}

template <class W, bool Shuffles>
__global__ void bikov_sm(W* wf) {
  extern __shared__ __align__(16) unsigned char raw[];  // 16-byte words and vectors
  W* shared = reinterpret_cast<W*>(raw);
  const unsigned i = threadIdx.x;
  const std::uint64_t tid = blockIdx.x * std::uint64_t{blockDim.x} + i;
  W value = wf[tid];
  unsigned j = 1;
  if (Shuffles)  // a warp's steps (at most the block's, for blocks smaller than a warp)
    for (; j < 32 && j < blockDim.x; j *= 2) value = bikov_shuffle_step(value, shuffle_xor(value, j), i, j);
  value = shared_steps(value, shared, i, j, blockDim.x);
  wf[tid] = value;
}

/// Algorithms 5-6, second kernel: the memory pattern (block b = a column of the first kernel's
/// blocks, thread t = a row), then the remaining steps in shared memory (Algorithm 6: the
/// first ones, below for_shfl, with shuffles).
template <class W, bool Shuffles>
__global__ void bikov_sm_mp(W* wf, unsigned first_block, unsigned for_shfl) {
  extern __shared__ __align__(16) unsigned char raw[];  // 16-byte words and vectors
  W* shared = reinterpret_cast<W*>(raw);
  const unsigned i = threadIdx.x;
  const std::uint64_t ji = bikov_pattern(i, blockIdx.x, first_block);
  W value = wf[ji];
  unsigned j = 1;
  if (Shuffles)
    for (; j < for_shfl; j *= 2) value = bikov_shuffle_step(value, shuffle_xor(value, j), i, j);
  value = shared_steps(value, shared, i, j, blockDim.x);
  wf[ji] = value;
}

/// Seed 004's grid: one block of `size` threads up to 1024, else size/1024 blocks of 1024.
struct BikovGrid {
  unsigned blocks, threads;
  explicit BikovGrid(std::uint64_t size)
      : blocks(size <= 1024 ? 1 : static_cast<unsigned>(size / 1024)), threads(size <= 1024 ? static_cast<unsigned>(size) : 1024) {}
};

constexpr unsigned kBikovM = 8;  ///< Algorithm 3's elements per thread

/// One row of 2^log2n words with Algorithm `a` (1-6); `temp` holds 2^log2n words.
template <class W>
void bikov_wht(int a, W* wf, W* temp, int log2n, cudaStream_t s, LaunchCount& count) {
  const std::uint64_t size = std::uint64_t{1} << log2n;
  if (size == 1) return;
  int r = 0;
  std::uint64_t j = 1;
  if (a >= 4) {
    const BikovGrid g(size);
    if (a == 6) bikov_sm<W, true><<<g.blocks, g.threads, g.threads * sizeof(W), s>>>(wf);
    else bikov_sm<W, false><<<g.blocks, g.threads, g.threads * sizeof(W), s>>>(wf);
    count.after_launch();
    r = std::min(log2n, 10);
    j = std::uint64_t{1} << r;
    if (a >= 5) {
      if (size > 1024) {  // the memory pattern: 1024 blocks of size/1024 (≤ 1024) threads
        const unsigned rows = static_cast<unsigned>(size / 1024), for_shfl = std::min(rows, 32u);
        if (a == 6) bikov_sm_mp<W, true><<<1024, rows, rows * sizeof(W), s>>>(wf, 1024, for_shfl);
        else bikov_sm_mp<W, false><<<1024, rows, rows * sizeof(W), s>>>(wf, 1024, for_shfl);
        count.after_launch();
      }
      return;
    }
  }
  bool in_temp = false;  // where the last ping-pong step wrote
  for (; j < size; j *= 2) {  // Algorithms 1-3, and 4 beyond its first kernel
    ++r;
    if (a == 3) {
      const std::uint64_t m = std::min<std::uint64_t>(kBikovM, size);
      const BikovGrid g(size / m);
      bikov_step_m<W><<<g.blocks, g.threads, 0, s>>>(wf, temp, r, j, static_cast<unsigned>(m));
    } else {
      const BikovGrid g(size);
      if (a == 2) bikov_step<W, true><<<g.blocks, g.threads, 0, s>>>(wf, temp, r, j);
      else bikov_step<W, false><<<g.blocks, g.threads, 0, s>>>(wf, temp, r, j);
    }
    count.after_launch();
    in_temp = r % 2 == 1;
  }
  // "if r is odd then W_f ← temp" (r counts from 10 after Algorithm 4's first kernel, so that
  // an array of at most 1024 points, done in shared memory, is never copied).
  if (in_temp) FC_CUDA(cudaMemcpyAsync(wf, temp, size * sizeof(W), cudaMemcpyDeviceToDevice, s));
}

// ---- seed 003: NVIDIA fastWalshTransform, radix-4 -----------------------------------------------

constexpr int kRadix4SharedLog2 = 11;  ///< the sample's ELEMENTARY_LOG2SIZE: 2048 words per block

/// Rows of 2^log2n ≤ 2^11 words, one per block, in shared memory: radix-4 stages from the top,
/// a radix-2 stage for odd log2n.
template <class W>
__global__ void radix4_shared(W* data, int log2n) {
  extern __shared__ __align__(16) unsigned char raw[];  // 16-byte words and vectors
  W* s = reinterpret_cast<W*>(raw);
  const unsigned n = 1u << log2n;
  W* row = data + blockIdx.x * std::uint64_t{n};
  for (unsigned p = threadIdx.x; p < n; p += blockDim.x) s[p] = row[p];
  for (unsigned stride = n >> 2; stride > 0; stride >>= 2) {
    __syncthreads();
    for (unsigned p = threadIdx.x; p < n / 4; p += blockDim.x) radix4_butterfly(s, radix4_first(p, stride), stride);
  }
  if (log2n & 1) {
    __syncthreads();
    for (unsigned p = threadIdx.x; p < n / 2; p += blockDim.x) {
      const W a = s[2 * p], b = s[2 * p + 1];
      s[2 * p] = a + b;
      s[2 * p + 1] = a - b;
    }
  }
  __syncthreads();
  for (unsigned p = threadIdx.x; p < n; p += blockDim.x) row[p] = s[p];
}

/// One radix-4 pass in global memory at span `stride` (= a quarter of the current sub-row).
template <class W>
__global__ void radix4_global(W* data, std::uint64_t stride, std::uint64_t rows_length) {
  const std::uint64_t pos = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (pos >= rows_length / 4) return;
  radix4_butterfly(data, radix4_first(pos, stride), stride);
}

template <class W>
void radix4_wht(W* data, int log2n, std::size_t rows, cudaStream_t s, LaunchCount& count) {
  const std::uint64_t total = (std::uint64_t{1} << log2n) * rows;
  int m = log2n;
  for (; m > kRadix4SharedLog2; m -= 2) {  // top two stages of every sub-row per pass
    radix4_global<W><<<blocks_for(total / 4, 256), 256, 0, s>>>(data, std::uint64_t{1} << (m - 2), total);
    count.after_launch();
  }
  if (m == 0) return;
  const std::uint64_t blocks = total >> m;
  const unsigned threads = std::max(1u, (1u << m) / 4);
  for (std::uint64_t first = 0; first < blocks; first += 0x7fffffff) {
    const unsigned b = static_cast<unsigned>(std::min<std::uint64_t>(0x7fffffff, blocks - first));
    radix4_shared<W><<<b, threads, (std::size_t{1} << m) * sizeof(W), s>>>(data + (first << m), m);
    count.after_launch();
  }
}

// ---- the `fast` variant ----------------------------------------------------------------------

/// One pass of the `fast` plan over `tiles` tiles, 2^tpg tiles per block, from `source` (words
/// In) to `target` (words Out; may be `source`), computed as W (TileRound).
template <class W, int V, int R, class In, class Out>
__global__ void fast_pass(const Vec<In, V>* source, Vec<Out, V>* target, PassShape shape, int tpg, std::uint64_t tiles,
                          RoundPlan plan, double store_scale, Combine<W, V> combine) {
  extern __shared__ __align__(32) unsigned char raw[];  // vectors of up to 32 bytes (8 floats)
  const unsigned per_tile = shape.threads_per_tile();
  const unsigned sub = threadIdx.x / per_tile, item = threadIdx.x % per_tile;
  const std::uint64_t wanted = (std::uint64_t{blockIdx.x} << tpg) + sub;
  TileRound<W, V, In, Out> tile;
  tile.shape = shape;
  tile.source = source;
  tile.target = target;
  tile.active = wanted < tiles;
  tile.tile_vec = shape.tile_base(tile.active ? wanted : tiles - 1) >> shape.logv;
  tile.shared = reinterpret_cast<Vec<W, V>*>(raw) + (std::size_t{sub} << (shape.t + shape.gc));
  tile.store_scale = store_scale;
  tile.combine = combine;
  for (int i = 0; i < plan.steps(); ++i) {
    const RoundPlan::Step st = plan.step(i);
    // A last round that would store strided across the warp (TileRound::strided_store) leaves its
    // results in shared memory, and the tile is stored in order after the barrier.
    const bool staged = st.to_global && tile.strided_store(shape.round_lo(st.k));
    tile.template run<R>(st.k, item, st.from_global, st.to_global && !staged, st.middle);
    __syncthreads();
    if (staged) tile.store_tile(item, per_tile);
  }
}

}  // namespace fastconv::cuda
