// fastconv/memory.hpp: where allocate_aligned and AlignedVector put their data, what they refuse,
// and that the operations on such data give what the reference backend gives on a std::vector.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <span>
#include <vector>

#include <fastconv/fastconv.hpp>

namespace {

constexpr std::size_t kHugeFrom = std::size_t{128} << 10, kHugePage = std::size_t{2} << 20;

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

TEST(AllocateAligned, SmallBlocksStartOnTwoLinesAndLargeOnesOnAHugePage) {
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{4096}, kHugeFrom - 1,
                                  kHugeFrom, kHugePage + 3, std::size_t{5} << 20}) {
    void* p = fastconv::allocate_aligned(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(address(p) % (bytes >= kHugeFrom ? kHugePage : 128), 0u) << bytes;
    std::memset(p, 0xab, std::max<std::size_t>(bytes, 1));  // all of it is ours (AddressSanitizer checks)
    std::free(p);
  }
}

TEST(AllocateAligned, RefusesWhatCannotBeRoundedUpInsteadOfWrapping) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  for (const std::size_t bytes : {kMax, kMax - 1, kMax - kHugePage + 2}) {
    EXPECT_THROW((void)fastconv::allocate_aligned(bytes), std::bad_alloc) << bytes;
  }
  fastconv::AlignedAllocator<double> doubles;
  EXPECT_THROW((void)doubles.allocate(kMax / sizeof(double) + 1), std::bad_array_new_length);
}

TEST(AlignedVector, KeepsItsDataAlignedAsItGrows) {
  fastconv::AlignedVector<float> v;
  for (int i = 0; i < (1 << 17); ++i) {
    v.push_back(static_cast<float>(i));
    if ((i & (i + 1)) == 0) {  // at sizes 1, 2, 4, 8, …: where libstdc++ reallocates
      const std::size_t bytes = v.capacity() * sizeof(float);
      EXPECT_EQ(address(v.data()) % (bytes >= kHugeFrom ? kHugePage : 128), 0u) << v.size();
    }
  }
  for (int i = 0; i < (1 << 17); ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)], static_cast<float>(i));
  // A stateless allocator: vectors of any element type may swap and share it.
  EXPECT_TRUE(fastconv::AlignedAllocator<float>{} == fastconv::AlignedAllocator<double>{});
  fastconv::AlignedVector<float> w(3, 1.0f);
  w.swap(v);
  EXPECT_EQ(v.size(), 3u);
}

/// Small integers: every result is exact, so the cpu backend on aligned data must give the
/// reference backend's words on a std::vector's.
std::vector<std::int64_t> random_words(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> d(-1000, 1000);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(AlignedVector, TransformsAndConvolvesLikeTheReferenceOnAStdVector) {
  const auto cpu = fastconv::Backend::cpu(), reference = fastconv::Backend::reference();
  for (const int log2n : {3, 10, 15, 17}) {  // 2^15 words and more: 2 MiB-aligned, huge pages advised
    const std::size_t n = std::size_t{1} << log2n;
    const auto f = random_words(n, 1), g = random_words(n, 2);

    auto want = f;
    fastconv::WhtPlan<std::int64_t>(log2n, {}, reference).execute(std::span(want));
    fastconv::AlignedVector<std::int64_t> got(f.begin(), f.end());
    fastconv::WhtPlan<std::int64_t>(log2n, {}, cpu).execute(std::span(got));
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end())) << "wht 2^" << log2n;

    const auto want_conv = fastconv::convolve(f, g, reference);
    const fastconv::AlignedVector<std::int64_t> fa(f.begin(), f.end()), ga(g.begin(), g.end());
    fastconv::AlignedVector<std::int64_t> out(n);
    fastconv::convolve(fa, ga, std::span(out), cpu);
    EXPECT_TRUE(std::equal(out.begin(), out.end(), want_conv.begin(), want_conv.end())) << "convolve 2^" << log2n;
  }
}

}  // namespace
