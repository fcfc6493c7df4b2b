// The CUDA kernels' per-thread code (src/cuda/device_helpers.hpp), run on the CPU: every
// variant's kernels are emulated thread by thread and phase by phase (a barrier ends a phase)
// with the very functions the GPU runs, and the results are compared with the reference
// backend. This is what CI checks of the CUDA backend without a GPU; the kernels themselves,
// their launches, shared memory and warp shuffles run only on a GPU (tests/device_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "cpu/order.hpp"
#include "cuda/conv2d_helpers.hpp"
#include "cuda/device_helpers.hpp"
#include "fastconv/fastconv.hpp"
#include "gpu/pass_plan.hpp"
#include "nn/kernels.hpp"

namespace {

namespace fc = fastconv;
using fc::cuda::U128;
__extension__ typedef unsigned __int128 u128;

u128 wide(U128 x) { return (static_cast<u128>(x.hi) << 64) | x.lo; }
U128 narrow(u128 x) { return {static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(x >> 64)}; }

/// The natural-order WHT by the reference backend, in the word's own ring or type.
template <class W>
std::vector<W> reference_wht(std::vector<W> x) {
  if constexpr (std::is_same_v<W, U128>) {
    std::vector<std::int64_t> lo(x.size()), hi(x.size());
    // Z/2^128 is not a library type: transform the two halves' exact sums instead.
    std::vector<u128> acc(x.size(), 0);
    const std::size_t n = x.size();
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i) {
        const u128 v = wide(x[i]);
        acc[k] += (std::popcount(k & i) % 2) ? -v : v;
      }
    std::vector<W> out(n);
    for (std::size_t k = 0; k < n; ++k) out[k] = narrow(acc[k]);
    return out;
  } else if constexpr (std::is_same_v<W, std::uint32_t> || std::is_same_v<W, std::uint64_t>) {
    std::vector<std::int64_t> s(x.begin(), x.end());
    for (auto& v : s) v = static_cast<std::int64_t>(std::is_same_v<W, std::uint32_t> ? static_cast<std::int32_t>(v) : v);
    fc::wht(s, {}, fc::Backend::reference());
    std::vector<W> out(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) out[i] = static_cast<W>(s[i]);
    return out;
  } else {
    fc::wht(x, {}, fc::Backend::reference());
    return x;
  }
}

template <class W>
std::vector<W> random_words(std::size_t n, std::mt19937_64& rng) {
  std::vector<W> v(n);
  for (auto& x : v) {
    const auto r = static_cast<std::int64_t>(rng() % 200) - 100;
    if constexpr (std::is_same_v<W, U128>) x = narrow(static_cast<u128>(r));  // sign-extends through the conversion
    else x = static_cast<W>(r);
  }
  return v;
}

template <class W>
void expect_equal(const std::vector<W>& a, const std::vector<W>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  double largest = 1;  // floats: both sides round differently; compare to the largest magnitude
  if constexpr (std::is_floating_point_v<W>)
    for (W v : a) largest = std::max(largest, double(std::abs(v)));
  for (std::size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_same_v<W, U128>) {
      ASSERT_TRUE(a[i].lo == b[i].lo && a[i].hi == b[i].hi) << what << " at " << i;
    } else if constexpr (std::is_floating_point_v<W>) {
      ASSERT_NEAR(a[i], b[i], 1e-5 * largest) << what << " at " << i;
    } else {
      ASSERT_EQ(a[i], b[i]) << what << " at " << i;
    }
  }
}

TEST(CudaHelpers, U128RingMatchesUnsignedInt128) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 10000; ++i) {
    const u128 a = (static_cast<u128>(rng()) << 64) | rng(), b = (static_cast<u128>(rng()) << 64) | rng();
    ASSERT_EQ(wide(narrow(a) + narrow(b)), a + b);
    ASSERT_EQ(wide(narrow(a) - narrow(b)), a - b);
    ASSERT_EQ(wide(narrow(a) * narrow(b)), a * b);
  }
}

