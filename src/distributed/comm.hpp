// src/distributed/comm.hpp — MPI plumbing of the distributed transforms: the rank layout,
// errors raised on every rank alike, and messages larger than MPI's int counts.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string_view>

namespace fastconv::distributed::detail {

/// A communicator of P = 2^log2p ranks and this process's place in it.
struct Ranks {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  int log2p = 0;
};

/// The ranks of `comm`; a size that is not a power of two is an invalid_argument Error
/// (thrown on every rank, since every rank sees the same size).
Ranks ranks_of(MPI_Comm comm, std::string_view what);

/// Runs `step` on every rank; if it throws on any rank (a fastconv::Error, or running out of
/// memory: a device Error "out of memory"), every rank throws
/// the Error of the lowest rank that failed (its code and message), so that no rank is left
/// waiting in a collective call the others have abandoned. Collective.
void collectively(MPI_Comm comm, const std::function<void()>& step);

/// The tag of the library's point-to-point messages.
inline constexpr int kTag = 0x5FC0;

/// Throws an invalid_argument Error on every rank unless every rank passed the same `values`
/// (sizes, options: what must agree for the ranks to take the same collective steps).
void require_agreement(MPI_Comm comm, std::string_view what, std::initializer_list<long long> values);

/// Throws a device Error naming the MPI call and its error string unless `code` is MPI_SUCCESS.
void check_mpi(int code, std::string_view call);

/// `bytes` (a power of two, or any size up to 2^30) as `count` elements of `type`, so that
/// counts stay within int however large the block: MPI_BYTE up to 2^30 bytes, 1 MiB units beyond.
class Bytes {
 public:
  explicit Bytes(std::size_t bytes);
  ~Bytes();
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;

  [[nodiscard]] MPI_Datatype type() const noexcept { return type_; }
  [[nodiscard]] int count() const noexcept { return count_; }

 private:
  MPI_Datatype type_ = MPI_BYTE;
  int count_ = 0;
  bool owned_ = false;
};

/// MPI_Alltoall with `bytes` per rank pair.
void alltoall_bytes(const void* send, void* receive, std::size_t bytes, MPI_Comm comm);

}  // namespace fastconv::distributed::detail
