// The cpu backend's kernels (src/cpu/codelets.hpp, passes.hpp) called directly, on every
// instruction set this CPU runs, against a textbook WHT written here. Small cache geometries
// make small arrays take every path large ones take in production: deep recursion, the
// top level shared by threads or worked through part by part, the fused dyadic middle.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cpu/isa.hpp"

namespace {

using fastconv::cpu::DyadicOp;
using fastconv::cpu::Fused;
using fastconv::cpu::Geometry;
using fastconv::cpu::IsaKernels;
using fastconv::detail::u128;

/// 64-byte aligned storage, as the benchmarks and careful callers give the kernels.
template <class W>
struct Aligned {
  using value_type = W;
  Aligned() = default;
  template <class U>
  Aligned(const Aligned<U>&) noexcept {}
  W* allocate(std::size_t n) { return static_cast<W*>(::operator new(n * sizeof(W), std::align_val_t{64})); }
  void deallocate(W* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{64}); }
  friend bool operator==(const Aligned&, const Aligned&) { return true; }
};
template <class W>
using Vec = std::vector<W, Aligned<W>>;

/// In-place textbook WHT (natural order, unnormalised) — the oracle. Through a pointer: in the
/// sanitizer build the instrumented operator[] of every access was half of some tests' time.
template <class V>
void textbook(V& v) {
  auto* const x = v.data();
  const std::size_t size = v.size();
  for (std::size_t h = 1; h < size; h *= 2)
    for (std::size_t i = 0; i < size; i += 2 * h)
      for (std::size_t j = i; j < i + h; ++j) {
        const auto a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
}

/// The textbook WHT of each row of 2^n words of x, in place.
template <class V>
void textbook_rows(V& x, std::size_t size) {
  for (std::size_t r = 0; r < x.size(); r += size) {
    V row(x.begin() + r, x.begin() + r + size);
    textbook(row);
    std::copy(row.begin(), row.end(), x.begin() + r);
  }
}

/// prefetch_from_bytes of a geometry whose blocks never prefetch.
constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

/// Geometries from tiny (many passes at n ≈ 10; leaves of one double, two floats) to this
/// CPU's own; the L1 fields, an L1 of few ways that aliases at short strides, make the
/// in-cache sweeps take radix 2 and 4; the last of them sweeps across the parts of arrays
/// beyond its 512-byte L2 at radix 16 nevertheless (part_sweep_rows, as on Intel CPUs), and
/// the one after it has leaves that fill every way of L1 the walk counts, as 32 KiB leaves do
/// on L1s of 48 KiB and 12 ways.
std::vector<Geometry> geometries() {
  // {leaf, block, gather from, L1 way bytes, L1 ways, min share, L3 budget, L3 threads, part sweep
  // rows, prefetch from, L2, lead from, lane pair loads}: the third before this CPU's own has
  // every walk's blocks prefetch the next one, the second every walk's first sweeps prefetch
  // ahead; the one before it takes the first in-vector stage by a load and a shuffle where the
  // copy may choose (AVX-512, as on AMD CPUs), its first sweeps prefetching ahead from 2 KiB
  return {Geometry{64, 256, 4096},
          Geometry{64, 128, 1024},
          Geometry{32, 64, 1 << 30},
          Geometry{8, 64, 1024},
          Geometry{256, 1024, 8192},
          Geometry{1024, 4096, 1 << 30},
          Geometry{64, 1024, 8192, 64, 2},
          Geometry{256, 4096, 1 << 30, 256, 4},
          Geometry{64, 256, 1 << 30, 64, 2, 0, 0, 1, 16, kNever, 512},
          Geometry{2048, 16384, 1 << 30, 256, 8},
          Geometry{128, 512, 1 << 30, 4096, 8, 0, 0, 1, 0, 0},
          Geometry{2048, 8192, 1 << 30, 4096, 8, 0, 0, 1, 0, kNever, 1 << 20, 0},
          Geometry{256, 1024, 8192, 4096, 8, 0, 0, 1, 0, kNever, 1 << 20, 2048, false},
          Geometry::of_this_cpu()};
}

/// Teams whose threads share an array smaller than one block (min_share_bytes 0, as on AMD
/// CPUs): every thread's part is transformed in one piece and the top sweep split by columns.
/// Such teams form from 2^15 words on (kMinWordsPerThread), above the sizes the other
/// geometries are tested at. The next two have an L3 budget of 16 and 8 KiB for two threads: the
/// team works through parts beyond it one by one, sharing out the level below (crowds_l3),
/// once directly and once with gathered sweeps above. The next one's team shares radix-16
/// sweeps across the parts of arrays beyond its 64 KiB L2 (part_sweep_rows) by column
/// chunks; the one after it has its threads each prefetch the next block as they transform
/// theirs (prefetch_from_bytes), and the last one each first sweep a page ahead (lead_from_bytes).
std::vector<Geometry> small_share_geometries() {
  return {Geometry{16 << 10, 1 << 20, std::size_t{1} << 40, 4096, 8, 0},
          Geometry{1024, 1 << 14, 1 << 18, 4096, 8, 0},
          Geometry{1024, 1 << 13, std::size_t{1} << 40, 4096, 8, 0, 16 << 10, 2},
          Geometry{1024, 1 << 12, 1 << 17, 4096, 8, 0, 8 << 10, 2},
          Geometry{1024, 1 << 12, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 16, kNever, 64 << 10},
          Geometry{1024, 1 << 13, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 0, 0},
          Geometry{1024, 1 << 13, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 0, kNever, 1 << 20, 0}};
}

std::string where(const IsaKernels& isa, const Geometry& g, int n, int threads) {
  return std::string(isa.name) + " geometry {" + std::to_string(g.leaf_bytes) + ", " + std::to_string(g.block_bytes) +
         ", " + std::to_string(g.gather_bytes) + ", " + std::to_string(g.l1_way_bytes) + ", " +
         std::to_string(g.l1_ways) + ", " + std::to_string(g.min_share_bytes) + ", " +
         std::to_string(g.l3_budget_bytes) + ", " + std::to_string(g.l3_threads) + ", " +
         std::to_string(g.part_sweep_rows) + ", " + std::to_string(g.prefetch_from_bytes) + ", " +
         std::to_string(g.l2_bytes) + ", " + std::to_string(g.lead_from_bytes) + ", " +
         (g.lane_pair_loads ? "true" : "false") + "} n=" + std::to_string(n) +
         " threads=" + std::to_string(threads);
}

/// Small integers: every float result below is exact, so comparisons are bitwise.
template <class W>
Vec<W> small_integers(std::size_t size, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(-8, 8);
  Vec<W> v(size);
  for (auto& e : v) e = static_cast<W>(d(rng));
  return v;
}

template <class W>
void check_wht(const IsaKernels& isa, const std::vector<Geometry>& gs = geometries(), int n_min = 0, int n_max = 14,
               const std::vector<int>& thread_counts = {1, 2, 3, 5}) {
  std::mt19937_64 rng(11);
  const auto& k = isa.of<W>();
  for (const Geometry& g : gs)
    for (int n = n_min; n <= n_max; ++n) {
      // One input and its oracle for every team: with an oracle per team, and one assertion a
      // word in check_dyadic and check_convolve (first_off_oracle), the CpuKernels tests took
      // 56 s here and the heaviest of them 158 s under QEMU, instead of 41 and 127.
      const auto x = small_integers<W>(std::size_t{1} << n, rng);
      auto want = x;
      textbook(want);
      auto scaled = want;
      for (auto& e : scaled) e *= W(0.25);
      for (int threads : thread_counts) {
        auto got = x;
        k.wht(got.data(), got.data(), n, threads, 1.0, g);
        ASSERT_TRUE(got == want) << "in place, " << where(isa, g, n, threads);
        Vec<W> out(x.size());
        k.wht(x.data(), out.data(), n, threads, 1.0, g);
        ASSERT_TRUE(out == want) << "out of place, " << where(isa, g, n, threads);
        if constexpr (std::is_floating_point_v<W>) {  // a power-of-two scale is exact too
          k.wht(x.data(), out.data(), n, threads, 0.25, g);
          ASSERT_TRUE(out == scaled) << "scaled, " << where(isa, g, n, threads);
        }
      }
    }
}

/// wht_bounded: the transform when every |x| < 2^limit; otherwise false with the input as
/// it was, wherever the offending word sits — first, in the middle or last, which makes every
/// part before it be transformed and then undone.
template <class W>
void check_wht_bounded(const IsaKernels& isa) {
  using S = std::make_signed_t<W>;
  std::mt19937_64 rng(13);
  const auto& k = isa.of<W>();
  ASSERT_NE(k.wht_bounded, nullptr) << isa.name;
  for (const Geometry& g : geometries())
    for (int n = 0; n <= 14; ++n)
      for (int threads : {1, 2, 3})
        for (int limit : {4, std::numeric_limits<S>::digits - n}) {
          const std::size_t size = std::size_t{1} << n;
          auto x = small_integers<W>(size, rng);  // |x| ≤ 8 < 2^limit
          x[size - 1] = W(0) - ((W{1} << limit) - 1);  // −(2^limit − 1): the largest that fits
          auto want = x;
          textbook(want);
          auto got = x;
          ASSERT_TRUE(k.wht_bounded(got.data(), got.data(), n, threads, limit, g)) << where(isa, g, n, threads);
          ASSERT_TRUE(got == want) << "in place, limit " << limit << ", " << where(isa, g, n, threads);
          Vec<W> out(size);
          ASSERT_TRUE(k.wht_bounded(x.data(), out.data(), n, threads, limit, g)) << where(isa, g, n, threads);
          ASSERT_TRUE(out == want) << "out of place, limit " << limit << ", " << where(isa, g, n, threads);
          for (std::size_t at : {std::size_t{0}, size / 2, size - 1})
            for (bool negative : {false, true}) {
              auto bad = x;
              bad[at] = negative ? W(0) - (W{1} << limit) : W{1} << limit;  // |x| = 2^limit: one too many
              auto in_place = bad;
              ASSERT_FALSE(k.wht_bounded(in_place.data(), in_place.data(), n, threads, limit, g))
                  << "at " << at << ", limit " << limit << ", " << where(isa, g, n, threads);
              ASSERT_TRUE(in_place == bad) << "not restored: at " << at << ", limit " << limit << ", "
                                           << where(isa, g, n, threads);
              ASSERT_FALSE(k.wht_bounded(bad.data(), out.data(), n, threads, limit, g))
                  << "out of place, at " << at << ", " << where(isa, g, n, threads);
            }
        }
}

/// Where natural-order coefficient h goes in `order`, by the orders' definitions: Paley
/// position = h's bits reversed; sequency position = the number of sign changes along Hadamard
/// row h (counted directly for n ≤ 8, and from n = 9 on by the count's closed form, the prefix
/// XOR of the reversed bits, which the direct count checks below that).
std::size_t position_of(std::size_t h, int n, fastconv::Order order) {
  std::size_t r = 0;
  for (int i = 0; i < n; ++i) r |= ((h >> i) & 1) << (n - 1 - i);
  if (order == fastconv::Order::paley) return r;
  if (n <= 8) {
    std::size_t changes = 0;
    for (std::size_t j = 1; j < (std::size_t{1} << n); ++j)
      changes += (std::popcount(h & j) & 1) != (std::popcount(h & (j - 1)) & 1);
    return changes;
  }
  for (int s = 1; s < 64; s <<= 1) r ^= r >> s;
  return r;
}

/// x's rows of 2^n words (natural order), each put into `order` by position_of (Paley or
/// sequency; natural order: x).
template <class V>
V in_order(const V& x, int n, fastconv::Order order) {
  if (order == fastconv::Order::hadamard) return x;
  const std::size_t size = std::size_t{1} << n;
  V out(x.size());
  for (std::size_t r = 0; r < x.size(); r += size)
    for (std::size_t h = 0; h < size; ++h) out[r + position_of(h, n, order)] = x[r + h];
  return out;
}

/// Whether wht_rows must order rows of 2^n words of W itself on this instruction set: on
/// AVX-512 every row its one sweep holds (2^8 four-byte words, 2^7 eight-byte ones; 16-byte
/// words have no vectors), so that a kernel that never orders cannot pass the checks below by
/// being skipped.
template <class W>
bool must_order_rows(const IsaKernels& isa, int n) {
  return isa.name == "avx512" && sizeof(W) <= 8 && n <= (sizeof(W) == 4 ? 8 : 7);
}

constexpr fastconv::Order kOrders[] = {fastconv::Order::hadamard, fastconv::Order::paley, fastconv::Order::sequency};

/// Row counts for batches of rows of 2^n words that a Geometry's leaf holds `per` of: a few,
/// around one leaf's worth, and two leaves' worth and an odd rest (runs of every size).
std::vector<std::size_t> row_counts(const Geometry& g, int n, std::size_t word_bytes) {
  const std::size_t per = std::max<std::size_t>(1, (g.leaf_bytes / word_bytes) >> n);
  return {1, 2, 3, 7, per - 1 > 0 ? per - 1 : 1, per, per + 1, 2 * per + 5};
}

/// A batch of rows back to back (wht_rows): every row its own textbook transform, short rows
/// transformed many to a codelet call, rows longer than a leaf one at a time; in Paley and
/// sequency order where the kernels order rows in their registers.
template <class W>
void check_wht_rows(const IsaKernels& isa) {
  std::mt19937_64 rng(14);
  const auto& k = isa.of<W>();
  for (const Geometry& g : geometries())
    for (int n = 0; n <= 12; ++n)
      for (const fastconv::Order order : kOrders) {
        const bool in_registers = order == fastconv::Order::hadamard || k.orders_rows(n, order);
        if (order != fastconv::Order::hadamard && must_order_rows<W>(isa, n)) {
          ASSERT_TRUE(in_registers) << fastconv::to_string(order) << ", " << where(isa, g, n, 1);
        }
        if (!in_registers) continue;
        for (std::size_t rows : row_counts(g, n, sizeof(W))) {
          const std::size_t size = std::size_t{1} << n;
          const auto x = small_integers<W>(rows * size, rng);
          auto want = x;
          textbook_rows(want, size);
          want = in_order(want, n, order);
          auto got = x;
          const std::string at = std::string(fastconv::to_string(order)) + ", " + std::to_string(rows) + " rows, ";
          ASSERT_TRUE(k.wht_rows(got.data(), rows, n, 1.0, -1, g, order));
          ASSERT_TRUE(got == want) << at << where(isa, g, n, 1);
          if constexpr (std::is_floating_point_v<W>) {
            got = x;
            ASSERT_TRUE(k.wht_rows(got.data(), rows, n, 0.25, -1, g, order));
            for (auto& e : want) e *= W(0.25);
            ASSERT_TRUE(got == want) << "scaled, " << at << where(isa, g, n, 1);
          }
        }
      }
}

/// wht_rows with a limit: the transform when every word fits; otherwise false and the batch
/// as it was, whether the word that does not fit is the first, in a middle row or the last;
/// in every order the kernels put rows into.
template <class W>
void check_wht_rows_bounded(const IsaKernels& isa) {
  using S = std::make_signed_t<W>;
  std::mt19937_64 rng(15);
  const auto& k = isa.of<W>();
  for (const Geometry& g : geometries())
    for (int n = 0; n <= 12; ++n)
      for (const fastconv::Order order : kOrders) {
        if (order != fastconv::Order::hadamard && !k.orders_rows(n, order)) continue;
        for (std::size_t rows : row_counts(g, n, sizeof(W)))
          for (int limit : {4, std::numeric_limits<S>::digits - n}) {
            const std::size_t size = std::size_t{1} << n, words = rows * size;
            auto x = small_integers<W>(words, rng);
            x[words - 1] = W(0) - ((W{1} << limit) - 1);  // the largest that fits
            auto want = x;
            textbook_rows(want, size);
            want = in_order(want, n, order);
            auto got = x;
            const std::string at = std::string(fastconv::to_string(order)) + ", limit " + std::to_string(limit) + ", " +
                                   std::to_string(rows) + " rows, ";
            ASSERT_TRUE(k.wht_rows(got.data(), rows, n, 1.0, limit, g, order)) << at << where(isa, g, n, 1);
            ASSERT_TRUE(got == want) << at << where(isa, g, n, 1);
            for (std::size_t bad_at : {std::size_t{0}, rows / 2 * size + size / 2, words - 1}) {
              auto bad = x;
              bad[bad_at] = W{1} << limit;  // one too many
              got = bad;
              ASSERT_FALSE(k.wht_rows(got.data(), rows, n, 1.0, limit, g, order))
                  << "at " << bad_at << ", " << at << where(isa, g, n, 1);
              ASSERT_TRUE(got == bad) << "not restored: at " << bad_at << ", " << at << where(isa, g, n, 1);
            }
          }
      }
}

/// The first i where out[i] is off the oracle's y[i]·scale (size if none): within a float
/// convolution's error bound at 2^n words, exactly for integer words. One loop, then one
/// assertion, instead of an assertion a word (check_wht has the times).
template <class W, class Acc>
std::size_t first_off_oracle(const Vec<W>& out, const std::vector<Acc>& y, double scale, int n) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    if constexpr (std::is_floating_point_v<W>) {
      const double want = y[i] * scale;
      const double tol = 64 * std::numeric_limits<W>::epsilon() * (1 + std::fabs(want)) * (n + 1) * 8;
      if (!(std::fabs(static_cast<double>(out[i]) - want) <= tol)) return i;
    } else if (out[i] != y[i]) {
      return i;
    }
  }
  return out.size();
}

