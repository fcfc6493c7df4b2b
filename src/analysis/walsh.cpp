#include "analysis/walsh.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <optional>

#include "analysis/anf.hpp"

namespace fastconv::analysis {
namespace {

constexpr std::uint64_t kBlock = std::uint64_t{1} << 12;           // elements a thread scans at a time
constexpr std::int64_t kParallelElements = std::int64_t{1} << 18;  // fewer: one thread is quicker
constexpr std::int64_t kParallelWords = kParallelElements / 64;

/// kByteBits<W>[b][j] = bit j of the byte b: a whole byte of the truth table becomes one copy.
template <class W>
constexpr auto kByteBits = [] {
  std::array<std::array<W, 8>, 256> bits{};
  for (std::size_t b = 0; b < 256; ++b)
    for (std::size_t j = 0; j < 8; ++j) bits[b][j] = static_cast<W>((b >> j) & 1);
  return bits;
}();

/// popcount(j) for j < 64, so that the weight of a = 64·q + j costs one lookup in a scan.
constexpr auto kWeight6 = [] {
  std::array<std::uint8_t, 64> weights{};
  for (unsigned j = 0; j < 64; ++j) weights[j] = static_cast<std::uint8_t>(std::popcount(j));
  return weights;
}();

constexpr std::uint64_t magnitude(std::int64_t v) noexcept {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

/// Counts integer keys: densely in [−radius, radius], where nearly all of a spectrum's values
/// fall, and in a map beyond it.
class KeyCounter {
 public:
  explicit KeyCounter(std::int64_t radius) : radius_(radius), dense_(static_cast<std::size_t>(2 * radius + 1), 0) {}

  void add(std::int64_t key) {
    const auto index = static_cast<std::uint64_t>(key + radius_);
    if (index < dense_.size()) {
      ++dense_[index];
    } else {
      ++sparse_[key];
    }
  }

  void merge(const KeyCounter& other) {
    for (std::size_t i = 0; i < dense_.size(); ++i) dense_[i] += other.dense_[i];
    for (const auto& [key, count] : other.sparse_) sparse_[key] += count;
  }

  /// key·scale → count.
  [[nodiscard]] Histogram histogram(std::int64_t scale) const {
    Histogram h;
    for (const auto& [key, count] : sparse_) h[key * scale] += count;
    for (std::size_t i = 0; i < dense_.size(); ++i)
      if (dense_[i] != 0) h[(static_cast<std::int64_t>(i) - radius_) * scale] += dense_[i];
    return h;
  }

 private:
  std::int64_t radius_;
  std::vector<std::uint64_t> dense_;
  std::map<std::int64_t, std::uint64_t> sparse_;
};

/// The dense window of a counter of keys up to max_key in magnitude: a spectrum of 2^n values
/// spreads over about 2^(n/2), so 16 times that catches nearly all of them in 16 MiB at n = 32.
std::int64_t counter_radius(std::int64_t max_key, int n) {
  return std::min(max_key, std::int64_t{1} << ((n + 1) / 2 + 4));
}

/// Runs visit(partial, begin, end) over [first, count) in blocks on all threads, one partial per
/// thread. Each thread takes one run of consecutive blocks, in thread order (static schedule),
/// so the partials come back in index order.
template <class Partial, class Visit>
std::vector<Partial> scan_blocks(std::uint64_t first, std::uint64_t count, const Partial& initial, Visit visit) {
  const auto blocks = static_cast<std::int64_t>((count + kBlock - 1) / kBlock);
  const int threads = blocks > 1 ? omp_get_max_threads() : 1;
  std::vector<Partial> partials(static_cast<std::size_t>(threads), initial);
#pragma omp parallel num_threads(threads)
  {
    Partial& mine = partials[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const auto begin = static_cast<std::uint64_t>(b) * kBlock;
      visit(mine, std::max(begin, first), std::min(begin + kBlock, count));
    }
  }
  return partials;
}

// --- Walsh ---------------------------------------------------------------------------------

/// Over a ≠ 0.
struct WalshPartial {
  std::uint64_t max_magnitude = 0;  // of F = −W/2
  std::uint64_t nonzero = 0;
  int min_nonzero_weight = 64;        // the smallest wt(a) with W(a) ≠ 0; 64: none yet
  std::optional<KeyCounter> counter;  // keys W(a)/2

  void merge(const WalshPartial& other) {
    max_magnitude = std::max(max_magnitude, other.max_magnitude);
    nonzero += other.nonzero;
    min_nonzero_weight = std::min(min_nonzero_weight, other.min_nonzero_weight);
    if (counter) counter->merge(*other.counter);
  }
};

/// The largest |F| and the number of F ≠ 0 over a in [begin, end): a loop the compiler vectorises.
/// Signed extremes give the magnitude (at n = 32 the residue 0x80000000 reads −2^31, and |F| is
/// 2^31 either way).
template <class W>
void scan_walsh_magnitudes(WalshPartial& p, const W* transform, std::uint64_t begin, std::uint64_t end) {
  using S = std::make_signed_t<W>;
  S highest = 0, lowest = 0;
  W nonzero = 0;
  for (std::uint64_t a = begin; a < end; ++a) {
    const auto v = static_cast<S>(transform[a]);
    highest = std::max(highest, v);
    lowest = std::min(lowest, v);
    nonzero += v != 0;
  }
  p.max_magnitude = std::max({p.max_magnitude, static_cast<std::uint64_t>(highest), magnitude(std::int64_t{lowest})});
  p.nonzero += nonzero;
}

/// The smallest wt(a) with F(a) ≠ 0 over a in [begin, end). An aligned group of 64 weighs at least
/// popcount(its first a): once a weight is found, nearly every group is skipped.
template <class W>
void scan_walsh_weights(WalshPartial& p, const W* transform, std::uint64_t begin, std::uint64_t end) {
  for (std::uint64_t group = begin & ~std::uint64_t{63}; group < end; group += 64) {
    const int high = std::popcount(group);
    if (high >= p.min_nonzero_weight) continue;
    for (std::uint64_t a = std::max(group, begin); a < std::min(group + 64, end); ++a)
      if (transform[a] != 0) p.min_nonzero_weight = std::min(p.min_nonzero_weight, high + kWeight6[a & 63]);
  }
}

// --- autocorrelation -----------------------------------------------------------------------

struct AutocorrelationPartial {
  std::uint64_t max_magnitude = 0;
  detail::u128 sum_of_squares = 0;
  std::optional<KeyCounter> counter;  // keys Δ/2^granularity
  std::vector<LinearStructure> linear_structures;
  bool with_linear_structures = false;

  void merge(const AutocorrelationPartial& other) {
    max_magnitude = std::max(max_magnitude, other.max_magnitude);
    sum_of_squares += other.sum_of_squares;
    if (counter) counter->merge(*other.counter);
    linear_structures.insert(linear_structures.end(), other.linear_structures.begin(), other.linear_structures.end());
  }
};

}  // namespace

template <class W>
void spread_bits(std::span<const std::uint64_t> words, int n, W* out) {
  if (n < 6) {
    for (std::uint64_t x = 0; x < (std::uint64_t{1} << n); ++x) out[x] = static_cast<W>((words[0] >> x) & 1);
    return;
  }
  const auto count = static_cast<std::int64_t>(words_for(n));
#pragma omp parallel for schedule(static) if (count >= kParallelWords)
  for (std::int64_t i = 0; i < count; ++i) {
    std::uint64_t word = words[static_cast<std::size_t>(i)];
    W* o = out + 64 * i;
    for (int byte = 0; byte < 8; ++byte, word >>= 8)
      std::memcpy(o + 8 * byte, kByteBits<W>[word & 255].data(), 8 * sizeof(W));
  }
}

template <class W>
void zero_one_transform(std::span<const std::uint64_t> words, int n, const Backend& backend, W* out) {
  spread_bits(words, n, out);
  backend.impl().make_wht(n, detail::word_of<W>, Order::hadamard)->execute(out, 1, std::size_t{1} << n, 1.0);
}

template <class W>
WalshStatistics walsh_statistics(const W* transform, int n, std::uint64_t weight, bool f_at_zero, bool with_histogram) {
  const std::uint64_t size = std::uint64_t{1} << n;
  WalshPartial initial;
  if (with_histogram) initial.counter.emplace(counter_radius(std::int64_t{1} << (n > 0 ? n - 1 : 0), n));
  auto visit = [&](WalshPartial& p, std::uint64_t begin, std::uint64_t end) {
    scan_walsh_magnitudes(p, transform, begin, end);
    scan_walsh_weights(p, transform, begin, end);
    if (p.counter)
      for (std::uint64_t a = begin; a < end; ++a) p.counter->add(-zero_one_coefficient(transform[a], n, f_at_zero));
  };
  auto partials = scan_blocks(1, size, initial, visit);  // a = 0 is F(0) = weight, taken apart below
  WalshPartial all = std::move(initial);
  for (const auto& p : partials) all.merge(p);

  const std::int64_t w0 = static_cast<std::int64_t>(size) - 2 * static_cast<std::int64_t>(weight);
  WalshStatistics s;
  s.max_magnitude = std::max(magnitude(w0), 2 * all.max_magnitude);
  s.nonzero = all.nonzero + (w0 != 0 ? 1 : 0);
  s.correlation_immunity = all.min_nonzero_weight <= n ? all.min_nonzero_weight - 1 : n;
  if (all.counter) {
    s.histogram = all.counter->histogram(2);
    ++s.histogram[w0];
  }
  return s;
}

int autocorrelation_transform(std::uint64_t* buffer, int n, std::uint64_t weight, const Backend& backend) {
  // W = 2^n·[b = 0] − 2F is even for n ≥ 1; halving it for n ≥ 2 keeps the squares ≤ 2^62 and the
  // results 2^(n−2)·Δ within ±2^62 at n = 32. (n = 1 keeps W so that the shift stays ≥ 0.)
  const int halve = n >= 2 ? 1 : 0;
  const std::int64_t size = std::int64_t{1} << n;
#pragma omp parallel for schedule(static) if (size >= kParallelElements)
  for (std::int64_t b = 1; b < size; ++b) {
    const std::uint64_t half_walsh = magnitude(static_cast<std::int64_t>(buffer[b])) << (1 - halve);
    buffer[b] = half_walsh * half_walsh;
  }
  const std::uint64_t v0 = magnitude(size - 2 * static_cast<std::int64_t>(weight)) >> halve;
  buffer[0] = v0 * v0;
  backend.impl()
      .make_wht(n, detail::Word::u64, Order::hadamard)
      ->execute(buffer, 1, static_cast<std::size_t>(size), 1.0);
  return n - 2 * halve;
}

AutocorrelationStatistics autocorrelation_statistics(const std::uint64_t* scaled, int n, int shift, bool with_histogram,
                                                     bool with_linear_structures) {
  const std::uint64_t size = std::uint64_t{1} << n;
  // Δ(a) = 2^n − 2·wt(f(x) ⊕ f(x⊕a)), and that weight is even (x and x⊕a pair up): Δ ≡ 2^n mod 4.
  const int granularity = std::min(n, 2);
  AutocorrelationPartial initial;
  if (with_histogram) initial.counter.emplace(counter_radius(std::int64_t{1} << (n - granularity), n));
  initial.with_linear_structures = with_linear_structures;
  auto visit = [&](AutocorrelationPartial& p, std::uint64_t begin, std::uint64_t end) {
    std::uint64_t max_m = 0;
    detail::u128 squares = 0;
    for (std::uint64_t a = begin; a < end; ++a) {
      const std::uint64_t m = magnitude(static_cast<std::int64_t>(scaled[a]) >> shift);
      max_m = std::max(max_m, m);
      squares += detail::u128{m} * m;
    }
    p.max_magnitude = std::max(p.max_magnitude, max_m);
    p.sum_of_squares += squares;
    if (p.counter)
      for (std::uint64_t a = begin; a < end; ++a)
        p.counter->add((static_cast<std::int64_t>(scaled[a]) >> shift) >> granularity);
    if (p.with_linear_structures)
      for (std::uint64_t a = begin; a < end; ++a)
        if (magnitude(static_cast<std::int64_t>(scaled[a]) >> shift) == size)
          p.linear_structures.push_back({a, static_cast<std::int64_t>(scaled[a]) < 0});
  };
  auto partials = scan_blocks(1, size, initial, visit);  // Δ(0) = 2^n, taken apart below
  AutocorrelationPartial all = std::move(initial);
  all.linear_structures.push_back({0, false});
  for (const auto& p : partials) all.merge(p);

  AutocorrelationStatistics s;
  s.absolute_indicator = all.max_magnitude;
  s.sum_of_squares = all.sum_of_squares + detail::u128{size} * size;
  if (all.counter) {
    s.histogram = all.counter->histogram(std::int64_t{1} << granularity);
    ++s.histogram[static_cast<std::int64_t>(size)];
  }
  s.linear_structures = std::move(all.linear_structures);
  return s;
}

template void spread_bits(std::span<const std::uint64_t>, int, std::uint32_t*);
template void spread_bits(std::span<const std::uint64_t>, int, std::uint64_t*);
template void zero_one_transform(std::span<const std::uint64_t>, int, const Backend&, std::uint32_t*);
template void zero_one_transform(std::span<const std::uint64_t>, int, const Backend&, std::uint64_t*);
template WalshStatistics walsh_statistics(const std::uint32_t*, int, std::uint64_t, bool, bool);
template WalshStatistics walsh_statistics(const std::uint64_t*, int, std::uint64_t, bool, bool);

}  // namespace fastconv::analysis
