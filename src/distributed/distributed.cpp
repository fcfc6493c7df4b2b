// The distributed WHT and dyadic convolution (fastconv/distributed.hpp).
//
// H_N = H_P ⊗ H_M: the WHT of a block-distributed array is the local WHT of every block (the
// low n−p bits, by the cpu backend in words W) and a P-point WHT across ranks of every local
// column (the high p bits, src/distributed/cross_ranks.hpp). Integers follow the single-process
// rules: a bound decides whether their own ring holds the result (then the ring's wrap-around
// is harmless) or a 64/128-bit ring computes it, checked before anything is stored.
#include "fastconv/distributed.hpp"

#include <omp.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/accumulation.hpp"
#include "core/backend_impl.hpp"
#include "core/exact.hpp"
#include "core/normalization.hpp"
#include "distributed/comm.hpp"
#include "distributed/cross_ranks.hpp"

namespace fastconv::distributed {

using fastconv::detail::i128;
using fastconv::detail::u128;
using fastconv::detail::WhtKernel;

namespace detail {
namespace {

/// The entry points, which begin with the same collective step: agree_on_call.
enum class Call : long long { wht = 1, wht_plan, convolve, autocorrelate };

template <class T>
constexpr long long element_code() noexcept {
  if constexpr (std::is_same_v<T, float>) return 1;
  else if constexpr (std::is_same_v<T, double>) return 2;
  else if constexpr (std::is_same_v<T, std::int32_t>) return 3;
  else if constexpr (std::is_same_v<T, std::int64_t>) return 4;
  else if constexpr (std::is_same_v<T, float16>) return 5;
  else return 6;  // bfloat16
}

/// The first collective step of every entry point: the ranks agree that they make the same
/// call on the same element type. Ranks that did not (one convolving, another autocorrelating;
/// int32 on one, float on another, whose integers take collective steps of their own and whose
/// words differ in size) had waited in collective calls that did not match, or crashed in one.
template <class T>
void agree_on_call(MPI_Comm comm, std::string_view what, Call call) {
  require_agreement(comm, what, {static_cast<long long>(call), element_code<T>()});
}

}  // namespace
}  // namespace detail

std::string_view to_string(Exchange exchange) noexcept {
  switch (exchange) {
    case Exchange::auto_: return "auto";
    case Exchange::pairwise: return "pairwise";
    case Exchange::alltoall: return "alltoall";
  }
  return "?";
}

std::optional<Exchange> parse_exchange(std::string_view name) noexcept {
  for (const Exchange e : {Exchange::auto_, Exchange::pairwise, Exchange::alltoall})
    if (name == to_string(e)) return e;
  return std::nullopt;
}

namespace detail {
namespace {

enum class Operation { wht, convolve, autocorrelate };

/// Where a distributed array lies and how its rank bits are crossed.
struct Geometry {
  Ranks ranks;
  int log2n = 0;
  std::size_t local = 0;  ///< M = N / P words per rank
  Exchange exchange = Exchange::pairwise;
  int threads = 0;
  std::size_t chunk_words = 0;