template <class W>
void check_dyadic(const IsaKernels& isa, const std::vector<Geometry>& gs = geometries(), int n_min = 0, int n_max = 13) {
  std::mt19937_64 rng(12);
  const auto& k = isa.of<W>();
  const std::vector<DyadicOp> ops = std::is_floating_point_v<W>
                                        ? std::vector{DyadicOp::multiply, DyadicOp::square, DyadicOp::divide}
                                        : std::vector{DyadicOp::multiply, DyadicOp::square};
  for (const Geometry& g : gs)
    for (int n = n_min; n <= n_max; ++n)
      for (int m : {0, n / 2, n})  // spectra of the operand's own size and of shorter ones
        for (DyadicOp op : ops) {
          const std::size_t size = std::size_t{1} << n;
          const auto x = small_integers<W>(size, rng);
          // The spectrum is an input of the kernel: any values, nonzero for the division.
          Vec<W> s = small_integers<W>(std::size_t{1} << m, rng);
          for (auto& e : s)
            if (e == W(0)) e = W(3);
          // Oracle: scale · W(op(W·x, S)), computed in double for floats; one for both teams.
          using Acc = std::conditional_t<std::is_floating_point_v<W>, double, W>;
          std::vector<Acc> y(x.begin(), x.end());
          textbook(y);
          const double scale = std::is_floating_point_v<W> ? 1.0 / double(size) : 1.0;
          for (std::size_t i = 0; i < size; ++i) {
            const Acc sv = static_cast<Acc>(s[i & (s.size() - 1)]);
            y[i] = op == DyadicOp::multiply ? y[i] * sv : op == DyadicOp::square ? y[i] * y[i] : y[i] / sv;
          }
          textbook(y);
          for (int threads : {1, 2}) {
            Vec<W> out(size);
            k.dyadic(x.data(), out.data(), n, op, s.data(), m, scale, threads, g);
            auto in_place = x;
            k.dyadic(in_place.data(), in_place.data(), n, op, s.data(), m, scale, threads, g);
            const std::size_t i = first_off_oracle<W>(out, y, scale, n);
            ASSERT_EQ(i, size) << "op " << int(op) << " m=" << m << " i=" << i << ": " << static_cast<double>(out[i])
                               << " against " << static_cast<double>(y[i]) * scale << ", " << where(isa, g, n, threads);
            ASSERT_TRUE(in_place == out) << "in place differs, " << where(isa, g, n, threads);
          }
        }
}

