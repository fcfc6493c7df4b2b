// `fastconv wht --distributed` and `fastconv dyadic conv|autocorr --distributed`: the transforms
// over the ranks of MPI_COMM_WORLD (mpirun -np P fastconv ...). Every rank reads its own block
// of the .npy/raw input with collective MPI-IO, the library transforms the distributed array,
// and the blocks are written with collective MPI-IO into a temporary file that rank 0 renames
// over OUTPUT once it is complete. Errors are agreed among the ranks (every rank stops with the
// same one) and printed by rank 0 only.
#include "common.hpp"

#ifdef FASTCONV_HAVE_MPI
#include <filesystem>
#include <iostream>
#include <optional>

#include "core/files.hpp"
#include "core/finite.hpp"
#include "distributed/comm.hpp"
#include "fastconv/distributed.hpp"
#include "io/detail.hpp"
#endif

namespace fastconv::cli {

#ifndef FASTCONV_HAVE_MPI

namespace {
[[noreturn]] void no_mpi() {
  throw Error(ErrorCode::device,
              "--distributed: this fastconv was built without MPI; install Open MPI (apt-get install libopenmpi-dev "
              "openmpi-bin) and rebuild (cmake finds it; -DFASTCONV_MPI=ON is the default), then run it under "
              "mpirun -np P");
}
}  // namespace

int run_wht_distributed(const DistributedArgs&, const std::string&, const std::string&, const WhtOptions&,
                        const ComputeOptions&) {
  no_mpi();
}
int run_dyadic_distributed(const DistributedArgs&, const std::string&, const std::string*, const std::string&,
                           const ComputeOptions&) {
  no_mpi();
}

#else

namespace {

using distributed::detail::check_mpi;
using distributed::detail::collectively;

/// MPI for the length of one command: initialised here unless it already is, finalised after.
class MpiSession {
 public:
  MpiSession() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised == 0) {
      int provided = 0;
      check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      owned_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() {
    if (owned_) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }

 private:
  bool owned_ = false;
  int rank_ = 0;
  int size_ = 1;
};

/// Runs `body` under MPI. An Error (the same on every rank) is printed by rank 0 before any
/// rank exits: mpirun ends the whole job as soon as one rank exits with an error code.
int on_every_rank(const std::function<int(const MpiSession&)>& body) {
  const MpiSession session;
  try {
    return body(session);
  } catch (const Error& e) {
    if (session.rank() == 0) std::cerr << "fastconv: error: " << e.what() << std::endl;
    MPI_Barrier(MPI_COMM_WORLD);
    return exit_code(e);
  } catch (const std::exception& e) {  // on this rank alone (out of memory outside a checked step)
    std::cerr << "fastconv: error: rank " << session.rank() << ": " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}

/// The command every rank was given, agreed in the run's first collective step: ranks given
/// different operations, files, element types or options (an MPMD launch, mpirun -np 1 A :
/// -np 1 B) had waited in collective calls that did not match, crashed in one, or written only
/// rank 0's output. Thread counts may differ: they are each rank's own.
void agree_on_command(std::initializer_list<std::string_view> parts) {
  std::string joined;
  for (const std::string_view part : parts) joined.append(part).push_back('\0');
  distributed::detail::require_agreement(MPI_COMM_WORLD, "--distributed",
                                         {static_cast<long long>(std::hash<std::string>{}(joined))});
}

distributed::Options options_of(const DistributedArgs& args, const ComputeOptions& compute) {
  if (compute.backend != "auto" && compute.backend != "cpu")
    usage_error("--distributed computes each rank's block on the cpu backend (--backend " + compute.backend +
                " is not available with it)");
  distributed::Options options;
  const auto exchange = distributed::parse_exchange(args.exchange);
  if (!exchange) usage_error("--exchange: unknown exchange '" + args.exchange + "': use auto, pairwise or alltoall");
  options.exchange = *exchange;
  options.threads = compute.threads;
  return options;
}

/// A 1-D .npy or raw input, described on every rank (each reads the header itself; a rank
/// that cannot is an error on all of them).
io::ArrayFileLayout describe(const std::string& path, const ComputeOptions& compute) {
  if (path == "-") usage_error("--distributed reads files (.npy or raw), not standard input");
  io::ArrayFileLayout layout;
  collectively(MPI_COMM_WORLD, [&] {
    layout = io::read_array_layout(path, compute.requested_dtype());
    if (layout.shape.size() != 1)
      usage_error(path + ": --distributed transforms 1-D arrays (this one has shape " +
                  std::to_string(layout.shape[0]) + "×" + std::to_string(layout.shape[1]) + ")");
    log2_exact(layout.count(), path + ": the array");
  });
  // The same file everywhere (a node's copy of another size or type would be read past or misread).
  distributed::detail::require_agreement(MPI_COMM_WORLD, path,
                                         {static_cast<long long>(layout.dtype), static_cast<long long>(layout.count()),
                                          static_cast<long long>(layout.data_offset)});
  return layout;
}

/// MPI_File_open on every rank, its failure on any rank an error on all (so that no rank goes
/// on to a collective read or write the others will not join).
MPI_File open_everywhere(const std::string& path, int mode) {
  MPI_File file = MPI_FILE_NULL;
  const int code = MPI_File_open(MPI_COMM_WORLD, path.c_str(), mode, MPI_INFO_NULL, &file);
  collectively(MPI_COMM_WORLD, [&] { check_mpi(code, "MPI_File_open of " + path); });
  return file;
}

/// Elements [first, first + count) of the file's array, zero past its end, read by every rank
/// at once (collective MPI-IO), checked and converted to `dtype`.
io::Array read_block(const std::string& path, const io::ArrayFileLayout& layout, std::uint64_t first,
                     std::size_t count, DType dtype) {
  MPI_File file = open_everywhere(path, MPI_MODE_RDONLY);
  const std::uint64_t total = layout.count();
  const std::size_t present = first < total ? static_cast<std::size_t>(std::min<std::uint64_t>(count, total - first)) : 0;
  io::Array block = with_transform_type(layout.dtype, [&]<class T>() {
    std::vector<T> values(count, T(0));
    const distributed::detail::Bytes bytes(present * sizeof(T));
    const int code = MPI_File_read_at_all(file, static_cast<MPI_Offset>(layout.data_offset + first * sizeof(T)),
                                          values.data(), bytes.count(), bytes.type(), MPI_STATUS_IGNORE);
    MPI_File_close(&file);
    collectively(MPI_COMM_WORLD, [&] { check_mpi(code, "MPI_File_read_at_all of " + path); });
    return io::make_array(std::move(values), 1, count, false);
  });
  collectively(MPI_COMM_WORLD, [&] {
    with_transform_type(layout.dtype, [&]<class T>() {
      fastconv::detail::reject_non_finite(std::span<const T>(block.values<T>()), first, path);
    });
    if (dtype != layout.dtype) block = to_dtype(block, dtype, path, first);
  });
  return block;
}

/// Writes the distributed array whose block `block` starts at element `first` to `path` after
/// `prefix`: collective MPI-IO into a temporary file that rank 0 created and renames over
/// `path` once every rank's block is in it.
void write_blocks(const std::string& path, const std::string& prefix, const io::Array& block, std::uint64_t first,
                  const MpiSession& session) {
  std::optional<fastconv::detail::AtomicFile> file;
  std::string temporary;
  collectively(MPI_COMM_WORLD, [&] {
    if (session.rank() != 0) return;
    file.emplace(path);
    file->write(prefix);
    temporary = file->temporary_path().string();
  });
  int length = static_cast<int>(temporary.size());
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  temporary.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(temporary.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  const std::string_view bytes = io::detail::value_bytes(block);
  MPI_File out = open_everywhere(temporary, MPI_MODE_WRONLY);
  const distributed::detail::Bytes count(bytes.size());
  const auto offset = static_cast<MPI_Offset>(prefix.size() + first * (bytes.size() / block.size()));
  MPI_Status status{};
  const int code = MPI_File_write_at_all(out, offset, bytes.data(), count.count(), count.type(), &status);
  int written = 0;
  if (code == MPI_SUCCESS) MPI_Get_count(&status, count.type(), &written);
  unsigned long long mine = bytes.size(), all = 0;
  check_mpi(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  const int closed = MPI_File_close(&out);
  // A full disk need not fail MPI-IO's call (OMPIO on a full tmpfs returned success and left a
  // truncated file): the count written and, on rank 0, the file's size are checked as well.
  collectively(MPI_COMM_WORLD, [&] {
    check_mpi(code, "MPI_File_write_at_all of " + path);
    if (written != count.count())
      throw Error(ErrorCode::io, path + ": cannot write: MPI-IO wrote part of this rank's block (is the disk full?)");
    check_mpi(closed, "MPI_File_close of " + path);
    if (!file) return;
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(temporary, error);
    if (error) throw Error(ErrorCode::io, path + ": cannot write: " + error.message());
    if (size != prefix.size() + all)
      throw Error(ErrorCode::io, path + ": cannot write: the file holds " + std::to_string(size) + " bytes of the " +
                                     std::to_string(prefix.size() + all) + " written (is the disk full?)");
    file->commit();
  });
}

/// The bytes ahead of the values of OUTPUT, checked before any work is done.
std::string output_prefix(const std::string& path, DType dtype, std::uint64_t total) {
  if (path == "-") usage_error("--distributed writes files (.npy or raw), not standard output");
  return io::array_file_prefix(path, dtype, {total});
}

/// This rank's first element and block length for an array of `total` elements.
std::pair<std::uint64_t, std::size_t> block_range(std::uint64_t total, const MpiSession& session) {
  if (total < static_cast<std::uint64_t>(session.size()))
    usage_error("an array of " + std::to_string(total) + " elements cannot be split over " +
                std::to_string(session.size()) + " ranks (at most one rank per element)");
  const auto count = static_cast<std::size_t>(total / static_cast<std::uint64_t>(session.size()));
  return {static_cast<std::uint64_t>(session.rank()) * count, count};
}

}  // namespace

int run_wht_distributed(const DistributedArgs& args, const std::string& input, const std::string& output,
                        const WhtOptions& wht_options, const ComputeOptions& compute) {
  return on_every_rank([&](const MpiSession& session) {
    agree_on_command({"wht", input, output, args.exchange, compute.backend, compute.variant, compute.device,
                      compute.dtype, std::to_string(static_cast<int>(wht_options.order)),
                      std::to_string(static_cast<int>(wht_options.normalization)),
                      std::to_string(static_cast<int>(wht_options.accumulation))});
    const distributed::Options options = options_of(args, compute);
    const io::ArrayFileLayout layout = describe(input, compute);
    const DType dtype = compute.requested_dtype().value_or(layout.dtype);
    const std::string prefix = output_prefix(output, dtype, layout.count());
    const auto [first, count] = block_range(layout.count(), session);
    io::Array block = read_block(input, layout, first, count, dtype);
    with_transform_type(dtype, [&]<class T>() {
      distributed::wht(std::span<T>(block.values<T>()), MPI_COMM_WORLD, wht_options, options);
    });
    write_blocks(output, prefix, block, first, session);
    return 0;
  });
}

int run_dyadic_distributed(const DistributedArgs& args, const std::string& first_path, const std::string* second_path,
                           const std::string& output, const ComputeOptions& compute) {
  return on_every_rank([&](const MpiSession& session) {
    agree_on_command({second_path != nullptr ? "dyadic conv" : "dyadic autocorr", first_path,
                      second_path != nullptr ? *second_path : "", output, args.exchange, compute.backend, compute.variant,
                      compute.device, compute.dtype});
    const distributed::Options options = options_of(args, compute);
    const io::ArrayFileLayout f = describe(first_path, compute);
    const std::optional<io::ArrayFileLayout> g =
        second_path != nullptr ? std::optional(describe(*second_path, compute)) : std::nullopt;
    DType dtype = f.dtype;
    if (const auto wanted = compute.requested_dtype()) {
      dtype = *wanted;
    } else if (f.dtype == DType::float16 || f.dtype == DType::bfloat16) {  // named as in memory
      refuse_storage_type(f.dtype, first_path + ": ");
    } else if (g && (g->dtype == DType::float16 || g->dtype == DType::bfloat16)) {
      refuse_storage_type(g->dtype, *second_path + ": ");
    } else if (g && g->dtype != f.dtype) {
      usage_error(first_path + " is " + std::string(to_string(f.dtype)) + " and " + *second_path + " is " +
                  std::string(to_string(g->dtype)) + ": give --dtype to compute both in one type");
    }
    const std::uint64_t total = g ? std::max(f.count(), g->count()) : f.count();
    const std::string prefix = output_prefix(output, dtype, total);
    const auto range = block_range(total, session);  // (no structured binding: the lambda below uses both)
    const std::uint64_t first = range.first;
    const std::size_t count = range.second;
    io::Array x = read_block(first_path, f, first, count, dtype);
    with_type(dtype, [&]<class T>() {
      auto& values = x.values<T>();
      if (g) {
        const io::Array h = read_block(*second_path, *g, first, count, dtype);
        distributed::convolve(std::span<const T>(values), std::span<const T>(h.values<T>()), std::span<T>(values),
                              MPI_COMM_WORLD, options);
      } else {
        distributed::autocorrelate(std::span<const T>(values), std::span<T>(values), MPI_COMM_WORLD, options);
      }
    });
    write_blocks(output, prefix, x, first, session);
    return 0;
  });
}

#endif

void add_distributed_options(CLI::App& command, DistributedArgs& args) {
  CLI::Option* flag = command.add_flag("--distributed", args.enabled,
                   "Transform over the ranks of an MPI job (mpirun -np P fastconv ...; P a power of two): "
                   "each rank reads, computes and writes its block of the .npy/raw files");
  command
      .add_option("--exchange", args.exchange,
                  "With --distributed, how the rank bits are crossed: auto (cost model, default), pairwise, alltoall")
      ->needs(flag);
}

}  // namespace fastconv::cli
