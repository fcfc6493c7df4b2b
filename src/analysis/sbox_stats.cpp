// SBox's streamed statistics: every table is walked a row (or a batch of columns) at a time on
// all threads, each thread reducing into its own counters, so no 2^(n+m) table is ever held.
#include <omp.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "analysis/anf.hpp"
#include "analysis/sbox_kernels.hpp"
#include "core/memory.hpp"
#include "fastconv/sbox.hpp"

namespace fastconv {
namespace {

using Progress = decltype(AnalysisOptions::progress);

/// Reports the progress of one stage from the calling thread: at most every 1/256 of it, and
/// at its end.
class StageProgress {
 public:
  StageProgress(const Progress& callback, std::string_view stage, std::uint64_t total)
      : callback_(callback), stage_(stage), total_(total), step_(std::max<std::uint64_t>(1, total / 256)) {}

  void update(std::uint64_t done) {
    if (!callback_ || (done < total_ && done < next_)) return;
    callback_(stage_, static_cast<double>(done) / static_cast<double>(total_));
    next_ = done + step_;
  }

 private:
  const Progress& callback_;
  std::string_view stage_;
  std::uint64_t total_, step_, next_ = 0;
};

/// Runs body(i, thread) for every i in [first, last) — each i costing about `steps` — on
/// `threads` threads, in rounds after each of which the calling thread calls report(number
/// done) (so that a throwing progress callback never unwinds through a parallel region). A
/// round is many items per thread (each round ends in a barrier, costly on a busy machine),
/// and few enough to report progress often.
template <class Body, class Report>
void parallel_rounds(std::uint64_t first, std::uint64_t last, std::uint64_t steps, int threads, Body&& body,
                     Report&& report) {
  const std::uint64_t round = std::max<std::uint64_t>(std::uint64_t(threads) * 64, (last - first) / 64);
  const bool parallel = (last - first) * steps >= analysis::kParallelFrom;
  for (std::uint64_t begin = first; begin < last; begin += round) {
    const auto end = static_cast<std::int64_t>(std::min(last, begin + round));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (parallel)
    for (auto i = static_cast<std::int64_t>(begin); i < end; ++i)
      body(static_cast<std::uint64_t>(i), omp_get_thread_num());
    report(static_cast<std::uint64_t>(end) - first);
  }
}

struct Uniformity {
  std::uint64_t largest = 0;
  Histogram spectrum;
};

/// Adds counts[v] at v to `histogram` for every v with a nonzero count.
void merge_counts(const std::vector<std::uint64_t>& counts, Histogram& histogram) {
  for (std::size_t v = 0; v < counts.size(); ++v)
    if (counts[v] != 0) histogram[static_cast<std::int64_t>(v)] += counts[v];
}

/// The largest entry and the counts of the entry values 0 … 2^n over the rows one thread
/// reduced.
struct RowReduction {
  // At least 16 counters: take() unpacks its packed counts of the values below 16 for every n.
  explicit RowReduction(int n) : counts(std::max<std::size_t>((std::size_t{1} << n) + 1, 16)) {}
  std::vector<std::uint64_t> counts;
  std::uint64_t largest = 0;

  /// Counts the nonzero entries of `row`, and `zeros` zero ones; with `clear`, zeroes the row
  /// on the way.
  ///
  /// The entries are even, and nearly all below 16 for a random S-box: those are counted in
  /// the eight 8-bit fields of one register (v at bit 4v), emptied every 255 entries, because
  /// a counter in memory per value makes every run of equal values wait on its own stores.
  void take(analysis::SparseRow& row, std::uint64_t zeros, bool clear) {
    constexpr std::uint32_t kPackedBelow = 16;
    constexpr unsigned kPackedRun = 255;
    std::uint64_t* count = counts.data();
    std::uint32_t row_largest = 0;
    std::uint64_t packed = 0;
    unsigned run = 0;
    for (std::uint32_t i : row.nonzero_entries()) {
      const auto v = static_cast<std::uint32_t>(row.values[i]);
      if (v < kPackedBelow)
        packed += std::uint64_t{1} << (4 * v);
      else
        ++count[v];
      row_largest = std::max(row_largest, v);
      if (clear) row.values[i] = 0;
      if (++run == kPackedRun) {
        unpack(packed, count);
        packed = 0;
        run = 0;
      }
    }
    unpack(packed, count);
    count[0] += zeros;
    largest = std::max<std::uint64_t>(largest, row_largest);
  }