/// The two-operand convolution (the second operand's outermost sweep done by the fused
/// middle where it can): against the textbook, and bitwise against a spectrum transformed
/// whole and then applied; out of place and in place over either operand.
template <class W>
void check_convolve(const IsaKernels& isa, const std::vector<Geometry>& gs = geometries(), int n_min = 0,
                    int n_max = 13) {
  std::mt19937_64 rng(13);
  const auto& k = isa.of<W>();
  for (const Geometry& g : gs)
    for (int n = n_min; n <= n_max; ++n) {
      const std::size_t size = std::size_t{1} << n;
      const auto a = small_integers<W>(size, rng), b = small_integers<W>(size, rng);
      using Acc = std::conditional_t<std::is_floating_point_v<W>, double, W>;  // one oracle for every team
      std::vector<Acc> ya(a.begin(), a.end()), yb(b.begin(), b.end());
      textbook(ya);
      textbook(yb);
      for (std::size_t i = 0; i < size; ++i) ya[i] *= yb[i];
      textbook(ya);
      const double scale = std::is_floating_point_v<W> ? 1.0 / double(size) : 1.0;
      for (int threads : {1, 2, 3}) {
        Vec<W> out(size), s(size), whole(size), two_step(size);
        k.convolve(a.data(), b.data(), out.data(), s.data(), n, scale, threads, g);
        k.wht(b.data(), whole.data(), n, threads, 1.0, g);
        k.dyadic(a.data(), two_step.data(), n, DyadicOp::multiply, whole.data(), n, scale, threads, g);
        auto over_a = a, over_b = b;
        k.convolve(over_a.data(), b.data(), over_a.data(), s.data(), n, scale, threads, g);
        k.convolve(a.data(), over_b.data(), over_b.data(), s.data(), n, scale, threads, g);
        const std::size_t i = first_off_oracle<W>(out, ya, scale, n);
        ASSERT_EQ(i, size) << "i=" << i << ": " << static_cast<double>(out[i]) << " against "
                           << static_cast<double>(ya[i]) * scale << ", " << where(isa, g, n, threads);
        ASSERT_TRUE(out == two_step) << "differs from spectrum + dyadic, " << where(isa, g, n, threads);
        ASSERT_TRUE(over_a == out) << "out = a differs, " << where(isa, g, n, threads);
        ASSERT_TRUE(over_b == out) << "out = b differs, " << where(isa, g, n, threads);
      }
    }
}