TEST(CudaHelpers, NaturalIndexMatchesTheCpuOrders) {
  for (unsigned n = 0; n <= 10; ++n)
    for (std::size_t k = 0; k < (std::size_t{1} << n); ++k) {
      ASSERT_EQ(fc::cuda::natural_index(k, n, 1), fc::cpu::natural_index(k, static_cast<int>(n), fc::Order::sequency));
      ASSERT_EQ(fc::cuda::natural_index(k, n, 2), fc::cpu::natural_index(k, static_cast<int>(n), fc::Order::paley));
    }
}

TEST(CudaHelpers, Gajic2011StepsGiveTheWht) {
  std::mt19937_64 rng(2);
  for (int n = 1; n <= 12; ++n) {
    auto x = random_words<float>(std::size_t{1} << n, rng);
    const auto expected = reference_wht(x);
    for (int step = 0; step < n; ++step)
      for (std::uint64_t tid = 0; tid < x.size() / 2; ++tid) fc::cuda::gajic_butterfly(x.data(), tid, std::uint64_t{1} << step);
    expect_equal(expected, x, "n=" + std::to_string(n));
  }
}

/// Algorithms 1-3: ping-pong steps with the element function of Algorithm 1 or 2.
template <class W>
std::vector<W> bikov_ping_pong(std::vector<W> wf, bool branch_free, int first_r = 0) {
  std::vector<W> temp(wf.size());
  int r = first_r;
  for (std::uint64_t j = std::uint64_t{1} << first_r; j < wf.size(); j *= 2) {
    ++r;
    const std::vector<W>& from = r % 2 ? wf : temp;
    std::vector<W>& to = r % 2 ? temp : wf;
    for (std::uint64_t i = 0; i < wf.size(); ++i) {
      if (branch_free) fc::cuda::bikov_a2_element(from.data(), to.data(), i, j);
      else fc::cuda::bikov_a1_element(from.data(), to.data(), i, j);
    }
  }
  return r % 2 ? temp : wf;
}

/// The shared-memory (and, for Algorithm 6, warp-shuffle) loop of one block over `values`.
template <class W>
void bikov_block(std::vector<W>& values, bool shuffles, unsigned shuffle_limit) {
  const unsigned threads = static_cast<unsigned>(values.size());
  unsigned j = 1;
  if (shuffles)
    for (; j < shuffle_limit && j < threads; j *= 2) {
      const std::vector<W> before = values;  // every lane reads its partner's old value
      for (unsigned i = 0; i < threads; ++i) values[i] = fc::cuda::bikov_shuffle_step(before[i], before[i ^ j], i, j);
    }
  for (; j < threads; j *= 2) {
    const std::vector<W> shared = values;  // store, barrier
    for (unsigned i = 0; i < threads; ++i) values[i] = fc::cuda::bikov_shared_step(values[i], shared.data(), i, j);
  }
}

/// Algorithms 4-6 as the kernels do them.
template <class W>
std::vector<W> bikov_shared(std::vector<W> wf, int a) {
  const std::uint64_t size = wf.size();
  const unsigned block = static_cast<unsigned>(std::min<std::uint64_t>(size, 1024));
  for (std::uint64_t b = 0; b < size / block; ++b) {
    std::vector<W> values(wf.begin() + b * block, wf.begin() + (b + 1) * block);
    bikov_block(values, a == 6, 32);
    std::copy(values.begin(), values.end(), wf.begin() + b * block);
  }
  if (size <= 1024) return wf;
  if (a == 4) return bikov_ping_pong(wf, false, 10);
  const unsigned rows = static_cast<unsigned>(size / 1024);
  for (unsigned b = 0; b < 1024; ++b) {  // the memory pattern
    std::vector<W> values(rows);
    for (unsigned t = 0; t < rows; ++t) values[t] = wf[fc::cuda::bikov_pattern(t, b, 1024)];
    bikov_block(values, a == 6, std::min(rows, 32u));
    for (unsigned t = 0; t < rows; ++t) wf[fc::cuda::bikov_pattern(t, b, 1024)] = values[t];
  }
  return wf;
}

