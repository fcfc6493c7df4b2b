#include "gpu/pass_plan.hpp"

#include <algorithm>
#include <bit>

namespace fastconv::gpu {
namespace {

int log2_floor(std::size_t x) { return x == 0 ? 0 : static_cast<int>(std::bit_width(x)) - 1; }

/// Vectors of a padded tile of 2^t rows × 2^gc vectors (one spare row per 2^r rows).
std::size_t tile_slots(int t, int r, int gc) {
  return ((std::size_t{1} << t) + ((std::size_t{1} << t) >> r)) << gc;
}

constexpr int kMaxRounds = 5;  // fast.cl unrolls at most five rounds

/// The most row bits a tile of width 2^gc vectors may have on `device` (and at most `limit`).
int max_row_bits(int r, int gc, std::size_t vector_bytes, const DeviceShape& device, int limit) {
  // GPUs: the padded tile takes at most half the local memory (two work-groups per compute
  // unit). CPUs: local memory is ordinary memory there; the tile (without its padding) takes
  // at most 256 KiB, so that it stays in L2 between rounds.
  const auto fits = [&](int t) {
    const std::size_t padded = tile_slots(t, std::min(r, t), gc) * vector_bytes;
    const std::size_t items = std::size_t{1} << (gc + t - std::min(r, t));
    if (items > device.max_work_group_size || padded > device.local_memory_bytes) return false;
    if (device.tile_budget_bytes > 0) return (std::size_t{vector_bytes} << (gc + t)) <= device.tile_budget_bytes;
    return device.cpu ? (std::size_t{vector_bytes} << (gc + t)) <= (std::size_t{256} << 10)
                      : padded <= device.local_memory_bytes / 2;
  };
  int t = std::min(limit, kMaxRounds * r);
  while (t > 0 && !fits(t)) --t;
  return t;
}

}  // namespace

int tiles_per_group(const Pass& p, std::size_t vector_bytes, const DeviceShape& device, std::size_t tiles) {
  const std::size_t items = std::size_t{1} << (p.gc + p.t - p.r);
  const std::size_t tile_bytes = tile_slots(p.t, p.r, p.gc) * vector_bytes;
  const std::size_t max_items = std::min<std::size_t>(device.max_work_group_size, device.cpu ? 4096 : 256);
  int tpg = 0;
  while ((std::size_t{2} << tpg) <= tiles && (items << (tpg + 1)) <= max_items &&
         (tile_bytes << (tpg + 1)) <= device.local_memory_bytes &&
         (device.cpu ? (tile_bytes << tpg) < (std::size_t{64} << 10) : (items << tpg) < 64))
    ++tpg;
  return tpg;
}

std::size_t PassPlan::tile_words() const {
  std::size_t most = 1;
  for (const Pass& p : passes)
    most = std::max(most, std::size_t{1} << (p.t + p.gc + logv));
  return most;
}

std::string PassPlan::options(std::size_t i, int mode, bool store_scale) const {
  const Pass& p = passes[i];
  return "-D FC_V=" + std::to_string(1 << logv) + " -D FC_LOGV=" + std::to_string(logv) +
         " -D FC_LANES=" + std::to_string(p.lanes ? 1 : 0) + " -D FC_P0=" + std::to_string(p.p0) +
         " -D FC_T=" + std::to_string(p.t) + " -D FC_R=" + std::to_string(p.r) + " -D FC_GC=" + std::to_string(p.gc) +
         " -D FC_TPG=" + std::to_string(p.tpg) + " -D FC_MODE=" + std::to_string(mode) +
         " -D FC_STORE_SCALE=" + std::to_string(store_scale ? 1 : 0);
}

PassPlan plan_passes(int log2n, std::size_t word_bytes, const DeviceShape& device) {
  PassPlan plan;
  plan.log2n = log2n;
  // 128-bit ring words are a struct of two ulongs in fast.cl: one word per "vector".
  plan.logv = word_bytes >= 16 ? 0 : std::min(log2n, std::max(0, log2_floor(device.vector_bytes / word_bytes)));
  const std::size_t vector_bytes = word_bytes << plan.logv;
  const int r_max = device.max_round_bits > 0 ? device.max_round_bits : device.cpu ? 4 : 3;

  // First pass: contiguous tiles, the lane stages and as many row stages as fit.
  int done = plan.logv;
  {
    Pass p;
    p.lanes = true;
    p.p0 = plan.logv;
    p.t = max_row_bits(r_max, 0, vector_bytes, device, log2n - done);
    p.r = std::min(r_max, p.t);
    plan.passes.push_back(p);
    done += p.t;
  }
  // Later passes: tiles of 2^t rows, each row 2^gc vectors. GPUs: rows of 128 bytes (whole
  // coalesced transactions), down to 32 bytes (one sector) where the pass count needs it.
  // CPUs: rows as wide as the tile allows and at least 1 KiB where the pass count permits,
  // so that every row is a run the prefetcher follows (a row of one cache line, 2^14 words
  // from the next, costs a full memory latency).
  const int remaining = log2n - done;
  if (remaining > 0) {
    // A tile row of 2^gc vectors takes 2^gc work-items at the least (one row stage a round):
    // no wider than a work-group may be (a device allowing 4 got a group of 8, and refused it).
    const int widest = log2_floor(device.max_work_group_size);
    const auto gc_for = [&](std::size_t row_bytes) {
      return std::min({done - plan.logv, widest, std::max(0, log2_floor(row_bytes / vector_bytes))});
    };
    const auto passes_at = [&](int gc) {
      const int most = std::max(1, max_row_bits(r_max, gc, vector_bytes, device, remaining));
      return (remaining + most - 1) / most;
    };
    // At most ⌈log2n / log2(first tile)⌉ + 1 passes in all.
    const int allowed = (log2n + done - 1) / std::max(done, 1);  // (done is 0 only on a toy device)
    int floor_gc = gc_for(128);
    while (floor_gc > gc_for(32) && passes_at(floor_gc) > allowed) --floor_gc;
    const int wide_gc = device.cpu ? std::max(floor_gc, gc_for(1024)) : floor_gc;
    const int count = std::max(passes_at(floor_gc), std::min(passes_at(wide_gc), allowed));
    for (int k = 0; k < count; ++k) {
      Pass p;
      p.p0 = done;
      p.t = remaining / count + (k < remaining % count ? 1 : 0);
      p.r = std::min(r_max, p.t);
      p.gc = floor_gc;
      if (device.cpu)  // widen the rows while the tile still fits
        while (p.gc + 1 <= done - plan.logv && max_row_bits(r_max, p.gc + 1, vector_bytes, device, p.t) >= p.t) ++p.gc;
      plan.passes.push_back(p);
      done += p.t;
    }
  }
  // Rounds of equal size: a round costs a trip through local memory however few its stages.
  // (unless the smaller r would need more work-items than a work-group may have).
  for (Pass& p : plan.passes) {
    const int rounds = (p.t + r_max - 1) / r_max;
    const int balanced = rounds == 0 ? 0 : (p.t + rounds - 1) / rounds;
    if ((std::size_t{1} << (p.gc + p.t - balanced)) <= device.max_work_group_size) p.r = balanced;
  }
  return plan;
}

PassPlan plan_passes_in_small_tiles(int log2n, std::size_t word_bytes, const DeviceShape& device,
                                    std::size_t min_tile_bytes) {
  PassPlan fewest = plan_passes(log2n, word_bytes, device);
  const std::size_t largest = device.tile_budget_bytes > 0 ? device.tile_budget_bytes : device.local_memory_bytes;
  for (std::size_t bytes = min_tile_bytes; bytes > 0 && bytes < largest; bytes *= 2) {
    DeviceShape smaller = device;
    smaller.tile_budget_bytes = bytes;
    if (PassPlan p = plan_passes(log2n, word_bytes, smaller); p.passes.size() <= fewest.passes.size()) return p;
  }
  return fewest;
}

}  // namespace fastconv::gpu
