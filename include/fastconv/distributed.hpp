// fastconv/distributed.hpp — the WHT and dyadic convolution of an array spread over MPI ranks.
//
// An array of N = 2^n elements is block-distributed over the P = 2^p ranks of a communicator:
// rank r holds elements [r·N/P, (r+1)·N/P) (its "local block", M = N/P elements). The low n−p
// index bits are transformed inside each block by the cpu backend; the high p bits cross ranks,
// by one of two exchanges:
//   pairwise  p rounds; in round k each rank swaps its block with rank r ⊕ 2^k, in chunks, the
//             butterflies of one chunk computed while the next is in flight (p·M words sent);
//   alltoall  two MPI_Alltoall transposes around p local butterfly stages (2·(P−1)/P·M words
//             sent, 2·(P−1) messages), needing n ≥ 2p and a second block of memory.
// Exchange::auto_ picks by a latency/bandwidth cost model (Options). Inside a dyadic
// convolution the alltoall exchange leaves both spectra in the transposed layout, multiplies
// them there and transposes back only the product (three all-to-alls in all, not six).
//
// Results equal the single-process ones: bit for bit for integers (exact, with overflow
// reported as an `overflow` Error on every rank), to rounding for floats. Every function here
// is collective: all ranks of `comm` call it with blocks of the same size, and an Error on any
// rank (a bad size, an overflow, ranks that disagree on the size or options) is thrown on all
// of them, with the lowest failing rank's message. The library's own messages use tag 0x5FC0 on
// `comm`: give it a duplicate (MPI_Comm_dup) if other receives there may match any tag.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "fastconv/backend.hpp"
#include "fastconv/types.hpp"
#include "fastconv/wht.hpp"

namespace fastconv::distributed {

enum class Exchange { auto_, pairwise, alltoall };
std::string_view to_string(Exchange exchange) noexcept;
std::optional<Exchange> parse_exchange(std::string_view name) noexcept;  ///< "auto", "pairwise", "alltoall"

struct Options {
  Exchange exchange = Exchange::auto_;
  /// Cost model of one message between two ranks: latency (seconds) and bandwidth (bytes per
  /// second); the defaults are those of ranks sharing one machine's memory.
  double latency_s = 5e-6;
  double bandwidth = 5e9;
  /// Words of one chunk of the pairwise exchange (the unit of overlap); rounded down to a power of two.
  std::size_t chunk_words = std::size_t{1} << 21;
  /// The backend of the local transforms: the cpu backend (0 = OpenMP's default threads).
  int threads = 0;
};

/// A WHT of 2^log2n points over the ranks of `comm` (plan once, execute many). Not for
/// concurrent use: one execute() at a time per plan (it keeps its exchange buffers), called by
/// every rank of `comm`, as any collective MPI call is.
template <TransformElement T>
class WhtPlan {
 public:
  /// Collective. The size of `comm` must be a power of two P ≤ 2^log2n. Accumulation::float64 on
  /// float or 16-bit data is an unsupported Error (convert the data to float64 instead).
  WhtPlan(int log2n, MPI_Comm comm, WhtOptions options = {}, Options distributed = {});
  ~WhtPlan();
  WhtPlan(WhtPlan&&) noexcept;
  WhtPlan& operator=(WhtPlan&&) noexcept;

  /// Transforms the distributed array in place; `local` is this rank's block (2^log2n / P elements).
  void execute(std::span<T> local) const;

  [[nodiscard]] int log2n() const noexcept;
  [[nodiscard]] std::size_t local_size() const noexcept;
  [[nodiscard]] Exchange exchange() const noexcept;  ///< the one chosen

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One-shot WHT of the distributed array whose local blocks are `local` (N = P·local.size()).
template <TransformElement T>
void wht(std::span<T> local, MPI_Comm comm, WhtOptions options = {}, Options distributed = {});

/// out = f ⊛ g (dyadic convolution) of two distributed arrays of the same length; the blocks
/// `out` may alias `f` or `g`.
template <Element T>
void convolve(std::span<const T> f, std::span<const T> g, std::span<T> out, MPI_Comm comm, Options distributed = {});

/// out = f ⊛ f (dyadic autocorrelation); `out` may alias `f`.
template <Element T>
void autocorrelate(std::span<const T> f, std::span<T> out, MPI_Comm comm, Options distributed = {});

}  // namespace fastconv::distributed