TEST(CudaHelpers, Bikov2018AlgorithmsGiveTheWht) {
  std::mt19937_64 rng(3);
  for (int n : {1, 2, 4, 5, 6, 10, 11, 12, 13, 16, 20}) {
    const auto x = random_words<std::int64_t>(std::size_t{1} << n, rng);
    std::vector<std::uint64_t> w(x.begin(), x.end());
    const auto expected = reference_wht(w);
    const std::string at = "n=" + std::to_string(n);
    if (n <= 16) {
      expect_equal(expected, bikov_ping_pong(w, false), at + " A1/A3");
      expect_equal(expected, bikov_ping_pong(w, true), at + " A2");
      expect_equal(expected, bikov_shared(w, 4), at + " A4");
    }
    expect_equal(expected, bikov_shared(w, 5), at + " A5");
    expect_equal(expected, bikov_shared(w, 6), at + " A6");
  }
}

TEST(CudaHelpers, NvidiaRadix4PassesGiveTheWht) {
  std::mt19937_64 rng(4);
  for (int n = 0; n <= 15; ++n)
    for (std::size_t rows : {1, 3}) {
      auto x = random_words<float>(rows << n, rng);
      std::vector<float> expected;
      for (std::size_t r = 0; r < rows; ++r) {
        const auto one = reference_wht(std::vector<float>(x.begin() + (r << n), x.begin() + ((r + 1) << n)));
        expected.insert(expected.end(), one.begin(), one.end());
      }
      int m = n;
      for (; m > 11; m -= 2)  // global radix-4 passes
        for (std::uint64_t pos = 0; pos < x.size() / 4; ++pos)
          fc::cuda::radix4_butterfly(x.data(), fc::cuda::radix4_first(pos, std::uint64_t{1} << (m - 2)),
                                     std::uint64_t{1} << (m - 2));
      for (std::size_t b = 0; b < x.size() >> m; ++b) {  // the shared-memory kernel, per sub-row
        float* s = x.data() + (b << m);
        for (unsigned stride = (1u << m) >> 2; stride > 0; stride >>= 2)
          for (unsigned p = 0; p < (1u << m) / 4; ++p) fc::cuda::radix4_butterfly(s, fc::cuda::radix4_first(p, stride), stride);
        if (m & 1)
          for (unsigned p = 0; p < (1u << m) / 2; ++p) {
            const float a = s[2 * p], c = s[2 * p + 1];
            s[2 * p] = a + c;
            s[2 * p + 1] = a - c;
          }
      }
      expect_equal(expected, x, "n=" + std::to_string(n) + " rows=" + std::to_string(rows));
    }
}

/// The `fast` pass kernel, emulated: blocks of 2^tpg tiles, each tile's rounds in the order of
/// its RoundPlan, every thread of a round before the next (the barrier). In place, or from
/// `data` to `into` (16-bit words to and from float).
template <class W, int V, int R, class In = W, class Out = In>
void emulate_pass(const std::vector<In>& data, std::vector<Out>& into, const fc::gpu::PassPlan& plan, std::size_t i,
                  int tpg, bool middle, double store_scale, fc::cuda::Combine<W, V> combine) {
  using fc::cuda::Vec;
  const fc::gpu::Pass& p = plan.passes[i];
  const auto shape = fc::cuda::PassShape::of(plan, i);
  const std::uint64_t tiles = data.size() >> (p.t + p.gc + plan.logv);
  fc::cuda::RoundPlan rounds{shape.rounds(), middle};
  const auto* source = reinterpret_cast<const Vec<In, V>*>(data.data());
  auto* target = reinterpret_cast<Vec<Out, V>*>(into.data());
  const std::uint64_t blocks = (tiles + (std::uint64_t{1} << tpg) - 1) >> tpg;
  for (std::uint64_t block = 0; block < blocks; ++block) {
    std::vector<Vec<W, V>> shared((std::size_t{1} << (p.t + p.gc)) << tpg);
    std::vector<fc::cuda::TileRound<W, V, In, Out>> tile(std::size_t{1} << tpg);
    for (unsigned sub = 0; sub < tile.size(); ++sub) {
      const std::uint64_t wanted = (block << tpg) + sub;
      tile[sub].shape = shape;
      tile[sub].source = source;
      tile[sub].target = target;
      tile[sub].active = wanted < tiles;
      tile[sub].tile_vec = shape.tile_base(tile[sub].active ? wanted : tiles - 1) >> shape.logv;
      tile[sub].shared = shared.data() + (std::size_t{sub} << (p.t + p.gc));
      tile[sub].store_scale = store_scale;
      tile[sub].combine = combine;
    }
    for (int s = 0; s < rounds.steps(); ++s) {
      const auto st = rounds.step(s);
      const bool staged = st.to_global && tile[0].strided_store(shape.round_lo(st.k));
      for (auto& t : tile)
        for (unsigned item = 0; item < shape.threads_per_tile(); ++item)
          t.template run<R>(st.k, item, st.from_global, st.to_global && !staged, st.middle);
      if (staged)
        for (auto& t : tile)
          for (unsigned item = 0; item < shape.threads_per_tile(); ++item) t.store_tile(item, shape.threads_per_tile());
    }
  }
}