 private:
  static void unpack(std::uint64_t packed, std::uint64_t* count) {
    for (std::uint32_t v = 2; v < 16; v += 2) count[v] += (packed >> (4 * v)) & 0xFF;
  }
};

/// One thread's row, scratch and reductions.
struct RowWorker {
  RowWorker(int n, int m, bool boomerang)
      : values(std::size_t{1} << m), nonzero((std::size_t{1} << m) + 1), differential(n), boomerang(n) {
    if (boomerang) pairs.emplace(n);
  }
  static std::uint64_t bytes(int n, int m, bool boomerang) {
    return (std::uint64_t{8} << m) + (std::uint64_t{16} << n) + (boomerang ? analysis::BoomerangRows::bytes(n) : 0);
  }
  [[nodiscard]] analysis::SparseRow row() noexcept { return {values.data(), nonzero.data()}; }

  std::vector<std::int32_t> values;
  std::vector<std::uint32_t> nonzero;
  std::optional<analysis::BoomerangRows> pairs;
  RowReduction differential, boomerang;
};

Uniformity merge(const std::vector<RowWorker>& workers, RowReduction RowWorker::*part) {
  Uniformity total;
  for (const RowWorker& w : workers) {
    total.largest = std::max(total.largest, (w.*part).largest);
    merge_counts((w.*part).counts, total.spectrum);
  }
  return total;
}

struct RowStatistics {
  Uniformity differential;
  std::optional<Uniformity> boomerang;  ///< asked for, of a permutation
};

// DDT rows a ≠ 0, and on request (of a permutation) the BCT rows grown from them, columns b ≠ 0:
// the differential and boomerang uniformities and spectra in one pass over the rows. Each row
// is sparse (about 2^n·(1 − e^(−1/2)) nonzero entries for a random permutation), so only its
// nonzero entries are counted and cleared.
RowStatistics row_statistics(std::span<const std::uint32_t> lut, int n, int m, bool with_boomerang,
                             const Progress& callback) {
  const int threads = omp_get_max_threads();
  detail::require_memory(RowWorker::bytes(n, m, with_boomerang) * std::uint64_t(threads),
                         with_boomerang ? "the boomerang statistics" : "the differential statistics");
  std::vector<RowWorker> workers;
  workers.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) workers.emplace_back(n, m, with_boomerang);
  const std::uint64_t rows = lut.size(), columns = std::uint64_t{1} << m;
  StageProgress differential(callback, "differential", rows - 1), boomerang(callback, "boomerang", rows - 1);
  parallel_rounds(
      1, rows, columns, threads,
      [&](std::uint64_t a, int t) {
        RowWorker& w = workers[static_cast<std::size_t>(t)];
        const auto row_a = static_cast<std::uint32_t>(a);
        analysis::SparseRow row =
            w.pairs ? w.pairs->add_differences(lut, row_a, w.row()) : analysis::add_ddt_row(lut, row_a, w.row());
        w.differential.take(row, columns - row.count, !w.pairs);
        if (w.pairs) {
          row = w.pairs->add_pairs(row);
          w.boomerang.take(row, columns - 1 - row.count, true);  // b ≠ 0, which no pair reaches
        }
      },
      [&](std::uint64_t done) {
        differential.update(done);
        if (with_boomerang) boomerang.update(done);
      });
  RowStatistics total{merge(workers, &RowWorker::differential), std::nullopt};
  if (with_boomerang) total.boomerang = merge(workers, &RowWorker::boomerang);
  return total;
}

struct LinearStatistics {
  std::uint64_t linearity = 0;
  Histogram spectrum;  ///< |LAT[a][b]| over b ≠ 0, every a
  std::int64_t branch_number = 0;
};

/// One thread's reduction of LAT columns; the counts of |LAT| = 0 … 2^n if the spectrum is asked for.
struct ColumnReduction {
  ColumnReduction(int n, bool with_spectrum, std::int64_t no_branch)
      : counts(with_spectrum ? (std::size_t{1} << n) + 1 : 0), branch_number(no_branch) {}
  std::vector<std::uint64_t> counts;
  std::uint64_t largest = 0;
  std::int64_t branch_number;