  [[nodiscard]] std::size_t per_pair() const { return local / static_cast<std::size_t>(ranks.size); }
};

/// The exchange with the lower modelled time: a pairwise crossing of the rank bits costs p
/// messages of M words; an all-to-all transpose P − 1 messages of M/P words. A WHT crosses once
/// (1 crossing or 2 transposes); a convolution three times (x, g, and back: 3 or 3, the spectra
/// staying transposed); an autocorrelation twice (2 or 2).
Exchange choose_exchange(int log2n, const Ranks& r, std::size_t word_bytes, Operation op, const Options& o) {
  if (r.log2p == 0) return Exchange::pairwise;  // one rank: nothing crosses
  const bool alltoall_fits = log2n >= 2 * r.log2p;
  if (o.exchange == Exchange::alltoall && !alltoall_fits)
    throw Error(ErrorCode::invalid_argument,
                "the alltoall exchange needs at least P² = " + std::to_string(std::size_t{1} << (2 * r.log2p)) +
                    " elements over " + std::to_string(r.size) + " ranks (this array has 2^" + std::to_string(log2n) +
                    "): use the pairwise exchange");
  if (o.exchange != Exchange::auto_) return o.exchange;
  if (!alltoall_fits) return Exchange::pairwise;
  const double P = r.size;
  const double bytes = std::ldexp(static_cast<double>(word_bytes), log2n - r.log2p);
  const double crossing = r.log2p * (o.latency_s + bytes / o.bandwidth);
  const double transpose = (P - 1) * o.latency_s + (P - 1) / P * bytes / o.bandwidth;
  const int crossings = op == Operation::convolve ? 3 : op == Operation::autocorrelate ? 2 : 1;
  const int transposes = op == Operation::wht ? 2 : crossings;
  return transposes * transpose < crossings * crossing ? Exchange::alltoall : Exchange::pairwise;
}

/// The local block size M every rank passed, checked equal on all ranks and a power of two
/// with P·M ≤ 2^48; returns log2(P·M).
int global_log2(std::size_t local, const Ranks& r, std::string_view what) {
  std::uint64_t sizes[2] = {local, ~std::uint64_t{local}};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_UINT64_T, MPI_MAX, r.comm), "MPI_Allreduce");
  if (sizes[0] != local || ~sizes[1] != local)
    throw Error(ErrorCode::invalid_argument, std::string(what) + ": the ranks' blocks differ in size (from " +
                                                 std::to_string(~sizes[1]) + " to " + std::to_string(sizes[0]) +
                                                 " elements): every rank holds N/P elements");
  const std::size_t global = local * static_cast<std::size_t>(r.size);
  if (local == 0 || !std::has_single_bit(global))
    throw Error(ErrorCode::invalid_argument, std::string(what) + ": " + std::to_string(r.size) + " blocks of " +
                                                 std::to_string(local) + " elements: the length must be a power of two, 2^n ≥ P");
  if (std::countr_zero(global) > 48)
    throw Error(ErrorCode::invalid_argument, std::string(what) + ": 2^" + std::to_string(std::countr_zero(global)) +
                                                 " points is beyond the 2^48 a transform takes");
  return std::countr_zero(global);
}

/// The layout of the operation, checked to be the same on every rank (collective).
Geometry geometry_of(const Ranks& r, int log2n, std::size_t word_bytes, Operation op, const Options& o) {
  const Exchange exchange = choose_exchange(log2n, r, word_bytes, op, o);
  require_agreement(r.comm, "distributed transform",
                    {log2n, static_cast<long long>(exchange), static_cast<long long>(o.chunk_words)});
  return {r, log2n, std::size_t{1} << (log2n - r.log2p), exchange, o.threads > 0 ? o.threads : omp_get_max_threads(),
          o.chunk_words};
}

/// A block of scratch words for the all-to-all exchange and the reordering, kept by a plan: a
/// fresh gigabyte buffer costs as much in page faults as an all-to-all of it (measured: 170 ms
/// against 90 ms for a WHT of 2^26 floats on 2 ranks), so it is touched once and reused.
class Scratch {
 public:
  template <class W>
  W* words(std::size_t count) {
    const std::size_t bytes = count * sizeof(W);
    if (bytes > size_) {
      data_.reset(new std::byte[bytes]);
      std::memset(data_.get(), 0, bytes);
      size_ = bytes;
    }
    return reinterpret_cast<W*>(data_.get());
  }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t size_ = 0;
};

/// The all-to-all exchange's first half: the block transposed into `scratch` (P rows of M/P,
/// row q from rank q) and transformed across the rows. Returns the rows.
template <class W>
W* transposed_across_ranks(const W* data, const Geometry& g, Scratch& scratch) {
  W* rows = scratch.words<W>(g.local);
  alltoall_bytes(data, rows, g.per_pair() * sizeof(W), g.ranks.comm);
  wht_across_rows(rows, g.per_pair(), g.ranks.log2p, g.threads);
  return rows;
}

/// The WHT over the rank bits of a natural-layout block, in place.
template <class W>
void cross_ranks(W* data, const Geometry& g, Scratch& scratch) {
  if (g.ranks.log2p == 0) return;
  if (g.exchange == Exchange::pairwise) {
    W* buffers = scratch.words<W>(2 * pairwise_chunk<W>(g.local, g.chunk_words));
    pairwise_rounds(data, g.local, g.ranks, g.chunk_words, buffers);
    return;
  }
  alltoall_bytes(transposed_across_ranks(data, g, scratch), data, g.per_pair() * sizeof(W), g.ranks.comm);
}

/// Sequency or Paley order from the natural order, across ranks (a single rank's local kernel
/// computes the order itself).
template <class T>
void put_in_order(T* data, const Geometry& g, Order order, Scratch& scratch) {
  if (order == Order::hadamard || g.ranks.log2p == 0) return;
  if (g.log2n >= 2 * g.ranks.log2p) {
    reorder(data, scratch.words<T>(g.local), g.local, g.log2n, g.ranks, order);
  } else {
    reorder_gathered(data, g.local, g.log2n, g.ranks, order);
  }
}

std::uint64_t global_max(std::uint64_t value, MPI_Comm comm) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce");
  return value;
}