/// check.template operator()<W>(isa) for every instruction set this CPU runs and every word type.
template <class Check>
void on_every_isa_and_word(const Check& check) {
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    check.template operator()<float>(*isa);
    check.template operator()<double>(*isa);
    check.template operator()<std::uint32_t>(*isa);
    check.template operator()<std::uint64_t>(*isa);
    check.template operator()<u128>(*isa);
  }
}

// Single transforms (wht) and batches of rows back to back (wht_rows).
TEST(CpuKernels, WhtMatchesTextbookOnEveryPath) {
  on_every_isa_and_word([]<class W>(const IsaKernels& isa) {
    check_wht<W>(isa);
    check_wht_rows<W>(isa);
  });
}

TEST(CpuKernels, BoundedWhtTransformsOrLeavesTheInputOnEveryPath) {
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    check_wht_bounded<std::uint32_t>(*isa);
    check_wht_bounded<std::uint64_t>(*isa);
    check_wht_rows_bounded<std::uint32_t>(*isa);
    check_wht_rows_bounded<std::uint64_t>(*isa);
  }
}

TEST(CpuKernels, FusedDyadicMatchesTextbookOnEveryPath) {
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    check_dyadic<float>(*isa);
    check_dyadic<double>(*isa);
    check_dyadic<std::uint32_t>(*isa);
    check_dyadic<std::uint64_t>(*isa);
    check_dyadic<u128>(*isa);
  }
}

TEST(CpuKernels, ConvolutionOfTwoOperandsMatchesTextbookOnEveryPath) {
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    check_convolve<float>(*isa);
    check_convolve<double>(*isa);
    check_convolve<std::uint64_t>(*isa);
    check_convolve<u128>(*isa, geometries(), 0, 10);
  }
}

// Teams of 1, 2 and 3 threads (3: a team that is not a power of two). Not 5: LLVM's OpenMP
// runtime (libomp 14, the sanitizer builds') leaks its thread records when a team of 5 on
// this 2-core machine is followed by a team of 2, with no fastconv code involved (a loop of
// `parallel num_threads(t)` regions over t = 2, 5: 2880 bytes at exit under LeakSanitizer).
TEST(CpuKernels, TeamsOfSharesSmallerThanABlockMatchTextbook) {
  const std::vector<int> teams{1, 2, 3};
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    check_wht<float>(*isa, small_share_geometries(), 15, 17, teams);
    check_wht<double>(*isa, small_share_geometries(), 15, 17, teams);
    check_wht<std::uint32_t>(*isa, small_share_geometries(), 15, 16, teams);
    check_wht<std::uint64_t>(*isa, small_share_geometries(), 15, 16, teams);
    check_dyadic<float>(*isa, small_share_geometries(), 15, 16);
    check_dyadic<std::uint64_t>(*isa, small_share_geometries(), 15, 15);
    check_convolve<float>(*isa, small_share_geometries(), 15, 16);
    check_convolve<double>(*isa, small_share_geometries(), 15, 16);
  }
}

/// Every word through check_wht (one and two threads), check_dyadic and check_convolve on
/// every instruction set and geometry of gs: 4-byte words at 2^lo … 2^hi, 8-byte words at
/// one size less (the same bytes). The convolutions of floats only with `float_convolutions`:
/// at 2^19 and 2^21 their sums rounded past the checks' tolerance, on every copy alike.
void check_every_word_on(const std::vector<Geometry>& gs, int lo, int hi, bool float_convolutions = true) {
  const std::vector<int> teams{1, 2};
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    check_wht<float>(*isa, gs, lo, hi, teams);
    check_wht<double>(*isa, gs, lo - 1, hi - 1, teams);
    check_wht<std::uint32_t>(*isa, gs, lo, hi, teams);
    check_wht<std::uint64_t>(*isa, gs, lo - 1, hi - 1, teams);
    if (float_convolutions) {
      check_dyadic<float>(*isa, gs, lo, hi);
      check_convolve<float>(*isa, gs, lo, hi);
    }
    check_dyadic<double>(*isa, gs, lo - 1, hi - 1);
    check_convolve<double>(*isa, gs, lo - 1, hi - 1);
  }
}

/// Leaves of 2 KiB and blocks of 32 KiB, with the sweeps above the blocks direct and gathered:
/// the avx2_128 copy, whose radix-16 sweep right after the first fills a leaf of 2^9 floats
/// (2^8 doubles), then takes blocks smaller than the Geometry's where that saves a sweep
/// (Pipeline::plan_walk): 2^15 floats in blocks of 2^12, 2^14 doubles in blocks of 2^11.
/// The other copies walk the same sizes by their own plans.
TEST(CpuKernels, BlocksThatARadix16SweepFillsMatchTextbook) {
  check_every_word_on({Geometry{2048, 32768, std::size_t{1} << 40}, Geometry{2048, 32768, 1 << 16}}, 13, 16);
}