  void take(const std::int32_t* column, std::size_t size) {
    std::uint32_t column_largest = 0;
    if (std::uint64_t* count = counts.data(); !counts.empty()) {
      for (std::size_t a = 0; a < size; ++a) {
        const auto v = static_cast<std::uint32_t>(std::abs(column[a]));
        ++count[v];
        column_largest = std::max(column_largest, v);
      }
    } else {
      for (std::size_t a = 0; a < size; ++a)
        column_largest = std::max(column_largest, static_cast<std::uint32_t>(std::abs(column[a])));
    }
    largest = std::max<std::uint64_t>(largest, column_largest);
  }

  /// The lightest a ≠ 0 with LAT[a][b] ≠ 0, found by walking a by weight, gives a candidate.
  void take_branch(const std::int32_t* column, std::uint32_t b, std::span<const std::uint32_t> by_weight) {
    const int weight_b = std::popcount(b);
    if (weight_b + 1 >= branch_number) return;
    const auto a = std::find_if(by_weight.begin(), by_weight.end(), [&](std::uint32_t x) { return column[x] != 0; });
    if (a != by_weight.end()) branch_number = std::min<std::int64_t>(branch_number, weight_b + std::popcount(*a));
  }
};

// LAT columns b ≠ 0, computed a batch at a time on the backend; the spectrum (one count per
// entry, the costliest part) only when asked for.
LinearStatistics linear_statistics(std::span<const std::uint32_t> lut, int n, int m, const Backend& backend,
                                   bool with_spectrum, const Progress& callback) {
  const int threads = omp_get_max_threads();
  detail::require_memory(
      analysis::LatColumns::bytes(n, m) + (std::uint64_t{4} << n) + std::uint64_t(threads) * (std::uint64_t{8} << n),
      "the linear statistics");
  analysis::LatColumns columns(lut, n, m, backend);
  const std::vector<std::uint32_t> by_weight = analysis::nonzero_by_weight(n);
  // SageMath starts its minimum at 2^n + 2^m, which stands when no LAT[a][b] (a, b ≠ 0) is nonzero.
  const std::int64_t no_branch = (std::int64_t{1} << n) + (std::int64_t{1} << m);
  std::vector<ColumnReduction> reductions(static_cast<std::size_t>(threads),
                                          ColumnReduction(n, with_spectrum, no_branch));
  const auto batch_columns = static_cast<std::int64_t>(columns.batch_columns());
  StageProgress progress(callback, "linear", columns.batch_count());
  for (std::uint64_t i = 0; i < columns.batch_count(); ++i) {
    const std::int32_t* batch = columns.compute(i).data();
    const std::uint64_t first = i * columns.batch_columns();
#pragma omp parallel for num_threads(threads) \
    schedule(dynamic, 1) if ((columns.batch_columns() << n) >= analysis::kParallelFrom)
    for (std::int64_t c = 0; c < batch_columns; ++c) {
      const auto b = static_cast<std::uint32_t>(first + static_cast<std::uint64_t>(c));
      if (b == 0) continue;
      const std::int32_t* column = batch + (static_cast<std::size_t>(c) << n);
      ColumnReduction& r = reductions[static_cast<std::size_t>(omp_get_thread_num())];
      r.take(column, lut.size());
      r.take_branch(column, b, by_weight);
    }
    progress.update(i + 1);
  }
  LinearStatistics total{0, {}, no_branch};
  for (const ColumnReduction& r : reductions) {
    total.linearity = std::max(total.linearity, r.largest);
    merge_counts(r.counts, total.spectrum);
    total.branch_number = std::min(total.branch_number, r.branch_number);
  }
  return total;
}

int clamp_to_int(std::int64_t v) { return static_cast<int>(std::min<std::int64_t>(v, INT_MAX)); }

struct DegreeStatistics {
  int min_degree = 0;
  Histogram spectrum;  ///< degree → number of components b ≠ 0
};

// The ANF is GF(2)-linear in the function: ANF(b·S) is the XOR of the coordinate ANFs that b
// selects. Walking b in Gray-code order changes one coordinate at a time, so each component
// costs one XOR of two ANFs and its degree.
DegreeStatistics degree_statistics(std::span<const std::uint32_t> lut, int n, int m, const Progress& callback) {
  const int threads = omp_get_max_threads();
  const std::size_t words = analysis::words_for(n);
  detail::require_memory((std::uint64_t(m) + std::uint64_t(threads)) * words * 8, "the degree statistics");
  const std::vector<std::uint64_t> coordinates = analysis::coordinate_anfs(lut, n, m);
  std::vector<std::vector<std::uint64_t>> anfs(static_cast<std::size_t>(threads), std::vector<std::uint64_t>(words));
  std::vector<std::vector<std::uint64_t>> counts(static_cast<std::size_t>(threads),
                                                 std::vector<std::uint64_t>(static_cast<std::size_t>(n) + 2));
  const auto xor_coordinate = [&](std::vector<std::uint64_t>& anf, int i) {
    const std::uint64_t* c = coordinates.data() + static_cast<std::size_t>(i) * words;
    for (std::size_t w = 0; w < words; ++w) anf[w] ^= c[w];
  };
  constexpr std::uint64_t kBlock = 256;  // Gray-code indices a thread walks from one fresh start
  const std::uint64_t components = std::uint64_t{1} << m;
  const std::uint64_t blocks = (components + kBlock - 1) / kBlock;
  StageProgress progress(callback, "degree", blocks);
  parallel_rounds(
      0, blocks, kBlock * words, threads,
      [&](std::uint64_t block, int t) {
        std::vector<std::uint64_t>& anf = anfs[static_cast<std::size_t>(t)];
        const std::uint64_t begin = std::max<std::uint64_t>(1, block * kBlock);
        const std::uint64_t end = std::min(components, (block + 1) * kBlock);
        std::fill(anf.begin(), anf.end(), 0);
        for (std::uint64_t b = begin ^ (begin >> 1); b != 0; b &= b - 1) xor_coordinate(anf, std::countr_zero(b));
        for (std::uint64_t g = begin; g < end; ++g) {
          if (g > begin) xor_coordinate(anf, std::countr_zero(g));  // gray(g) = gray(g − 1) ⊕ 2^ctz(g)
          ++counts[static_cast<std::size_t>(t)][static_cast<std::size_t>(analysis::max_set_weight(anf, n) + 1)];
        }
      },
      [&](std::uint64_t done) { progress.update(done); });
  DegreeStatistics total;
  for (int degree = -1; degree <= n; ++degree) {
    std::uint64_t count = 0;
    for (const auto& c : counts) count += c[static_cast<std::size_t>(degree + 1)];
    if (count != 0) total.spectrum[degree] = count;
  }
  total.min_degree = static_cast<int>(total.spectrum.begin()->first);
  return total;
}

// min over a ≠ 0 of wt(a) + min_x wt(S(x) ⊕ S(x ⊕ a)), walking a by increasing weight and
// stopping once wt(a) alone reaches the best sum.
int differential_branch_number_of(std::span<const std::uint32_t> lut, int n) {
  const std::vector<std::uint32_t> by_weight = analysis::nonzero_by_weight(n);
  int best = INT_MAX;
  for (auto first = by_weight.begin(); first != by_weight.end();) {
    const int weight = std::popcount(*first);
    if (weight >= best) break;
    const auto last = std::find_if(first, by_weight.end(), [&](std::uint32_t a) { return std::popcount(a) != weight; });
    const auto count = static_cast<std::ptrdiff_t>(last - first);
    const std::uint32_t* as = &*first;
    int lightest = INT_MAX;
#pragma omp parallel for schedule(dynamic, 1) \
    reduction(min                             \
              : lightest) if ((std::uint64_t(count) << n) >= analysis::kParallelFrom)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
      const std::uint32_t a = as[i];
      const std::size_t high = std::bit_floor(a);
      int row_lightest = INT_MAX;
      for (std::size_t base = 0; base < lut.size(); base += 2 * high)
        for (std::size_t x = base; x < base + high; ++x)
          row_lightest = std::min(row_lightest, std::popcount(lut[x] ^ lut[x ^ a]));
      lightest = std::min(lightest, row_lightest);
    }
    best = std::min(best, weight + lightest);
    first = last;
  }
  return best;
}

}  // namespace