/// Σ over ranks of a 128-bit value, saturating at 2^128 − 1.
u128 global_sum(u128 value, MPI_Comm comm, int ranks) {
  const std::uint64_t mine[2] = {static_cast<std::uint64_t>(value), static_cast<std::uint64_t>(value >> 64)};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(ranks));
  check_mpi(MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, comm), "MPI_Allgather");
  u128 sum = 0;
  for (int q = 0; q < ranks; ++q) {
    const u128 v = (u128{all[2 * q + 1]} << 64) | all[2 * q];
    if (__builtin_add_overflow(sum, v, &sum)) return ~u128{0};
  }
  return sum;
}

/// Integers sign-extended into ring words.
template <class W, class T>
std::vector<W> ring_words(std::span<const T> values) {
  std::vector<W> words(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) words[i] = static_cast<W>(static_cast<i128>(values[i]));
  return words;
}

/// The words the local kernel transforms: 16-bit floats in float, integers in their own ring.
template <class T>
struct WordOf {
  using type = std::conditional_t<HalfFloat<T>, float, T>;
};
template <std::integral T>
struct WordOf<T> {
  using type = fastconv::detail::ring_of<T>;
};

/// "element k": local word j's place in the output of `order` (j is in the natural layout).
std::string element(const Geometry& g, std::size_t j, Order order = Order::hadamard) {
  return "element " + std::to_string(ordered_index(static_cast<std::size_t>(g.ranks.rank) * g.local + j, g.log2n, order));
}

}  // namespace
}  // namespace detail

// --- the WHT -------------------------------------------------------------------------------

template <TransformElement T>
struct WhtPlan<T>::Impl {
  detail::Geometry geometry;
  WhtOptions options;
  Backend backend = Backend::cpu();
  std::unique_ptr<WhtKernel> kernel;  // floats: float or double words; integers: the ring of T
  std::unique_ptr<WhtKernel> wide;    // integers: a ring wide enough for any result
  mutable detail::Scratch scratch;    // execute() is collective: one call at a time per plan

  static constexpr bool half = HalfFloat<T>;

  [[nodiscard]] bool uses_wide64() const { return std::is_same_v<T, std::int32_t> && geometry.log2n <= 31; }

  template <class W>
  void transform(W* words, const WhtKernel& local, double scale) const {
    local.execute(words, 1, geometry.local, scale);
    detail::cross_ranks(words, geometry, scratch);
  }

  void run(std::span<T> data) const {
    if constexpr (std::is_integral_v<T>) {
      run_exact(data);
    } else if constexpr (half) {
      std::vector<float> words(data.begin(), data.end());
      transform(words.data(), *kernel, fastconv::detail::normalization_scale(geometry.log2n, options.normalization));
      detail::put_in_order(words.data(), geometry, options.order, scratch);
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = T(words[i]);
    } else {
      transform(data.data(), *kernel, fastconv::detail::normalization_scale(geometry.log2n, options.normalization));
      detail::put_in_order(data.data(), geometry, options.order, scratch);
    }
  }

  template <std::integral U>  // a template: explicit instantiations for floating types never instantiate it
  void run_exact(std::span<U> data) const {
    using fastconv::detail::below_power_of_two;
    const std::uint64_t bound =
        detail::global_max(fastconv::detail::magnitude_bound(std::span<const U>(data)), geometry.ranks.comm);
    if (options.normalization == Normalization::none &&
        below_power_of_two(bound, geometry.log2n, std::numeric_limits<T>::digits)) {
      transform(reinterpret_cast<fastconv::detail::ring_of<T>*>(data.data()), *kernel, 1.0);
    } else if (uses_wide64()) {
      run_wide<std::uint64_t>(data);
    } else {
      run_wide<u128>(data);
    }
    detail::put_in_order(data.data(), geometry, options.order, scratch);
  }

