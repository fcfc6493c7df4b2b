// fastconv/out_of_core.hpp — WHT and dyadic convolution of arrays in files larger than memory.
//
// The values are read and written in tiles sized from a memory budget, with explicit
// positional reads and writes (not memory maps: an address-space limit such as `prlimit --as`
// counts mapped files). For N = 2^n points and tiles of 2^t words (n ≤ 2t):
//
//   pass 1  contiguous tiles: a WHT over the low l bits of the index (rows of 2^l elements);
//   pass 2  tiles of 2^h rows (h = n − l) × L contiguous columns, rows 2^l elements apart in
//           the file: a WHT over the high h bits, the normalisation, and the output order.
//
// Hadamard order takes l = t, so that pass 2 reads and writes runs of L = 2^(2t−n) elements.
// Sequency and Paley orders are a global bit permutation folded into pass 2: the h-bit
// transform of a column, in the h-bit order (reversed for half of the sequency columns), is one
// contiguous run of the output, so pass 2 reads runs of L and writes runs of 2^h elements and
// h is chosen near t/2 to keep both long. A dyadic convolution takes 3 passes over the longer
// operand: pass 1; high-bit WHT, product with the other spectrum, high-bit WHT; low-bit WHT
// and 1/N. The other operand's spectrum stays in memory when it fits (the spectrum of a signal
// of 2^m points zero-padded to 2^n repeats its 2^m-point spectrum), else it is computed in two
// passes into a temporary file.
//
// Results equal the in-memory ones (WhtPlan, convolve, autocorrelate): exactly for integers,
// to rounding for floats. Integers are exact as in memory: the transform runs in the ring of
// the element's width when the magnitude bound gathered by pass 1 proves the result fits, and
// otherwise again, from the input, in a wider ring (one more pass); an overflow or inexact
// normalisation is the in-memory Error. NaN and infinities in float input are rejected with
// the element's index. The output goes to a temporary file beside it, renamed over it only
// when complete: on any error no output exists and an existing file is untouched. Arrays that
// fit the budget are transformed in memory (one read, one write). The functions are reentrant:
// concurrent calls with different output files are safe (each budgets its own tiles).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "fastconv/backend.hpp"
#include "fastconv/types.hpp"
#include "fastconv/wht.hpp"

namespace fastconv {

/// `count` little-endian values of `dtype` at byte `offset` of the file at `path` (e.g. after a
/// .npy header). `count` must be a power of two.
struct FileArray {
  std::filesystem::path path;
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  DType dtype = DType::float64;
};

/// Where a result goes: `prefix` (e.g. a .npy header; "" for raw) and then the values.
struct FileOutput {
  std::filesystem::path path;
  std::string prefix;
};

/// Where a run stands, reported after every tile.
struct OutOfCoreProgress {
  int pass = 0;                  ///< 1-based
  int passes = 0;                ///< the passes planned (an integer result may need one more)
  std::uint64_t bytes_done = 0;  ///< read and written in this pass so far
  std::uint64_t bytes_total = 0;
  double seconds = 0;            ///< since this pass began
};

struct OutOfCoreOptions {
  /// The memory the tiles may take; 0 = half of the smallest of MemAvailable, the cgroup's
  /// memory.max headroom and the RLIMIT_AS headroom (available_memory_bytes()).
  std::uint64_t memory_bytes = 0;
  /// Computes the tiles' transforms (a host backend; its kernels run on host memory).
  Backend backend = Backend::cpu();
  /// Threads of the tile transposes (0 = OpenMP's default).
  int threads = 0;
  std::function<void(const OutOfCoreProgress&)> progress;
};

struct OutOfCoreReport {
  int passes = 0;  ///< sweeps over the data (1 when it was done in memory)
  bool in_memory = false;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  double seconds = 0;
  std::uint64_t memory_bytes = 0;   ///< the budget used
  std::uint64_t tile_elements = 0;  ///< words per tile (0 in memory)
  int low_bits = 0;                 ///< l: pass 1 transforms rows of 2^l elements
  int high_bits = 0;                ///< h: pass 2 transforms columns of 2^h elements
};

/// Half of the smallest of MemAvailable, the cgroup's memory.max − memory.current and
/// RLIMIT_AS − the current address-space size (the limits that are set).
std::uint64_t available_memory_bytes();

/// The WHT of `input` (float32, float64, int32, int64, float16, bfloat16) into `output`, in the
/// input's type, as WhtPlan computes it. Needs tiles of at least 2^⌈n/2⌉ words: a smaller
/// budget is an invalid_argument Error saying how much is needed. Accumulation::float64 on float
/// or 16-bit data is an unsupported Error (convert the data to float64 instead).
OutOfCoreReport wht_file(const FileArray& input, const FileOutput& output, WhtOptions options = {},
                         const OutOfCoreOptions& ooc = {});

/// Dyadic convolution C(τ) = Σₓ f(x)·g(x ⊕ τ) of two files of the same dtype (float32, float64,
/// int32, int64), the shorter zero-padded to the longer, as convolve() computes it.
OutOfCoreReport convolve_files(const FileArray& f, const FileArray& g, const FileOutput& output,
                               const OutOfCoreOptions& ooc = {});

/// Dyadic autocorrelation R(τ) = Σₓ f(x)·f(x ⊕ τ), as autocorrelate() computes it.
OutOfCoreReport autocorrelate_file(const FileArray& f, const FileOutput& output, const OutOfCoreOptions& ooc = {});

}  // namespace fastconv