std::uint64_t SBox::differential_uniformity() const {
  return row_statistics(lut_, n_, m_, false, {}).differential.largest;
}

Histogram SBox::differential_spectrum() const { return row_statistics(lut_, n_, m_, false, {}).differential.spectrum; }

bool SBox::is_apn() const { return n_ == m_ && differential_uniformity() == 2; }

std::uint64_t SBox::linearity(const Backend& backend) const {
  return linear_statistics(lut_, n_, m_, backend, false, {}).linearity;
}

std::uint64_t SBox::nonlinearity(const Backend& backend) const {
  return (std::uint64_t{1} << (n_ - 1)) - linearity(backend) / 2;
}

Histogram SBox::absolute_walsh_spectrum(const Backend& backend) const {
  return linear_statistics(lut_, n_, m_, backend, true, {}).spectrum;
}

int SBox::linear_branch_number(const Backend& backend) const {
  return clamp_to_int(linear_statistics(lut_, n_, m_, backend, false, {}).branch_number);
}

std::uint64_t SBox::boomerang_uniformity() const {
  analysis::require_permutation(lut_, n_, m_, "boomerang uniformity");
  return row_statistics(lut_, n_, m_, true, {}).boomerang->largest;
}

Histogram SBox::boomerang_spectrum() const {
  analysis::require_permutation(lut_, n_, m_, "boomerang spectrum");
  return row_statistics(lut_, n_, m_, true, {}).boomerang->spectrum;
}