/// Radix-16 sweeps across parts a multiple of L1's way apart, more rows than L1 has ways: the
/// outermost sweep of a plain transform reads the parts rotated by their index
/// (Pipeline::skewed_sweep, one thread or two sharing its columns), each rotated by its last
/// sweep (rotated_sweep), or by std::rotate where that sweep's rows are too short for the
/// rotation (leaves of 256 bytes); the fused ones and the checked integer walk sweep as before.
TEST(CpuKernels, RotatedPartsUnderASkewedOutermostSweepMatchTextbook) {
  check_every_word_on({Geometry{1024, 4096, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 16, kNever, 4096},
                       Geometry{256, 4096, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 16, kNever, 4096},
                       Geometry{2048, 16384, std::size_t{1} << 40, 4096, 12, 0, 0, 1, 16, kNever, 16384}},
                      12, 16);
}

/// Blocks of 16 leaves under a skewed radix-16 outermost sweep, on a geometry like the Xeon
/// VM's (32 KiB leaves, 4 KiB ways, 1 MiB of L2): each leaf's last sweep rotates it by its
/// part's index and its own (rotated_sweep), the radix-16 sweep across a block's leaves reads
/// and writes them in place where they lie (skewed_in_place), and the outermost sweep reads
/// the parts leaf by leaf (skewed_sweep), the team sharing out whole leaves. 2^21 floats in
/// blocks of 2^17 (leaves of 2^13), 2^20 doubles in blocks of 2^16 (leaves of 2^12). The
/// fused walks plan without the skew, and convolve's spectrum, whose outermost sweep the
/// middle does, must split as they do (check_convolve).
TEST(CpuKernels, SkewedLeavesUnderASkewedOutermostSweepMatchTextbook) {
  check_every_word_on({Geometry{32768, 1 << 20, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 16, kNever, 1 << 20}}, 21, 21,
                      false);
}

/// Sweeps of radix 16 across parts below a skewed outermost sweep (Pipeline::plan_skew): each
/// reads and writes its rows in place where they lie, each row's blocks rotated by the sum of
/// their indices at every level above (skewed_in_place), and the outermost sweep reads the
/// parts block by block. Blocks of 8 KiB in 1 KiB leaves (2^19 floats, 2^18 doubles: radix
/// 16 across 16 parts of 16 blocks), whose last sweeps' rows are shorter than most of the
/// rotations (std::rotate); and blocks of 32 KiB in 4 KiB leaves (2^21 floats, 2^20
/// doubles), whose last sweeps rotate them directly.
TEST(CpuKernels, SkewedPartSweepsUnderASkewedOutermostSweepMatchTextbook) {
  check_every_word_on({Geometry{1024, 8192, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 16, kNever, 16384}}, 19, 19, false);
  check_every_word_on({Geometry{4096, 32768, std::size_t{1} << 40, 4096, 8, 0, 0, 1, 16, kNever, 65536}}, 21, 21, false);
}

/// WordKernels::reorder on `rows` rows of 2^n words into `out` (which may sit one word off a
/// vector's alignment), against position_of.
template <class W>
void check_reorder_at(const IsaKernels& isa, int n, std::size_t rows, int threads, bool misaligned) {
  const std::size_t size = std::size_t{1} << n, words = rows * size;
  Vec<W> in(words), storage(words + 1);
  for (std::size_t i = 0; i < words; ++i) in[i] = static_cast<W>(i + 1);
  W* out = storage.data() + (misaligned ? 1 : 0);
  for (const fastconv::Order order : {fastconv::Order::paley, fastconv::Order::sequency}) {
    std::fill(storage.begin(), storage.end(), W{});
    isa.of<W>().reorder(in.data(), out, rows, n, order, threads);
    // Word k holds input word out[k] − 1 (exact in every type: 2^22 < 2^24), which must be
    // coefficient h of the same row with position_of(h) = k's place in the row. A plain loop
    // through out in order finds the first one out of place.
    std::size_t k = 0;
    for (; k < words; ++k) {
      if (!(out[k] >= W{1} && out[k] <= static_cast<W>(words))) break;
      const auto from = static_cast<std::size_t>(out[k]) - 1;
      if (from / size != k / size || position_of(from % size, n, order) != k % size) break;
    }
    ASSERT_EQ(k, words) << isa.name << " " << sizeof(W) << "-byte words, " << fastconv::to_string(order) << " n=" << n
                        << " rows=" << rows << " threads=" << threads << (misaligned ? " misaligned" : "") << ": word "
                        << k << " holds " << static_cast<double>(out[k]) << " - 1";
  }
}

template <class W>
void check_reorder(const IsaKernels& isa) {
  for (int n = 0; n <= 14; ++n)
    for (const std::size_t rows : {std::size_t{1}, std::size_t{37}})
      for (const bool misaligned : {false, true})
        if (rows == 1 || n <= 9) check_reorder_at<W>(isa, n, rows, 1, misaligned);
  // From kParallelReorderBytes on a team shares the tiles; from kStreamedReorderBytes on the
  // stores stream past the caches where out is aligned (floating-point words only: integers
  // of their size take the same code).
  if constexpr (std::is_floating_point_v<W>) {
    const int shared = std::countr_zero(fastconv::cpu::kParallelReorderBytes / sizeof(W));
    const int streamed = std::countr_zero(fastconv::cpu::kStreamedReorderBytes / sizeof(W));
    check_reorder_at<W>(isa, shared, 1, 2, false);
    check_reorder_at<W>(isa, shared, 1, 3, true);
    check_reorder_at<W>(isa, streamed, 1, 1, false);
    check_reorder_at<W>(isa, streamed, 1, 3, false);
  }
}