fc::gpu::DeviceShape h100_like() {
  fc::gpu::DeviceShape d;
  d.local_memory_bytes = 227 << 10;
  d.max_work_group_size = 1024;
  d.vector_bytes = 16;
  d.max_round_bits = 5;
  d.tile_budget_bytes = 227 << 10;
  return d;
}

template <class W>
class CudaFast : public ::testing::Test {};
using FastWords = ::testing::Types<float, double, std::uint32_t, U128>;
TYPED_TEST_SUITE(CudaFast, FastWords);

TYPED_TEST(CudaFast, PassesGiveTheWhtAndTheDyadicMiddleTheConvolution) {
  using W = TypeParam;
  constexpr int V = 16 / sizeof(W);
  std::mt19937_64 rng(5);
  const int top = std::is_same_v<W, U128> ? 12 : 19;
  // The planner's largest tiles, and the smallest ones with as few passes (the cuda backend's).
  for (const bool small : {false, true})
  for (int n = std::countr_zero(unsigned(V)); n <= top; n += (n < 12 ? 1 : 3)) {
    const auto plan = small ? fc::gpu::plan_passes_in_small_tiles(n, sizeof(W), h100_like(), 16 << 10)
                            : fc::gpu::plan_passes(n, sizeof(W), h100_like());
    ASSERT_EQ(plan.logv, std::countr_zero(unsigned(V))) << n;
    if (std::is_same_v<W, float> && n <= 15) {
      EXPECT_EQ(plan.passes.size(), 1u) << "rows up to 2^15 in one pass";
    }
    for (const auto& p : plan.passes) EXPECT_LE(p.rounds(), 3) << "at most two shared-memory exchanges";
    const auto x = random_words<W>(std::size_t{1} << n, rng);
    const auto expected = reference_wht(x);
    for (int tpg : {0, 2}) {
      auto y = x;
      for (std::size_t i = 0; i < plan.passes.size(); ++i) emulate_pass<W, V, 5>(y, y, plan, i, tpg, false, 1.0, {});
      expect_equal(expected, y, "WHT n=" + std::to_string(n) + " tpg=" + std::to_string(tpg));
    }
    // The dyadic middle: first passes, the last one fused (forward, multiply, back), first
    // passes again: N · (x ⊛ h) in rings, (x ⊛ h) with scale 1/N for floats.
    const auto h = random_words<W>(std::size_t{1} << n, rng);
    const auto spectrum = reference_wht(h);
    auto y = x;
    fc::cuda::Combine<W, V> combine;
    combine.mode = 1;
    combine.spectrum = reinterpret_cast<const fc::cuda::Vec<W, V>*>(spectrum.data());
    combine.mask = (spectrum.size() / V) - 1;
    combine.scale = 1.0;
    const std::size_t last = plan.passes.size() - 1;
    for (std::size_t i = 0; i < last; ++i) emulate_pass<W, V, 5>(y, y, plan, i, 0, false, 1.0, {});
    emulate_pass<W, V, 5>(y, y, plan, last, 0, true, 1.0, combine);
    for (std::size_t i = last; i-- > 0;) emulate_pass<W, V, 5>(y, y, plan, i, 0, false, 1.0, {});
    auto spectra_product = reference_wht(x);
    for (std::size_t k = 0; k < spectra_product.size(); ++k) spectra_product[k] = spectra_product[k] * spectrum[k];
    expect_equal(reference_wht(spectra_product), y, "dyadic middle n=" + std::to_string(n));
  }
}

