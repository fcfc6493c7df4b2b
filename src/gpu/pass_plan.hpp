// src/gpu/pass_plan.hpp — how the `fast` variant splits a transform into passes.
//
// A transform of 2^n words is done in passes over the array. The first pass works on
// contiguous tiles: the stages inside each vector of 2^logv words, then t0 stages across the
// vectors of the tile. Every later pass works on tiles of 2^t rows 2^p0 words apart and 2^gc
// vectors wide, doing the t stages on bits [p0, p0 + t). A tile fits the device's local memory
// (and, on CPUs, a share of L2) and its work-items fit one work-group, so the pass count is
// ⌈(n − log2 tile) / t⌉ + 1 at most. Plain C++: tests check the plans without a device.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fastconv::gpu {

/// What the planner needs to know about a device.
struct DeviceShape {
  std::size_t local_memory_bytes = 0;
  std::size_t max_work_group_size = 0;
  std::size_t vector_bytes = 16;  ///< width of a load: 16 bytes on GPUs, 32 on CPUs
  bool cpu = false;
  int max_round_bits = 0;  ///< row bits a work-item holds per round (0: 4 on CPUs, 3 on GPUs)
  /// Most bytes one tile may take (0: half the local memory on GPUs, 256 KiB on CPUs).
  std::size_t tile_budget_bytes = 0;
};

struct Pass {
  bool lanes = false;  ///< also the stages inside each vector (first pass only)
  int p0 = 0;          ///< log2 of the distance in words between the tile's rows
  int t = 0;           ///< stages (row bits) of this pass
  int r = 0;           ///< row bits one work-item holds per round
  int gc = 0;          ///< log2 of the vectors in a tile row
  int tpg = 0;         ///< log2 of the tiles per work-group (set per launch: tiles_per_group)

  int rounds() const { return t == 0 ? 1 : (t + r - 1) / r; }
  /// Tiles in `words` words.
  std::size_t tiles(std::size_t words, int logv) const { return words >> (t + gc + logv); }
  std::size_t work_group_size() const { return std::size_t{1} << (gc + t - r + tpg); }
};

struct PassPlan {
  int log2n = 0;
  int logv = 0;  ///< log2 of the words per vector
  std::vector<Pass> passes;
  /// Words in the largest tile (for the launch-count bound).
  std::size_t tile_words() const;
  /// "-D" options of pass i (without the word type), for the OpenCL build.
  std::string options(std::size_t i, int mode, bool store_scale) const;
};

/// The passes of a transform of 2^log2n words of `word_bytes` each (Pass::tpg = 0).
PassPlan plan_passes(int log2n, std::size_t word_bytes, const DeviceShape& device);

/// The fewest passes, as plan_passes(), in the smallest tiles that need no more of them: tile
/// budgets of min_tile_bytes, twice that, ... up to the device's own (the cuda backend: smaller
/// tiles put more blocks on each multiprocessor, and more multiprocessors to work on short rows).
PassPlan plan_passes_in_small_tiles(int log2n, std::size_t word_bytes, const DeviceShape& device,
                                    std::size_t min_tile_bytes);

/// log2 of the tiles one work-group of pass `p` should do when the launch has `tiles` tiles:
/// on CPUs enough (64 KiB) that PoCL's cost per work-group vanishes, on GPUs up to 64
/// work-items; never more than `tiles`.
int tiles_per_group(const Pass& p, std::size_t vector_bytes, const DeviceShape& device, std::size_t tiles);

}  // namespace fastconv::gpu