/// WordKernels::ordered (the reordering fused into the top sweep) of 2^n words into out (one
/// word past a vector boundary if misaligned) against wht() then reorder(), bitwise: both are
/// the textbook's sums, scaled once (integers: not scaled, and checked against the limit their
/// words imply, which these fit). Where it declines it must leave out alone; true if it ran.
template <class W>
bool check_ordered_at(const IsaKernels& isa, int n, fastconv::Order order, double scale, int threads, bool misaligned) {
  std::mt19937_64 rng(21 + n);
  const auto& k = isa.of<W>();
  const Geometry& g = Geometry::of_this_cpu();
  const std::size_t size = std::size_t{1} << n;
  int limit = -1;
  if constexpr (!std::is_floating_point_v<W>) limit = std::numeric_limits<std::make_signed_t<W>>::digits - n;
  const Vec<W> in = small_integers<W>(size, rng);
  Vec<W> natural(size), want(size), storage(size + 1, W{7}), scratch(size), same = in;
  W* got = storage.data() + (misaligned ? 1 : 0);
  const Fused fused = k.ordered(in.data(), got, scratch.data(), n, order, scale, threads, limit, g);
  const std::string where = std::string(isa.name) + " " + std::to_string(sizeof(W)) + "-byte words, " +
                            std::string(fastconv::to_string(order)) + " n=" + std::to_string(n) + " scale=" +
                            std::to_string(scale) + " threads=" + std::to_string(threads) +
                            (misaligned ? " misaligned" : "");
  EXPECT_NE(fused, Fused::exceeded) << where;
  if (fused != Fused::done) {
    EXPECT_TRUE(std::all_of(storage.begin(), storage.end(), [](W w) { return w == W{7}; })) << where;
    return false;
  }
  k.wht(in.data(), natural.data(), n, 1, scale, g);
  k.reorder(natural.data(), want.data(), 1, n, order, 1);
  EXPECT_EQ(k.ordered(same.data(), same.data(), scratch.data(), n, order, scale, threads, limit, g), Fused::done) << where;
  for (std::size_t i = 0; i < size; ++i) {
    if (got[i] != want[i] || same[i] != want[i]) {
      ADD_FAILURE() << where << " i=" << i << ": " << static_cast<double>(got[i]) << ", in place "
                    << static_cast<double>(same[i]) << ", want " << static_cast<double>(want[i]);
      break;
    }
  }
  return true;
}

/// Integer words: one word at the limit, in the last part, fails the check; in and out stay as
/// they were, in place too.
template <class W>
void check_ordered_exceeded(const IsaKernels& isa, int n, int threads) {
  std::mt19937_64 rng(5);
  const auto& k = isa.of<W>();
  const Geometry& g = Geometry::of_this_cpu();
  const std::size_t size = std::size_t{1} << n;
  const int limit = std::numeric_limits<std::make_signed_t<W>>::digits - n;
  Vec<W> in = small_integers<W>(size, rng);
  in[size - 3] = static_cast<W>(-(std::make_signed_t<W>{1} << limit));
  const Vec<W> before = in;
  Vec<W> out(size, W{7}), scratch(size), same = in;
  const std::string where = std::string(isa.name) + " " + std::to_string(sizeof(W)) + "-byte words, n=" +
                            std::to_string(n) + " threads=" + std::to_string(threads);
  ASSERT_EQ(k.ordered(in.data(), out.data(), scratch.data(), n, fastconv::Order::sequency, 1.0, threads, limit, g),
            Fused::exceeded) << where;
  EXPECT_TRUE(in == before && std::all_of(out.begin(), out.end(), [](W w) { return w == W{7}; })) << where;
  ASSERT_EQ(k.ordered(same.data(), same.data(), scratch.data(), n, fastconv::Order::paley, 1.0, threads, limit, g),
            Fused::exceeded) << where;
  EXPECT_TRUE(same == before) << "in place, " << where;
}

/// n < 2q and parts below a leaf are declined, parts of a leaf or more fused, and from
/// kStreamedReorderBytes on (streamed stores) only into an out aligned to a vector.
template <class W>
void check_ordered(const IsaKernels& isa) {
  constexpr bool kFloat = std::is_floating_point_v<W>;
  for (int n = 0; n <= 17; ++n)
    for (const fastconv::Order order : {fastconv::Order::paley, fastconv::Order::sequency})
      for (const double scale : {1.0, 0.3})
        for (const int threads : {1, 2}) {
          if ((n < 15 && threads > 1) || (!kFloat && scale != 1.0)) continue;  // a team only from kParallelReorderBytes on
          const bool fused = check_ordered_at<W>(isa, n, order, scale, threads, false);
          if (n == 17 && isa.name != "portable") {  // parts of a leaf or more
            ASSERT_TRUE(fused) << isa.name << " n=17";
          }
        }
  if (isa.name == "portable") return;
  const int streamed = std::countr_zero(fastconv::cpu::kStreamedReorderBytes / sizeof(W));
  for (const int threads : {1, 2}) {
    EXPECT_TRUE(check_ordered_at<W>(isa, streamed, fastconv::Order::sequency, kFloat ? 0.3 : 1.0, threads, false));
    EXPECT_TRUE(check_ordered_at<W>(isa, streamed, fastconv::Order::paley, 1.0, threads, false));
  }
  EXPECT_TRUE(check_ordered_at<W>(isa, streamed - 1, fastconv::Order::sequency, 1.0, 1, true));
  EXPECT_FALSE(check_ordered_at<W>(isa, streamed, fastconv::Order::sequency, 1.0, 1, true));
  if constexpr (!kFloat) {
    for (const int threads : {1, 2}) {
      check_ordered_exceeded<W>(isa, 17, threads);
      check_ordered_exceeded<W>(isa, streamed, threads);
    }
  }
}

TEST(CpuKernels, FusedOrderedWhtIsTheTransformThenTheReordering) {
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    check_ordered<float>(*isa);
    check_ordered<double>(*isa);
    check_ordered<std::uint32_t>(*isa);
    check_ordered<std::uint64_t>(*isa);
  }
}

// Paley and sequency reordering, every instruction set and word size: the tiles transposed in
// registers (n ≥ 2 log2 L; narrower vectors' tiles below that), rows no longer than a vector
// (37 rows: a tail of words beyond the last whole vector), the word-by-word path where no
// vector fits and for 16-byte words, teams of threads, and the streamed stores.
TEST(CpuKernels, ReorderingPutsEveryCoefficientWhereItsOrderSays) {
  for (int n = 0; n <= 8; ++n)  // the closed form beside the direct count
    for (std::size_t h = 0; h < (std::size_t{1} << n); ++h) {
      std::size_t r = 0;
      for (int i = 0; i < n; ++i) r |= ((h >> i) & 1) << (n - 1 - i);
      for (int s = 1; s < 64; s <<= 1) r ^= r >> s;
      ASSERT_EQ(r, position_of(h, n, fastconv::Order::sequency)) << "n=" << n << " h=" << h;
    }
  on_every_isa_and_word([]<class W>(const IsaKernels& isa) { check_reorder<W>(isa); });
}

/// The first index at which got's and want's bits differ, or count. One memcmp for arrays that
/// match: an assertion per element took most of the time of the test below in the sanitizer build.
template <class A, class B>
std::size_t first_difference(const A* got, const B* want, std::size_t count) {
  static_assert(sizeof(A) == sizeof(B) && std::is_trivially_copyable_v<A> && std::is_trivially_copyable_v<B>);
  if (std::memcmp(got, want, count * sizeof(A)) == 0) return count;
  std::size_t i = 0;
  while (std::memcmp(got + i, want + i, sizeof(A)) == 0) ++i;
  return i;
}

