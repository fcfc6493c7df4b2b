// tests/oracle.hpp — independent oracles: the O(N²) definitions, written from the
// mathematics without any of the library's code.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "fastconv/fastconv.hpp"

namespace oracle {

__extension__ typedef __int128 i128;

/// Wide exact accumulator for integers, long double for floats.
template <class T>
using Acc = std::conditional_t<std::is_integral_v<T>, i128, long double>;

inline int sign_changes(const std::vector<int>& row) {
  int c = 0;
  for (std::size_t i = 1; i < row.size(); ++i) c += row[i] != row[i - 1];
  return c;
}

/// H[k][x] = (−1)^popcount(k & x): the Kronecker power of [[1,1],[1,−1]].
inline int hadamard_sign(std::size_t k, std::size_t x) { return std::popcount(k & x) % 2 ? -1 : 1; }

/// The ordered Walsh matrix of 2^n points, entries ±1, built from the definitions:
/// Hadamard: the Kronecker power; Paley: products of Rademacher functions, row k = Π r_{i+1}^{k_i}
/// where r_{i+1}(x) is −1 on the odd 2^-(i+1)-intervals (bit n−1−i of x); sequency: the Hadamard
/// rows sorted by their number of sign changes.
inline std::vector<std::vector<int>> walsh_matrix(int n, fastconv::Order order) {
  const std::size_t N = std::size_t{1} << n;
  std::vector<std::vector<int>> m(N, std::vector<int>(N));
  for (std::size_t k = 0; k < N; ++k)
    for (std::size_t x = 0; x < N; ++x) {
      if (order == fastconv::Order::paley) {
        int s = 1;
        for (int i = 0; i < n; ++i)
          if ((k >> i) & 1 && (x >> (n - 1 - i)) & 1) s = -s;
        m[k][x] = s;
      } else {
        m[k][x] = hadamard_sign(k, x);
      }
    }
  if (order == fastconv::Order::sequency) {
    std::vector<std::vector<int>> sorted(N);
    for (auto& row : m) sorted[static_cast<std::size_t>(sign_changes(row))] = row;
    m = sorted;
  }
  return m;
}

template <class T>
std::vector<Acc<T>> transform(const std::vector<std::vector<int>>& m, const std::vector<T>& x) {
  std::vector<Acc<T>> y(x.size(), 0);
  for (std::size_t k = 0; k < x.size(); ++k)
    for (std::size_t j = 0; j < x.size(); ++j) y[k] += static_cast<Acc<T>>(m[k][j]) * static_cast<Acc<T>>(x[j]);
  return y;
}

/// C(τ) = Σₓ f(x)·g(x ⊕ τ), with the shorter operand zero-padded.
template <class T>
std::vector<Acc<T>> dyadic_convolution(const std::vector<T>& f, const std::vector<T>& g) {
  const std::size_t N = std::max(f.size(), g.size());
  auto at = [](const std::vector<T>& v, std::size_t i) { return i < v.size() ? static_cast<Acc<T>>(v[i]) : Acc<T>(0); };
  std::vector<Acc<T>> c(N, 0);
  for (std::size_t t = 0; t < N; ++t)
    for (std::size_t x = 0; x < N; ++x) c[t] += at(f, x) * at(g, x ^ t);
  return c;
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937_64& rng, long long lo = -100, long long hi = 100) {
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<long long> d(lo, hi);
    for (auto& e : v) e = static_cast<T>(d(rng));
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& e : v) e = static_cast<T>(d(rng));
  }
  return v;
}

/// Unit roundoff of T.
template <class T>
constexpr double unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

template <class T>
long double l1(const std::vector<T>& v) {
  long double s = 0;
  for (auto e : v) s += std::fabs(static_cast<long double>(e));
  return s;
}

template <class T>
long double l2(const std::vector<T>& v) {
  long double s = 0;
  for (auto e : v) s += static_cast<long double>(e) * static_cast<long double>(e);
  return std::sqrt(s);
}

}  // namespace oracle