TEST(CudaFastLocal, ShortKernelAgainstLongSignalIsBlockLocal) {
  // x of 2^n against h of 2^m: rows of 2^m with the factor 2^(n−m) equal the full ring result.
  std::mt19937_64 rng(6);
  using W = std::uint32_t;
  constexpr int V = 4;
  for (auto [n, m] : {std::pair{12, 4}, std::pair{14, 9}, std::pair{16, 15}}) {
    const auto x = random_words<W>(std::size_t{1} << n, rng);
    const auto h = random_words<W>(std::size_t{1} << m, rng);
    const auto sh = reference_wht(h);
    // Full size: W_n(S_pad ⊙ W_n x), S_pad[k] = S[k mod 2^m].
    auto full = reference_wht(x);
    for (std::size_t k = 0; k < full.size(); ++k) full[k] *= sh[k & (sh.size() - 1)];
    full = reference_wht(full);
    const auto plan = fc::gpu::plan_passes(m, sizeof(W), h100_like());
    fc::cuda::Combine<W, V> combine;
    combine.mode = 1;
    combine.spectrum = reinterpret_cast<const fc::cuda::Vec<W, V>*>(sh.data());
    combine.mask = (sh.size() / V) - 1;
    combine.factor = std::uint64_t{1} << (n - m);
    auto y = x;
    const std::size_t last = plan.passes.size() - 1;
    for (std::size_t i = 0; i < last; ++i) emulate_pass<W, V, 5>(y, y, plan, i, 1, false, 1.0, {});
    emulate_pass<W, V, 5>(y, y, plan, last, 1, true, 1.0, combine);
    for (std::size_t i = last; i-- > 0;) emulate_pass<W, V, 5>(y, y, plan, i, 1, false, 1.0, {});
    expect_equal(full, y, "n=" + std::to_string(n) + " m=" + std::to_string(m));
  }
}

TEST(CudaHelpers, ConvertWordsWidensExactlyAndRoundsToNearestEven) {
  using fc::cuda::Vec;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 10000; ++trial) {
    Vec<fc::float16, 8> h;
    Vec<fc::bfloat16, 8> b;
    Vec<float, 8> f;
    for (int l = 0; l < 8; ++l) {
      h.w[l] = fc::float16::from_bits(static_cast<std::uint16_t>(rng()));
      b.w[l] = fc::bfloat16::from_bits(static_cast<std::uint16_t>(rng()));
      f.w[l] = std::ldexp(static_cast<float>(static_cast<std::int32_t>(rng())), -static_cast<int>(rng() % 64));
    }
    const auto wide_h = fc::cuda::convert_words<float>(h);
    const auto wide_b = fc::cuda::convert_words<float>(b);
    const auto narrow_h = fc::cuda::convert_words<fc::float16>(f);
    const auto narrow_b = fc::cuda::convert_words<fc::bfloat16>(f);
    const auto same = fc::cuda::convert_words<float>(f);
    for (int l = 0; l < 8; ++l) {
      const float fh = h.w[l], fb = b.w[l];
      ASSERT_TRUE(std::bit_cast<std::uint32_t>(wide_h.w[l]) == std::bit_cast<std::uint32_t>(fh) || std::isnan(fh));
      ASSERT_TRUE(std::bit_cast<std::uint32_t>(wide_b.w[l]) == std::bit_cast<std::uint32_t>(fb) || std::isnan(fb));
      ASSERT_EQ(narrow_h.w[l].bits, fc::float16(f.w[l]).bits);
      ASSERT_EQ(narrow_b.w[l].bits, fc::bfloat16(f.w[l]).bits);
      ASSERT_EQ(same.w[l], f.w[l]);
    }
  }
}

/// The shape Engine<S>::device_shape() gives the planner for 16-bit storage: tiles of 8-float
/// vectors (32 bytes in shared memory), 16 of them per thread and round.
fc::gpu::DeviceShape h100_like_for_16_bit() {
  fc::gpu::DeviceShape d = h100_like();
  d.vector_bytes = 32;
  d.max_round_bits = 4;
  return d;
}