  template <class W>
  void run_wide(std::span<T> data) const {
    namespace core = fastconv::detail;
    auto words = detail::ring_words<W>(std::span<const T>(data));
    transform(words.data(), *wide, 1.0);
    const int shift = core::normalization_shift(geometry.log2n, options.normalization);
    // One rank's kernel computes the order itself; on several the words are in natural order.
    const Order layout = geometry.ranks.log2p == 0 ? Order::hadamard : options.order;
    detail::collectively(geometry.ranks.comm, [&] {  // every value checked before any is written back
      for (std::size_t j = 0; j < words.size(); ++j)
        words[j] = static_cast<W>(core::checked_wht_quotient<T>(core::signed_value(words[j]), shift, options.normalization,
                                                                [&] { return detail::element(geometry, j, layout); }));
    });
    for (std::size_t j = 0; j < words.size(); ++j) data[j] = static_cast<T>(core::signed_value(words[j]));
  }
};

template <TransformElement T>
WhtPlan<T>::WhtPlan(int log2n, MPI_Comm comm, WhtOptions options, Options distributed)
    : impl_(std::make_unique<Impl>()) {
  namespace core = fastconv::detail;
  impl_->options = options;
  impl_->backend = Backend::cpu(distributed.threads);
  const detail::Ranks ranks = detail::ranks_of(comm, "distributed WHT");
  detail::agree_on_call<T>(comm, "distributed WHT plan", detail::Call::wht_plan);
  detail::require_agreement(comm, "distributed WHT plan",
                            {log2n, static_cast<long long>(options.order), static_cast<long long>(options.normalization)});
  detail::collectively(comm, [&] {
    if (log2n < ranks.log2p || log2n > 48)
      throw Error(ErrorCode::invalid_argument, "distributed WHT of 2^" + std::to_string(log2n) + " points over " +
                                                   std::to_string(ranks.size) + " ranks: the size must be 2^" +
                                                   std::to_string(ranks.log2p) + " … 2^48");
    if (core::accumulates_in_double<T> && options.accumulation == Accumulation::float64)
      throw Error(ErrorCode::unsupported, "distributed WHT: float64 accumulation is not supported (the blocks are "
                                          "transformed in their own type): convert the data to float64 instead");
    using Word = typename detail::WordOf<T>::type;
    impl_->geometry = detail::geometry_of(ranks, log2n, sizeof(Word), detail::Operation::wht, distributed);
    // One rank: the local kernel is the whole transform and computes the order itself.
    const Order local_order = ranks.log2p == 0 ? options.order : Order::hadamard;
    const int local_log2 = log2n - ranks.log2p;
    const auto& b = impl_->backend.impl();
    impl_->kernel = b.make_wht(local_log2, core::word_of<Word>, local_order);
    if (impl_->geometry.exchange == Exchange::alltoall) impl_->scratch.template words<Word>(impl_->geometry.local);
    if constexpr (std::is_integral_v<T>) {
      core::require_exact_normalization<T>(log2n, options.normalization);
      impl_->wide = b.make_wht(local_log2, impl_->uses_wide64() ? core::Word::u64 : core::Word::u128, local_order);
    }
  });
}

template <TransformElement T>
WhtPlan<T>::~WhtPlan() = default;
template <TransformElement T>
WhtPlan<T>::WhtPlan(WhtPlan&&) noexcept = default;
template <TransformElement T>
WhtPlan<T>& WhtPlan<T>::operator=(WhtPlan&&) noexcept = default;

template <TransformElement T>
void WhtPlan<T>::execute(std::span<T> local) const {
  detail::collectively(impl_->geometry.ranks.comm, [&] {
    if (local.size() != impl_->geometry.local)
      throw Error(ErrorCode::invalid_argument, "distributed WHT plan for blocks of " +
                                                   std::to_string(impl_->geometry.local) + " elements was given " +
                                                   std::to_string(local.size()));
  });
  impl_->run(local);
}

