#include "outofcore/engine.hpp"

#include <cassert>

#include "core/memory.hpp"
#include "cpu/order.hpp"

namespace fastconv {

std::uint64_t available_memory_bytes() {
  return detail::available_memory_bytes() / 2;  // the margin: the page cache, and whoever else shares the machine
}

}  // namespace fastconv

namespace fastconv::detail::ooc {

Meter::Meter(const OutOfCoreOptions& options, int passes) : options_(options), planned_(passes) {}

void Meter::begin_pass(std::uint64_t bytes_total) {
  ++report_.passes;
  done_ = 0;
  total_ = bytes_total;
  pass_start_ = Clock::now();
}

void Meter::tile_done() const {
  if (!options_.progress) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - pass_start_).count();
  options_.progress({report_.passes, std::max(planned_, report_.passes), done_, total_, seconds});
}

OutOfCoreReport& Meter::finish() {
  report_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  return report_;
}

Geometry plan_geometry(int n, int t, bool balanced) {
  assert(n >= 2);  // the callers transform one or two values in memory
  t = std::min(t, n - 1);  // at least two tiles: pass 2 has high bits to transform
  const int h = balanced ? std::max(n - t, std::min(t, (t + 1) / 2)) : n - t;
  return {n, n - h, h, std::size_t{1} << t};
}

std::uint64_t memory_budget(const OutOfCoreOptions& options) {
  return options.memory_bytes != 0 ? options.memory_bytes : available_memory_bytes();
}

std::uint64_t budget_with_share(std::uint64_t share) noexcept {
  // tile_share(b) = b − ⌊b/8⌋ never decreases, and grows by 7 every 8 bytes
  std::uint64_t b = share + share / 7;
  while (tile_share(b) < share) ++b;
  while (b > 0 && tile_share(b - 1) >= share) --b;
  return b;
}

std::uint64_t smallest_budget(std::uint64_t reserved, std::size_t word_bytes, int buffers, int n) noexcept {
  const int needed = (n + 1) / 2;
  return budget_with_share(reserved + (std::uint64_t{word_bytes} * static_cast<std::uint64_t>(buffers) << needed));
}

int tile_log2(std::uint64_t budget, std::uint64_t reserved, std::size_t word_bytes, int buffers, int n,
              std::string_view what, std::uint64_t minimum) {
  const std::uint64_t share = tile_share(budget), tile_bytes = word_bytes * static_cast<std::uint64_t>(buffers);
  const std::uint64_t words = share > reserved ? (share - reserved) / tile_bytes : 0;
  const int t = words == 0 ? -1 : std::bit_width(words) - 1;
  const int needed = (n + 1) / 2;
  if (t < needed) {
    if (minimum == 0) minimum = smallest_budget(reserved, word_bytes, buffers, n);
    throw Error(ErrorCode::invalid_argument,
                std::string(what) + " of 2^" + std::to_string(n) + " elements out of core needs tiles of 2^" +
                    std::to_string(needed) + " words: at least " + std::to_string(minimum) +
                    " bytes of memory, but the budget is " + std::to_string(budget) + " bytes");
  }
  return t;
}

OrderedRun ordered_run(std::uint64_t j_lo, const Geometry& g, Order order) {
  // The natural index (j_hi = 0, j_lo) sits at Paley position bit_reverse(j): its h low bits,
  // the reversed j_hi, are 0. Sequency position k = gray⁻¹(Paley position); its low bits all
  // equal the parity of the high ones, and an odd parity reverses the run.
  const std::uint64_t paley = cpu::bit_reverse(j_lo, g.n);
  if (order == Order::paley) return {paley, false};
  std::uint64_t k = paley;
  for (int shift = 1; shift < 64; shift <<= 1) k ^= k >> shift;
  const std::uint64_t low = (std::uint64_t{1} << g.h) - 1;
  return {k & ~low, ((k >> g.h) & 1) != 0};
}

int resolve_threads(int threads) noexcept { return threads > 0 ? threads : omp_get_max_threads(); }

std::unique_ptr<AtomicFile> scratch_file(const std::filesystem::path& output, std::string_view what) {
  std::filesystem::path target = output;
  target += "." + std::string(what);
  return std::make_unique<AtomicFile>(target);  // never committed: removed on destruction
}

void require_values(const InputFile& file, const FileArray& array) {
  const std::uint64_t needed = array.offset + array.count * size_of(array.dtype);
  if (file.size() < needed)
    throw Error(ErrorCode::io, file.name() + ": truncated: the array of " + std::to_string(array.count) + " " +
                                   std::string(to_string(array.dtype)) + " values needs " + std::to_string(needed) +
                                   " bytes, the file has " + std::to_string(file.size()));
}

}  // namespace fastconv::detail::ooc
