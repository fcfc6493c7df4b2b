// The scans behind exact integer results (src/core/exact.cpp) against plain loops.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/exact.hpp"

namespace {

template <class I>
void check(const std::vector<I>& v) {
  std::uint64_t want = 0;
  fastconv::detail::u128 sum = 0;
  for (const I x : v) {
    want = std::max(want, fastconv::detail::magnitude(x));
    sum += fastconv::detail::magnitude(x);
  }
  const auto norms = fastconv::detail::norms(std::span<const I>(v));
  EXPECT_EQ(norms.max, want);
  EXPECT_TRUE(norms.l1 == sum);
  const std::uint64_t bound = fastconv::detail::magnitude_bound(std::span<const I>(v));
  EXPECT_GE(bound, want);
  EXPECT_LE(fastconv::detail::u128{bound}, 2 * fastconv::detail::u128{want} + 1);
  if (want == 0) {
    EXPECT_EQ(bound, 0u);
  }
}

template <class I>
void check_all() {
  using L = std::numeric_limits<I>;
  check<I>({});
  check<I>({0, 0, 0});
  check<I>({-1});
  check<I>({1, -1});
  check<I>({L::min()});
  check<I>({L::max(), 3});
  check<I>({L::min(), L::max()});
  // One extreme value among zeros, in every accumulator lane of the scans and in their tails.
  for (const std::size_t at : {0, 1, 63, 64, 127, 200, 255, 256, 1000}) {
    for (const I extreme : {L::min(), L::max(), I(-1), I(5)}) {
      std::vector<I> v(1001, 0);
      v[at] = extreme;
      check(v);
    }
  }
  // Sums past 2^64 (int64) and past 2^32 (int32), whose partial sums' halves must carry.
  check(std::vector<I>(3000, L::min()));
  check(std::vector<I>(3001, L::max()));
  std::mt19937_64 rng(7);
  for (int bits = 1; bits < L::digits; bits += 5) {
    std::uniform_int_distribution<I> d(-(I(1) << bits), I(1) << bits);
    std::vector<I> v(1000 + bits);
    for (auto& x : v) x = d(rng);
    check(v);
  }
}

TEST(ExactScans, NormsAreExactAndTheBoundWithinTwice) {
  check_all<std::int32_t>();
  check_all<std::int64_t>();
}

}  // namespace