template <class S>
class CudaFast16 : public ::testing::Test {};
using HalfWords = ::testing::Types<fc::float16, fc::bfloat16>;
TYPED_TEST_SUITE(CudaFast16, HalfWords);

// 16-bit words loaded to float, transformed in float, scaled and rounded once by the last store.
// Small integers keep every float sum exact, and 1/N is a power of two, so the result must be
// the reference's float transform rounded once, bit for bit.
TYPED_TEST(CudaFast16, PassesGiveTheFloatTransformRoundedOnce) {
  using S = TypeParam;
  constexpr int V = 8;
  std::mt19937_64 rng(8);
  for (int n = 3; n <= 19; n += (n < 12 ? 1 : 3)) {
    const auto plan = fc::gpu::plan_passes(n, sizeof(float), h100_like_for_16_bit());
    ASSERT_EQ(plan.logv, 3) << n;
    if (n <= 15) {
      EXPECT_EQ(plan.passes.size(), 1u) << "rows up to 2^15 in one pass";
    }
    for (const auto& p : plan.passes) EXPECT_LE(p.rounds(), 3) << "at most two shared-memory exchanges";
    std::vector<S> x(std::size_t{1} << n);
    for (auto& v : x) v = S(static_cast<int>(rng() % 200) - 100);
    const double scale = std::ldexp(1.0, -n);
    auto expected = reference_wht(std::vector<float>(x.begin(), x.end()));
    for (int tpg : {0, 2}) {
      auto y = x;
      const std::size_t last = plan.passes.size() - 1;
      if (last == 0) {
        emulate_pass<float, V, 4>(y, y, plan, 0, tpg, false, scale, {});
      } else {  // as Engine::fast_passes: through a float array from the first pass to the last
        std::vector<float> wide(y.size());
        emulate_pass<float, V, 4>(y, wide, plan, 0, tpg, false, 1.0, {});
        for (std::size_t i = 1; i < last; ++i) emulate_pass<float, V, 4>(wide, wide, plan, i, tpg, false, 1.0, {});
        emulate_pass<float, V, 4>(wide, y, plan, last, tpg, false, scale, {});
      }
      for (std::size_t k = 0; k < y.size(); ++k)
        ASSERT_EQ(y[k].bits, S(static_cast<float>(expected[k] * scale)).bits)
            << "n=" << n << " tpg=" << tpg << " k=" << k;
    }
  }
}

// ---- conv2d: polyhankel ------------------------------------------------------------------------

/// cuFFT's real transforms, written as plain DFTs: forward L reals → B = L/2+1 bins
/// (interleaved), inverse B bins → L reals, unnormalised, Hermitian symmetry for the other bins
/// (the imaginary parts of bins 0 and L/2 ignored, as cuFFT's C2R does).
std::vector<double> dft_forward(const double* real, std::size_t L) {
  std::vector<double> out(2 * (L / 2 + 1));
  for (std::size_t f = 0; f <= L / 2; ++f)
    for (std::size_t q = 0; q < L; ++q) {
      const double angle = -2 * M_PI * static_cast<double>((f * q) % L) / static_cast<double>(L);
      out[2 * f] += real[q] * std::cos(angle);
      out[2 * f + 1] += real[q] * std::sin(angle);
    }
  return out;
}

std::vector<double> dft_inverse(const double* bins, std::size_t L) {
  std::vector<double> out(L);
  for (std::size_t q = 0; q < L; ++q) {
    double sum = bins[0];
    for (std::size_t f = 1; f <= L / 2; ++f) {
      const double angle = 2 * M_PI * static_cast<double>((f * q) % L) / static_cast<double>(L);
      const double term = bins[2 * f] * std::cos(angle) - bins[2 * f + 1] * std::sin(angle);
      sum += (L % 2 == 0 && f == L / 2) ? bins[2 * f] * std::cos(angle) : 2 * term;
    }
    out[q] = sum;
  }
  return out;
}