template <TransformElement T>
int WhtPlan<T>::log2n() const noexcept {
  return impl_->geometry.log2n;
}
template <TransformElement T>
std::size_t WhtPlan<T>::local_size() const noexcept {
  return impl_->geometry.local;
}
template <TransformElement T>
Exchange WhtPlan<T>::exchange() const noexcept {
  return impl_->geometry.exchange;
}

template <TransformElement T>
void wht(std::span<T> local, MPI_Comm comm, WhtOptions options, Options distributed) {
  const detail::Ranks ranks = detail::ranks_of(comm, "distributed WHT");
  detail::agree_on_call<T>(comm, "distributed WHT", detail::Call::wht);
  int log2n = 0;
  detail::collectively(comm, [&] { log2n = detail::global_log2(local.size(), ranks, "distributed WHT"); });
  WhtPlan<T>(log2n, comm, options, distributed).execute(local);
}

template class WhtPlan<float>;
template class WhtPlan<double>;
template class WhtPlan<std::int32_t>;
template class WhtPlan<std::int64_t>;
template class WhtPlan<float16>;
template class WhtPlan<bfloat16>;
template void wht(std::span<float>, MPI_Comm, WhtOptions, Options);
template void wht(std::span<double>, MPI_Comm, WhtOptions, Options);
template void wht(std::span<std::int32_t>, MPI_Comm, WhtOptions, Options);
template void wht(std::span<std::int64_t>, MPI_Comm, WhtOptions, Options);
template void wht(std::span<float16>, MPI_Comm, WhtOptions, Options);
template void wht(std::span<bfloat16>, MPI_Comm, WhtOptions, Options);

// --- dyadic convolution and autocorrelation -------------------------------------------------

