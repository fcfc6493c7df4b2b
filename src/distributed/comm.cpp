#include "distributed/comm.hpp"

#include <bit>
#include <new>
#include <vector>
#include <string>

#include "fastconv/error.hpp"

namespace fastconv::distributed::detail {

Ranks ranks_of(MPI_Comm comm, std::string_view what) {
  Ranks r;
  r.comm = comm;
  check_mpi(MPI_Comm_rank(comm, &r.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &r.size), "MPI_Comm_size");
  if (!std::has_single_bit(static_cast<unsigned>(r.size)))
    throw Error(ErrorCode::invalid_argument, std::string(what) + ": " + std::to_string(r.size) +
                                                 " ranks: the array is split into blocks over a power-of-two "
                                                 "number of ranks (run with -np 1, 2, 4, 8, ...)");
  r.log2p = std::countr_zero(static_cast<unsigned>(r.size));
  return r;
}

void require_agreement(MPI_Comm comm, std::string_view what, std::initializer_list<long long> values) {
  std::vector<long long> low(values), high(values);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, low.data(), static_cast<int>(low.size()), MPI_LONG_LONG, MPI_MIN, comm),
            "MPI_Allreduce");
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, high.data(), static_cast<int>(high.size()), MPI_LONG_LONG, MPI_MAX, comm),
            "MPI_Allreduce");
  if (low != high)
    throw Error(ErrorCode::invalid_argument,
                std::string(what) + ": the ranks were given different sizes or options; every rank must make "
                                    "the same call");
}

void check_mpi(int code, std::string_view call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(ErrorCode::device, std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

void collectively(MPI_Comm comm, const std::function<void()>& step) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int code = -1;
  std::string message;
  try {
    step();
  } catch (const Error& e) {
    code = static_cast<int>(e.code());
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = static_cast<int>(ErrorCode::device);
    message = "out of memory";
  } catch (const std::exception& e) {
    code = static_cast<int>(ErrorCode::device);
    message = std::string("internal error: ") + e.what();
  }
  const int mine = code >= 0 ? rank : size;
  int first = size;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return;
  int header[2] = {code, static_cast<int>(message.size())};
  check_mpi(MPI_Bcast(header, 2, MPI_INT, first, comm), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(header[1]));
  check_mpi(MPI_Bcast(message.data(), header[1], MPI_CHAR, first, comm), "MPI_Bcast");
  const std::string where = size > 1 ? " (rank " + std::to_string(first) + ")" : "";
  throw Error(static_cast<ErrorCode>(header[0]), message + where);
}

namespace {
constexpr std::size_t kByteLimit = std::size_t{1} << 30;
constexpr std::size_t kUnit = std::size_t{1} << 20;
}  // namespace

Bytes::Bytes(std::size_t bytes) {
  if (bytes <= kByteLimit) {
    count_ = static_cast<int>(bytes);
    return;
  }
  if (bytes % kUnit != 0)
    throw Error(ErrorCode::invalid_argument, "a message of " + std::to_string(bytes) + " bytes is not a whole number of MiB");
  check_mpi(MPI_Type_contiguous(static_cast<int>(kUnit), MPI_BYTE, &type_), "MPI_Type_contiguous");
  owned_ = true;
  check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  count_ = static_cast<int>(bytes / kUnit);
}

Bytes::~Bytes() {
  if (owned_) MPI_Type_free(&type_);
}

void alltoall_bytes(const void* send, void* receive, std::size_t bytes, MPI_Comm comm) {
  const Bytes b(bytes);
  check_mpi(MPI_Alltoall(send, b.count(), b.type(), receive, b.count(), b.type(), comm), "MPI_Alltoall");
}

}  // namespace fastconv::distributed::detail