/// The cuda polyhankel's pipeline (src/cuda/conv2d.cu) with its per-thread bodies, a DFT for
/// cuFFT, and every thread of every grid run in turn.
std::vector<double> emulated_polyhankel(const fc::Conv2dShape& s, const std::vector<double>& x,
                                        const std::vector<double>& w, const std::vector<double>& bias, std::size_t L) {
  fc::cuda::PolyGeometry g;
  g.height = s.height, g.width = s.width, g.kernel_height = s.kernel_height, g.kernel_width = s.kernel_width;
  g.out_height = s.out_height(), g.out_width = s.out_width(), g.top = s.padding.top, g.left = s.padding.left;
  g.stride = fc::nn::polyhankel_row_stride(s), g.length = L;
  const std::size_t N = s.batch, C = s.channels, K = s.filters, B = g.bins(), taps = s.kernel_height * s.kernel_width;
  std::vector<double> real(L), X(N * C * 2 * B), U(K * C * 2 * B), Y(N * K * 2 * B);
  for (std::size_t p = 0; p < N * C; ++p) {
    for (std::size_t q = 0; q < L; ++q) real[q] = fc::cuda::poly_input_at(g, x.data() + p * s.height * s.width, q);
    const auto spectrum = dft_forward(real.data(), L);
    std::copy(spectrum.begin(), spectrum.end(), X.begin() + static_cast<std::ptrdiff_t>(p * 2 * B));
  }
  for (std::size_t p = 0; p < K * C; ++p) {
    for (std::size_t q = 0; q < L; ++q) real[q] = fc::cuda::poly_kernel_at(g, w.data() + p * taps, 1.0 / L, q);
    const auto spectrum = dft_forward(real.data(), L);
    std::copy(spectrum.begin(), spectrum.end(), U.begin() + static_cast<std::ptrdiff_t>(p * 2 * B));
  }
  for (std::size_t n0 = 0; n0 < N; n0 += fc::cuda::kSumImages)
    for (std::size_t k0 = 0; k0 < K; k0 += fc::cuda::kSumFilters)
      for (std::size_t f = 0; f < B; ++f) fc::cuda::channel_sum_bin<double>(X.data(), U.data(), Y.data(), f, n0, k0, N, C, K, B);
  std::vector<double> out(s.output_size());
  const std::size_t plane = s.out_height() * s.out_width();
  for (std::size_t p = 0; p < N * K; ++p) {
    const auto values = dft_inverse(Y.data() + p * 2 * B, L);
    for (std::size_t i = 0; i < s.out_height(); ++i)
      for (std::size_t j = 0; j < s.out_width(); ++j)
        out[p * plane + i * s.out_width() + j] = values[fc::cuda::poly_output_degree(g, i, j)] + bias[p % K];
  }
  return out;
}

TEST(CudaHelpers, PolyHankelPipelineGivesTheConvolution) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> d(-1, 1);
  const auto values = [&](std::size_t n) {
    std::vector<double> v(n);
    for (auto& e : v) e = d(rng);
    return v;
  };
  // Padding on every side and wider than the kernel, a kernel taller and wider than the image
  // (its taps wrap and meet modulo L), N and K that are not multiples of a thread's tile.
  for (const fc::Conv2dShape& s : {fc::Conv2dShape{3, 2, 6, 5, 9, 3, 3, {1, 1, 1, 1}},
                                   fc::Conv2dShape{1, 3, 4, 7, 2, 2, 5, {0, 3, 4, 0}},
                                   fc::Conv2dShape{2, 2, 2, 3, 3, 5, 4, {3, 2, 2, 1}},
                                   fc::Conv2dShape{1, 1, 1, 1, 1, 3, 3, {2, 0, 2, 0}},
                                   fc::Conv2dShape{1, 2, 8, 8, 17, 1, 1, {}}}) {
    const auto x = values(s.input_size()), w = values(s.weight_size()), b = values(s.filters);
    const auto expected = fc::conv2d<double>(x, w, b, s, fc::Conv2dAlgorithm::direct, 1);
    const std::size_t shortest = fc::nn::polyhankel_min_length(s);
    for (const std::size_t L : {shortest, shortest + 3, fc::nn::polyhankel_min_length(s) * 2}) {
      const auto got = emulated_polyhankel(s, x, w, b, L);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-9) << "shape " << s.batch << "x" << s.channels << "x" << s.height << "x"
                                                << s.width << " K=" << s.filters << " L=" << L << " output " << i;
    }
  }
}

}  // namespace