namespace detail {
namespace {

/// x ← N⁻¹·W(W·x ⊙ W·g) (g = nullptr: W·x ⊙ W·x) in words W, x and g blocks of one geometry,
/// `scale` applied in the last local transform. With the alltoall exchange both spectra stay
/// in the transposed layout, where they are multiplied.
template <class W>
void convolve_words(W* x, W* g, const WhtKernel& local, const Geometry& geo, double scale) {
  Scratch x_rows, g_rows;
  const bool transposed = geo.ranks.log2p > 0 && geo.exchange == Exchange::alltoall;
  const auto spectrum = [&](W* v, Scratch& scratch) -> W* {
    local.execute(v, 1, geo.local, 1.0);
    if (transposed) return transposed_across_ranks(v, geo, scratch);
    cross_ranks(v, geo, scratch);
    return v;
  };
  W* X = spectrum(x, x_rows);
  const W* G = g != nullptr ? spectrum(g, g_rows) : X;
  const auto n = static_cast<std::ptrdiff_t>(geo.local);
#pragma omp parallel for num_threads(geo.threads) schedule(static) if (geo.threads != 1 && n >= (1 << 16))
  for (std::ptrdiff_t i = 0; i < n; ++i) X[i] = X[i] * G[i];
  if (transposed) {
    wht_across_rows(X, geo.per_pair(), geo.ranks.log2p, geo.threads);
    alltoall_bytes(X, x, geo.per_pair() * sizeof(W), geo.ranks.comm);
  } else {
    cross_ranks(x, geo, x_rows);
  }
  local.execute(x, 1, geo.local, scale);
}

template <Element T>
void dyadic(std::span<const T> f, const std::span<const T>* g, std::span<T> out, MPI_Comm comm,
            const Options& options, Operation op) {
  namespace core = fastconv::detail;
  const std::string_view what = op == Operation::convolve ? "distributed dyadic convolution"
                                                          : "distributed dyadic autocorrelation";
  const Ranks ranks = ranks_of(comm, what);
  agree_on_call<T>(comm, what, op == Operation::convolve ? Call::convolve : Call::autocorrelate);
  int log2n = 0;
  collectively(comm, [&] {
    if (g != nullptr && g->size() != f.size())
      throw Error(ErrorCode::invalid_argument, std::string(what) + ": f's block has " + std::to_string(f.size()) +
                                                   " elements and g's " + std::to_string(g->size()) +
                                                   " (zero-pad the shorter operand to the longer's length)");
    if (out.size() != f.size())
      throw Error(ErrorCode::invalid_argument, std::string(what) + ": the output block has " +
                                                   std::to_string(out.size()) + " elements, the operands' " +
                                                   std::to_string(f.size()));
  });
  collectively(comm, [&] { log2n = global_log2(f.size(), ranks, what); });
  const Backend backend = Backend::cpu(options.threads);
  const auto& b = backend.impl();
  const int local_log2 = log2n - ranks.log2p;
  const auto run = [&]<class W>(W* x, W* h, const Geometry& geo, double scale) {
    convolve_words(x, h, *b.make_wht(local_log2, core::word_of<W>, Order::hadamard), geo, scale);
  };
  if constexpr (std::is_floating_point_v<T>) {
    // The geometry (and its errors) before `out`, which may alias g, is touched.
    const Geometry geo = geometry_of(ranks, log2n, sizeof(T), op, options);
    std::vector<T> h;
    if (g != nullptr) h.assign(g->begin(), g->end());
    if (out.data() != f.data()) std::copy(f.begin(), f.end(), out.begin());
    run(out.data(), g != nullptr ? h.data() : static_cast<T*>(nullptr), geo, std::ldexp(1.0, -log2n));
  } else {
    const std::span<const T> other = g != nullptr ? *g : f;
    const core::Norms local_f = core::norms(f), local_g = g != nullptr ? core::norms(other) : local_f;
    const u128 l1_f = global_sum(local_f.l1, comm, ranks.size);
    const u128 l1_g = g != nullptr ? global_sum(local_g.l1, comm, ranks.size) : l1_f;
    const std::uint64_t max_f = global_max(local_f.max, comm);
    const std::uint64_t max_g = g != nullptr ? global_max(local_g.max, comm) : max_f;
    const u128 bound = core::convolution_bound(l1_f, max_f, l1_g, max_g);
    const auto exact = [&]<class W>() {
      const Geometry geo = geometry_of(ranks, log2n, sizeof(W), op, options);
      auto x = ring_words<W>(f);
      auto h = g != nullptr ? ring_words<W>(other) : std::vector<W>{};
      run(x.data(), g != nullptr ? h.data() : static_cast<W*>(nullptr), geo, 1.0);
      const std::string name(op == Operation::convolve ? "dyadic convolution" : "dyadic autocorrelation");
      collectively(comm, [&] {
        for (std::size_t j = 0; j < x.size(); ++j) {
          const i128 v = core::signed_value(x[j]) >> log2n;
          if (!core::fits<T>(v)) core::throw_overflow<T>(name, element(geo, j), v);
        }
      });
      for (std::size_t j = 0; j < x.size(); ++j) out[j] = static_cast<T>(core::signed_value(x[j]) >> log2n);
    };
    switch (core::choose_ring(bound, log2n)) {
      case core::Ring::u64: exact.template operator()<std::uint64_t>(); break;
      case core::Ring::u128: exact.template operator()<u128>(); break;
      case core::Ring::none: core::throw_too_wide(what, core::type_name<T>(), bound, log2n);
    }
  }
}

}  // namespace
}  // namespace detail

template <Element T>
void convolve(std::span<const T> f, std::span<const T> g, std::span<T> out, MPI_Comm comm, Options distributed) {
  detail::dyadic(f, &g, out, comm, distributed, detail::Operation::convolve);
}

template <Element T>
void autocorrelate(std::span<const T> f, std::span<T> out, MPI_Comm comm, Options distributed) {
  detail::dyadic<T>(f, nullptr, out, comm, distributed, detail::Operation::autocorrelate);
}

#define FASTCONV_DISTRIBUTED_DYADIC(T)                                                                      \
  template void convolve<T>(std::span<const T>, std::span<const T>, std::span<T>, MPI_Comm, Options); \
  template void autocorrelate<T>(std::span<const T>, std::span<T>, MPI_Comm, Options);
FASTCONV_DISTRIBUTED_DYADIC(float)
FASTCONV_DISTRIBUTED_DYADIC(double)
FASTCONV_DISTRIBUTED_DYADIC(std::int32_t)
FASTCONV_DISTRIBUTED_DYADIC(std::int64_t)
#undef FASTCONV_DISTRIBUTED_DYADIC

}  // namespace fastconv::distributed