// The 16-bit conversions of every instruction set against types.hpp's, bit for bit: every
// float16 and bfloat16 widened, and floats of every kind narrowed (every 61st bit pattern,
// so every exponent and both signs, plus the neighbourhoods of the rounding and range edges).
TEST(CpuKernels, SixteenBitConversionsMatchTheTypesBitForBit) {
  std::vector<std::uint32_t> patterns;
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 61) patterns.push_back(static_cast<std::uint32_t>(b));
  for (std::uint32_t edge : {0x00000000u, 0x33000000u, 0x387fc000u, 0x38800000u, 0x477fe000u, 0x477ff000u, 0x47800000u,
                             0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fffffffu})
    for (std::uint32_t d = 0; d < 4096; ++d)
      for (std::uint32_t sign : {0u, 0x80000000u}) patterns.push_back(((edge + d) & 0x7fffffffu) | sign);
  // types.hpp's conversions, once for every instruction set.
  std::vector<float> floats(patterns.size());
  std::vector<fastconv::float16> want_h(patterns.size());
  std::vector<fastconv::bfloat16> want_b(patterns.size());
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    floats[i] = std::bit_cast<float>(patterns[i]);
    want_h[i] = fastconv::float16(floats[i]);
    want_b[i] = fastconv::bfloat16(floats[i]);
  }
  std::vector<fastconv::float16> h(1 << 16);
  std::vector<fastconv::bfloat16> b(1 << 16);
  std::vector<float> h_wide(h.size()), b_wide(b.size());
  for (std::uint32_t i = 0; i < (1u << 16); ++i) {
    h[i] = fastconv::float16::from_bits(static_cast<std::uint16_t>(i));
    b[i] = fastconv::bfloat16::from_bits(static_cast<std::uint16_t>(i));
    h_wide[i] = static_cast<float>(h[i]);
    b_wide[i] = static_cast<float>(b[i]);
  }
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    std::vector<float> wide(h.size());
    isa->widen_f16(h.data(), wide.data(), h.size());
    std::size_t i = first_difference(wide.data(), h_wide.data(), h.size());
    ASSERT_EQ(i, h.size()) << isa->name << " float16 bits " << i << ": " << wide[i] << ", want " << h_wide[i];
    isa->widen_bf16(b.data(), wide.data(), b.size());
    i = first_difference(wide.data(), b_wide.data(), b.size());
    ASSERT_EQ(i, b.size()) << isa->name << " bfloat16 bits " << i << ": " << wide[i] << ", want " << b_wide[i];
    std::vector<fastconv::float16> hn(floats.size());
    std::vector<fastconv::bfloat16> bn(floats.size());
    isa->narrow_f16(floats.data(), hn.data(), floats.size());
    isa->narrow_bf16(floats.data(), bn.data(), floats.size());
    i = first_difference(hn.data(), want_h.data(), floats.size());
    ASSERT_EQ(i, floats.size()) << isa->name << " to float16, float bits " << patterns[i] << ": " << hn[i].bits
                                << ", want " << want_h[i].bits;
    i = first_difference(bn.data(), want_b.data(), floats.size());
    ASSERT_EQ(i, floats.size()) << isa->name << " to bfloat16, float bits " << patterns[i] << ": " << bn[i].bits
                                << ", want " << want_b[i].bits;
  }
}

/// want[k] for 16-bit inputs x: x widened, its textbook float transform, times scale, as floats.
template <class H>
std::vector<float> halves_want(const H* x, std::size_t size, double scale) {
  std::vector<float> want(x, x + size);
  textbook(want);
  for (auto& w : want) w *= static_cast<float>(scale);
  return want;
}

/// got == want rounded once (a NaN need only be a NaN); false after the first failure.
template <class H>
::testing::AssertionResult halves_match(const H* got, const std::vector<float>& want) {
  for (std::size_t k = 0; k < want.size(); ++k) {
    const bool ok = std::isnan(want[k]) ? std::isnan(static_cast<float>(got[k])) : got[k].bits == H(want[k]).bits;
    if (!ok) return ::testing::AssertionFailure() << "k=" << k << ": bits " << got[k].bits << ", want " << H(want[k]).bits;
  }
  return ::testing::AssertionSuccess();
}

/// wht_rows_f16 / wht_rows_bf16 (H) against the definition of a 16-bit WHT: each row widened
/// exactly, its textbook float transform (the float kernels' results are bitwise the textbook
/// loop's), times scale in float, rounded once by types.hpp. Random bit patterns, so NaN,
/// infinity, subnormals and overflow come up; a NaN result need only be a NaN (its payload
/// depends on which operand an instruction propagates). Rows back to back and with gaps (which
/// must stay as they were), on every geometry, up to the block of this CPU's; in Paley and
/// sequency order where the kernels order rows in their registers.
template <class H>
void check_halves(const IsaKernels& isa, void (*rows_of)(H*, std::size_t, std::size_t, int, double, float*,
                                                          const Geometry&, fastconv::Order)) {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> bits(0, 0xffff), small(-8, 8);
  for (const Geometry& g : geometries()) {
    const int n_max = std::bit_width(g.block_bytes / sizeof(float)) - 1;
    for (int n = 0; n <= std::min(n_max, 18); n += (n < 14 ? 1 : 2))
      for (const fastconv::Order order : kOrders) {
        // Paley and sequency rows only where the float kernels order them in registers.
        if (order != fastconv::Order::hadamard) {
          if (must_order_rows<float>(isa, n)) {
            ASSERT_TRUE(isa.f32.orders_rows(n, order) && n <= isa.halves_in_registers_log2) << where(isa, g, n, 1);
          }
          if (!isa.f32.orders_rows(n, order) || n > isa.halves_in_registers_log2) continue;
        }
        for (std::size_t rows : row_counts(g, n, sizeof(float)))
          for (std::size_t gap : {std::size_t{0}, std::size_t{3}})
            for (double scale : {1.0, 0.1}) {
              const std::size_t size = std::size_t{1} << n, stride = size + gap;
              if (rows * stride > (std::size_t{1} << 19)) continue;
              std::vector<H> x((rows - 1) * stride + size);
              const bool patterns = (n + rows) % 2 == 0;  // otherwise small integers, exact in float
              for (auto& e : x)
                e = patterns ? H::from_bits(static_cast<std::uint16_t>(bits(rng))) : H(static_cast<float>(small(rng)));
              auto got = x;
              Vec<float> scratch(n <= isa.halves_in_registers_log2
                                     ? 0
                                     : std::max(size, std::size_t{1} << fastconv::cpu::kHalvesScratchLog2));
              rows_of(got.data(), rows, stride, n, scale, scratch.empty() ? nullptr : scratch.data(), g, order);
              for (std::size_t r = 0; r < rows; ++r) {
                const auto want = in_order(halves_want(x.data() + r * stride, size, scale), n, order);
                ASSERT_TRUE(halves_match(got.data() + r * stride, want))
                    << fastconv::to_string(order) << ", row " << r << " of " << rows << ", scale " << scale << ", gap "
                    << gap << ", " << where(isa, g, n, 1);
                for (std::size_t k = size; k < stride && r + 1 < rows; ++k)
                  ASSERT_EQ(got[r * stride + k].bits, x[r * stride + k].bits) << "gap after row " << r;
              }
            }
      }
  }
}