// SageMath starts its maximum at 0, so the zero S-box has max_degree 0.
int SBox::max_degree() const {
  const std::vector<std::uint64_t> anfs = analysis::coordinate_anfs(lut_, n_, m_);
  const std::size_t words = analysis::words_for(n_);
  int largest = 0;
  for (int i = 0; i < m_; ++i)
    largest =
        std::max(largest, analysis::max_set_weight({anfs.data() + static_cast<std::size_t>(i) * words, words}, n_));
  return largest;
}

int SBox::min_degree() const { return degree_statistics(lut_, n_, m_, {}).min_degree; }

Histogram SBox::degree_spectrum() const { return degree_statistics(lut_, n_, m_, {}).spectrum; }

int SBox::differential_branch_number() const { return differential_branch_number_of(lut_, n_); }

SBoxSummary SBox::summary(const AnalysisOptions& options) const {
  SBoxSummary s;
  s.n = n_;
  s.m = m_;
  s.bijective = is_permutation();
  RowStatistics rows = row_statistics(lut_, n_, m_, s.bijective, options.progress);
  s.differential_uniformity = rows.differential.largest;
  s.differential_spectrum = std::move(rows.differential.spectrum);
  s.is_apn = n_ == m_ && s.differential_uniformity == 2;
  if (rows.boomerang) {
    s.boomerang_uniformity = rows.boomerang->largest;
    s.boomerang_spectrum = std::move(rows.boomerang->spectrum);
  }
  s.differential_branch_number = differential_branch_number_of(lut_, n_);
  LinearStatistics linear = linear_statistics(lut_, n_, m_, options.backend, true, options.progress);
  s.linearity = linear.linearity;
  s.nonlinearity = (std::uint64_t{1} << (n_ - 1)) - linear.linearity / 2;
  s.absolute_walsh_spectrum = std::move(linear.spectrum);
  s.linear_branch_number = clamp_to_int(linear.branch_number);
  DegreeStatistics degrees = degree_statistics(lut_, n_, m_, options.progress);
  s.min_degree = degrees.min_degree;
  s.max_degree = std::max(0, static_cast<int>(degrees.spectrum.rbegin()->first));
  s.degree_spectrum = std::move(degrees.spectrum);
  s.fixed_points = fixed_points().size();
  return s;
}

}  // namespace fastconv
