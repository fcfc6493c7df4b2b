// The OpenCL kernels' index helpers (src/opencl/kernels/indexing.cl, compiled here as C++)
// and the `fast` variant's pass plans, checked on the CPU without any OpenCL device.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "cpu/order.hpp"
#include "gpu/pass_plan.hpp"

namespace cl_index {
using ulong = std::uint64_t;
using uint = std::uint32_t;
#define FC_INLINE inline
#include "opencl/kernels/indexing.cl"
#undef FC_INLINE
}  // namespace cl_index

namespace {

using fastconv::gpu::DeviceShape;
using fastconv::gpu::plan_passes;

TEST(OpenClIndexing, GajicThreadsCoverEveryButterflyOfEveryStepOnce) {
  for (int n = 1; n <= 12; ++n) {
    const std::uint64_t N = std::uint64_t{1} << n;
    for (int step = 0; step < n; ++step) {
      const std::uint64_t span = std::uint64_t{1} << step;
      std::vector<int> seen(N, 0);
      for (std::uint64_t tid = 0; tid < N / 2; ++tid) {
        const auto op1 = cl_index::fc_gajic_op1(tid, span), op2 = cl_index::fc_gajic_op2(tid, span);
        ASSERT_EQ(op2, op1 + span);
        ASSERT_EQ(op1 & span, 0u) << "op1 is the lower element of its pair";
        ++seen[op1];
        ++seen[op2];
      }
      for (int s : seen) ASSERT_EQ(s, 1) << "n=" << n << " step=" << step;
    }
  }
}

TEST(OpenClIndexing, NaturalIndexMatchesTheCpuOrders) {
  for (int n = 0; n <= 10; ++n)
    for (std::size_t k = 0; k < (std::size_t{1} << n); ++k) {
      EXPECT_EQ(cl_index::fc_natural_index(k, n, 0), fastconv::cpu::natural_index(k, n, fastconv::Order::hadamard));
      EXPECT_EQ(cl_index::fc_natural_index(k, n, 1), fastconv::cpu::natural_index(k, n, fastconv::Order::sequency));
      EXPECT_EQ(cl_index::fc_natural_index(k, n, 2), fastconv::cpu::natural_index(k, n, fastconv::Order::paley));
    }
}

TEST(OpenClIndexing, ShortBitHelpersMatchTheirDefinitions) {
  for (unsigned q = 0; q <= 8; ++q)
    for (unsigned k = 0; k < (1u << q); ++k) {
      ASSERT_EQ(cl_index::fc_reverse_short(k, q), fastconv::cpu::bit_reverse(k, static_cast<int>(q))) << q << " " << k;
      unsigned inverse = 0;  // the number whose Gray code is k, by search
      while ((inverse ^ (inverse >> 1)) != k) ++inverse;
      ASSERT_EQ(cl_index::fc_gray_inverse_short(k), inverse);
      ASSERT_EQ(cl_index::fc_gray_inverse(k), inverse);
    }
  for (unsigned bits = 0; bits <= 64; ++bits) {  // the loop-free reversal, up to 64 bits
    const std::uint64_t k = 0x9e3779b97f4a7c15ull & (bits == 64 ? ~0ull : (std::uint64_t{1} << bits) - 1);
    std::uint64_t want = 0;
    for (unsigned i = 0; i < bits; ++i) want |= ((k >> i) & 1) << (bits - 1 - i);
    ASSERT_EQ(cl_index::fc_bit_reverse(k, bits), want) << bits;
  }
}

// reorder.cl's tiles, simulated: for every size, tile side and order, each output word is
// written once, with natural coefficient fc_natural_index of its position.
TEST(OpenClIndexing, ReorderTilesWriteEveryWordOnceFromItsNaturalIndex) {
  for (unsigned bits = 0; bits <= 14; ++bits)
    for (unsigned q = 0; 2 * q <= bits && q <= 5; ++q)
      for (unsigned sequency = 0; sequency <= 1; ++sequency) {
        const unsigned m = bits - 2 * q, side = 1u << q;
        std::vector<std::int64_t> out(std::size_t{1} << bits, -1);
        for (std::uint64_t natural_mid = 0; natural_mid < (std::uint64_t{1} << m); ++natural_mid) {
          const std::uint64_t mid = cl_index::fc_bit_reverse(natural_mid, m);
          const std::uint64_t gray_mid = sequency ? cl_index::fc_gray_inverse(mid) : mid;
          for (unsigned a = 0; a < side; ++a)
            for (unsigned lo = 0; lo < side; ++lo) {
              const std::uint64_t block = cl_index::fc_order_block(a, gray_mid, m, sequency);
              const unsigned lane = cl_index::fc_order_lane(lo, block, q, sequency);
              // tile word (x, y) is natural word (x, natural_mid, y)
              const std::uint64_t x = cl_index::fc_reverse_short(lane, q), y = cl_index::fc_reverse_short(a, q);
              const std::uint64_t k = (block << q) + lo;
              ASSERT_LT(k, out.size());
              ASSERT_EQ(out[k], -1) << "written twice: bits=" << bits << " q=" << q << " k=" << k;
              out[k] = static_cast<std::int64_t>((((x << m) | natural_mid) << q) | y);
            }
        }
        for (std::size_t k = 0; k < out.size(); ++k)
          ASSERT_EQ(static_cast<std::uint64_t>(out[k]), fastconv::cpu::natural_index(k, static_cast<int>(bits),
                                                                                    sequency ? fastconv::Order::sequency
                                                                                             : fastconv::Order::paley))
              << "bits=" << bits << " q=" << q << " sequency=" << sequency << " k=" << k;
      }
}

TEST(OpenClIndexing, InsertZeroBitsEnumeratesEachGroupOnce) {
  for (unsigned bits = 1; bits <= 8; ++bits)
    for (unsigned at = 0; at + bits <= 10; ++at) {
      std::set<std::uint64_t> all;
      for (std::uint64_t rest = 0; rest < (std::uint64_t{1} << (10 - bits)); ++rest) {
        const auto first = cl_index::fc_insert_zero_bits(rest, at, bits);
        for (std::uint64_t i = 0; i < (std::uint64_t{1} << bits); ++i) all.insert(first | (i << at));
      }
      EXPECT_EQ(all.size(), std::size_t{1} << 10) << "at=" << at << " bits=" << bits;
    }
}

TEST(OpenClIndexing, TileSlotsAreDistinctAndFitThePaddedTile) {
  for (unsigned t = 0; t <= 8; ++t)
    for (unsigned r = 1; r <= 5; ++r)
      for (unsigned gc = 0; gc <= 3; ++gc) {
        std::set<unsigned> slots;
        const unsigned padded = ((1u << t) + ((1u << t) >> r)) << gc;
        for (unsigned row = 0; row < (1u << t); ++row)
          for (unsigned c = 0; c < (1u << gc); ++c) {
            const unsigned s = cl_index::fc_tile_slot(row, c, r, gc);
            ASSERT_LT(s, padded);
            slots.insert(s);
          }
        EXPECT_EQ(slots.size(), std::size_t{1} << (t + gc));
      }
}

/// PoCL on this kind of machine, OpenCL GPUs of several sizes, and the cuda backend's shape.
const std::vector<DeviceShape> kShapes = {{512 << 10, 4096, 32, true},
                                          {48 << 10, 1024, 16, false},
                                          {64 << 10, 1024, 16, false},
                                          {32 << 10, 256, 16, false},
                                          {227 << 10, 1024, 16, false, 5, 227 << 10}};  // the cuda backend on an H100

/// Devices whose work-groups hold a few items at most, which OpenCL allows (PoCL with
/// POCL_MAX_WORK_GROUP_SIZE=4 had been given groups of 8, and refused them). Their plans must
/// fit; the issue's bound on the launches is for real devices only.
const std::vector<DeviceShape> kTinyGroupShapes = {
    {512 << 10, 1, 64, true}, {512 << 10, 4, 64, true}, {48 << 10, 2, 16, false}, {48 << 10, 8, 16, false}};

TEST(OpenClPlan, PassesCoverEveryStageOnceAndFitTheDevice) {
  std::vector<DeviceShape> shapes = kShapes;
  shapes.insert(shapes.end(), kTinyGroupShapes.begin(), kTinyGroupShapes.end());
  for (const auto& shape : shapes)
    for (std::size_t word : {4, 8, 16})
      for (int n = 0; n <= 34; ++n) {
        const auto plan = plan_passes(n, word, shape);
        const std::string at = "n=" + std::to_string(n) + " word=" + std::to_string(word) + " local=" +
                               std::to_string(shape.local_memory_bytes);
        ASSERT_FALSE(plan.passes.empty()) << at;
        int bit = plan.logv;
        EXPECT_TRUE(plan.passes[0].lanes) << at;
        for (const auto& p : plan.passes) {
          EXPECT_EQ(p.p0, bit) << at << ": passes are contiguous in the stage bits";
          EXPECT_LE(p.r, p.t) << at;
          EXPECT_LE(p.rounds(), 5) << at;
          EXPECT_LE(plan.logv + p.gc, p.p0) << at << ": a tile row fits between two rows";
          EXPECT_LE(p.work_group_size(), shape.max_work_group_size) << at;
          const std::size_t padded = (((std::size_t{1} << p.t) + ((std::size_t{1} << p.t) >> p.r)) << p.gc) *
                                     (word << plan.logv);
          EXPECT_LE(padded, shape.local_memory_bytes) << at;
          bit += p.t;
        }
        EXPECT_EQ(bit, n) << at;
        if (word >= 16) {
          EXPECT_EQ(plan.logv, 0) << at << ": 128-bit words are not vectorised";
        }
      }
}

TEST(OpenClPlan, SmallTilesKeepThePassCount) {
  // The cuda backend's plans: tiles from 16 KiB up, no more passes than the largest tiles take.
  const DeviceShape& cuda = kShapes.back();
  for (std::size_t word : {4, 8, 16})
    for (int n = 0; n <= 34; ++n) {
      const auto largest = plan_passes(n, word, cuda);
      const auto small = fastconv::gpu::plan_passes_in_small_tiles(n, word, cuda, 16 << 10);
      const std::string at = "n=" + std::to_string(n) + " word=" + std::to_string(word);
      EXPECT_EQ(small.passes.size(), largest.passes.size()) << at;
      EXPECT_LE(small.tile_words(), largest.tile_words()) << at;
      int bit = small.logv;
      for (const auto& p : small.passes) {
        EXPECT_EQ(p.p0, bit) << at;
        EXPECT_LE(p.work_group_size(), cuda.max_work_group_size) << at;
        bit += p.t;
      }
      EXPECT_EQ(bit, n) << at;
    }
  // Where a smaller tile keeps the count it is taken: 2^16 floats in two passes of 16 KiB tiles.
  EXPECT_EQ(fastconv::gpu::plan_passes_in_small_tiles(16, 4, cuda, 16 << 10).tile_words(), std::size_t{1} << 12);
}

TEST(OpenClPlan, LaunchesPerTransformStayWithinTheIssueBound) {
  // ≤ ⌈log2 N / log2 tile⌉ + 1, with the tile of the first pass (the largest contiguous one).
  for (const auto& shape : kShapes)
    for (std::size_t word : {4, 8})
      for (int n = 1; n <= 30; ++n) {
        const auto plan = plan_passes(n, word, shape);
        const int tile_log2 = plan.logv + plan.passes[0].t;
        const int bound = (n + tile_log2 - 1) / tile_log2 + 1;
        EXPECT_LE(static_cast<int>(plan.passes.size()), bound)
            << "n=" << n << " word=" << word << " local=" << shape.local_memory_bytes;
      }
}

}  // namespace