/// wht_f16 / wht_bf16 (H), the whole walk into float scratch and rounded back, against the same
/// definition: on every geometry (the small ones take every path of big arrays, gathered
/// sweeps included), on teams, in place and out of place.
template <class H>
void check_halves_whole(const IsaKernels& isa,
                        void (*whole)(const H*, H*, float*, int, int, double, const Geometry&)) {
  std::mt19937_64 rng(18);
  std::uniform_int_distribution<int> bits(0, 0xffff), small(-8, 8);
  for (const Geometry& g : geometries())
    for (int n = 0; n <= 14; ++n)
      for (int threads : {1, 2, 3})
        for (double scale : {1.0, 0.1}) {
          const std::size_t size = std::size_t{1} << n;
          std::vector<H> x(size);
          const bool patterns = (n + threads) % 2 == 0;
          for (auto& e : x)
            e = patterns ? H::from_bits(static_cast<std::uint16_t>(bits(rng))) : H(static_cast<float>(small(rng)));
          const auto want = halves_want(x.data(), size, scale);
          Vec<float> scratch(size);
          std::vector<H> out(size);
          whole(x.data(), out.data(), scratch.data(), n, threads, scale, g);
          ASSERT_TRUE(halves_match(out.data(), want)) << "out of place, scale " << scale << ", " << where(isa, g, n, threads);
          whole(x.data(), x.data(), scratch.data(), n, threads, scale, g);
          ASSERT_TRUE(halves_match(x.data(), want)) << "in place, scale " << scale << ", " << where(isa, g, n, threads);
        }
}

TEST(CpuKernels, SixteenBitRowsAreTheFloatTransformRoundedOnce) {
  int checked = 0;
  for (const IsaKernels* isa : fastconv::cpu::supported_isas()) {
    const bool none = isa->wht_rows_f16 == nullptr;
    ASSERT_TRUE(none == (isa->wht_rows_bf16 == nullptr) && none == (isa->wht_f16 == nullptr) &&
                none == (isa->wht_bf16 == nullptr))
        << isa->name;
    if (isa->wht_rows_f16 == nullptr) continue;  // below AVX2: the backend widens instead
    check_halves<fastconv::float16>(*isa, isa->wht_rows_f16);
    check_halves<fastconv::bfloat16>(*isa, isa->wht_rows_bf16);
    check_halves_whole<fastconv::float16>(*isa, isa->wht_f16);
    check_halves_whole<fastconv::bfloat16>(*isa, isa->wht_bf16);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no instruction set here has the 16-bit kernels (AVX2 or later needed)";
}

TEST(CpuKernels, EveryVariantIsListedAndNamed) {
  const auto isas = fastconv::cpu::supported_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.front()->name, "portable");
  for (const IsaKernels* isa : isas) EXPECT_FALSE(isa->description.empty()) << isa->name;
}

// The CPUs whose FP units are 128 bits wide, told from their CPUID signatures (leaf 1's EAX:
// stepping, model, family, extended model and family, as /proc/cpuinfo decodes them).
TEST(CpuKernels, NarrowFloatingPointUnitsAreToldFromTheSignature) {
  using fastconv::cpu::has_128bit_fp_units;
  EXPECT_TRUE(has_128bit_fp_units("AuthenticAMD", 0x00800F12));   // EPYC 7601 (Zen, family 17h model 01h)
  EXPECT_TRUE(has_128bit_fp_units("AuthenticAMD", 0x00800F82));   // Ryzen 7 2700X (Zen+, model 08h)
  EXPECT_TRUE(has_128bit_fp_units("AuthenticAMD", 0x00810F81));   // Ryzen 5 3400G (Zen+, model 18h)
  EXPECT_TRUE(has_128bit_fp_units("HygonGenuine", 0x00900F02));   // Hygon Dhyana (family 18h model 00h)
  EXPECT_FALSE(has_128bit_fp_units("AuthenticAMD", 0x00830F10));  // EPYC 7742 (Zen 2, model 31h)
  EXPECT_FALSE(has_128bit_fp_units("AuthenticAMD", 0x00870F10));  // Ryzen 9 3900X (Zen 2, model 71h)
  EXPECT_FALSE(has_128bit_fp_units("AuthenticAMD", 0x00A00F11));  // EPYC 7763 (Zen 3, family 19h)
  EXPECT_FALSE(has_128bit_fp_units("AuthenticAMD", 0x00A10F11));  // EPYC 9654 (Zen 4)
  EXPECT_FALSE(has_128bit_fp_units("AuthenticAMD", 0x00600F20));  // Opteron 6380 (Piledriver, family 15h)
  EXPECT_FALSE(has_128bit_fp_units("GenuineIntel", 0x00050657));  // Xeon Gold 6248 (Cascade Lake)
  EXPECT_FALSE(has_128bit_fp_units("GenuineIntel", 0x000906EA));  // Core i7-8700 (Coffee Lake)
  EXPECT_FALSE(has_128bit_fp_units(std::string_view("\0\0\0\0\0\0\0\0\0\0\0\0", 12), 0));
}

// Huge sweeps go through a buffer on AMD's Zen 3 and Zen 4 (family 19h), directly elsewhere.
TEST(CpuKernels, HugeSweepsAreGatheredFromZen3On) {
  using fastconv::cpu::gathers_huge_sweeps;
  EXPECT_TRUE(gathers_huge_sweeps("AuthenticAMD", 0x00A00F11));   // EPYC 7763 (Zen 3)
  EXPECT_TRUE(gathers_huge_sweeps("AuthenticAMD", 0x00A10F11));   // EPYC 9654 (Zen 4)
  EXPECT_FALSE(gathers_huge_sweeps("AuthenticAMD", 0x00800F12));  // EPYC 7601 (Zen)
  EXPECT_FALSE(gathers_huge_sweeps("AuthenticAMD", 0x00830F10));  // EPYC 7742 (Zen 2)
  EXPECT_FALSE(gathers_huge_sweeps("HygonGenuine", 0x00900F02));  // Hygon Dhyana
  EXPECT_FALSE(gathers_huge_sweeps("GenuineIntel", 0x00050657));  // Xeon Gold 6248 (Cascade Lake)
}

}  // namespace
