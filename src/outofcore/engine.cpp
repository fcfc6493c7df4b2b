#include "outofcore/engine.hpp"

#include <sys/resource.h>

#include <fstream>
#include <limits>
#include <optional>

#include "cpu/order.hpp"

namespace fastconv {

namespace {

/// The first number after `key` in the text file at `path`, or nothing.
std::optional<std::uint64_t> number_after(const std::filesystem::path& path, std::string_view key) {
  std::ifstream in(path);
  std::string word;
  while (in >> word)
    if (word == key) {
      std::uint64_t value = 0;
      if (in >> value) return value;
    }
  return std::nullopt;
}

std::optional<std::uint64_t> number_in(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (in >> value) return value;  // "max" (no limit) fails to parse
  return std::nullopt;
}

/// The memory limit of this process's cgroup less its usage, if it has a limit: v2 ("0::/path",
/// memory.max and memory.current) or v1 ("N:memory:/path", memory.limit_in_bytes and
/// memory.usage_in_bytes; "no limit" there is a huge number, which the minimum ignores).
std::optional<std::uint64_t> cgroup_headroom() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    std::optional<std::uint64_t> limit, used;
    if (line.rfind("0::", 0) == 0) {
      const std::filesystem::path dir = "/sys/fs/cgroup" + line.substr(3);
      limit = number_in(dir / "memory.max"), used = number_in(dir / "memory.current");
    } else if (const auto at = line.find(":memory:"); at != std::string::npos) {
      const std::filesystem::path dir = "/sys/fs/cgroup/memory" + line.substr(at + 8);
      limit = number_in(dir / "memory.limit_in_bytes"), used = number_in(dir / "memory.usage_in_bytes");
    }
    if (limit && used) return *limit > *used ? *limit - *used : 0;
  }
  return std::nullopt;
}

/// RLIMIT_AS − the address space in use (VmSize), if the limit is set.
std::optional<std::uint64_t> address_space_headroom() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const std::uint64_t used = number_after("/proc/self/status", "VmSize:").value_or(0) * 1024;
  return limit.rlim_cur > used ? limit.rlim_cur - used : 0;
}

}  // namespace

std::uint64_t available_memory_bytes() {
  std::uint64_t available = number_after("/proc/meminfo", "MemAvailable:").value_or(0) * 1024;
  for (const auto headroom : {cgroup_headroom(), address_space_headroom()})
    if (headroom) available = std::min(available, *headroom);
  return available / 2;  // the margin: the page cache, and whoever else shares the machine
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
  t = std::min(t, n - 1);  // at least two tiles: pass 2 has high bits to transform
  const int h = balanced ? std::max(n - t, std::min(t, (t + 1) / 2)) : n - t;
  return {n, n - h, h, std::size_t{1} << t};
}

std::uint64_t memory_budget(const OutOfCoreOptions& options) {
  return options.memory_bytes != 0 ? options.memory_bytes : available_memory_bytes();
}

int tile_log2(std::uint64_t budget, std::uint64_t reserved, std::size_t word_bytes, int buffers, int n,
              std::string_view what) {
  const std::uint64_t share = tile_share(budget), tile_bytes = word_bytes * static_cast<std::uint64_t>(buffers);
  const std::uint64_t words = share > reserved ? (share - reserved) / tile_bytes : 0;
  const int t = words == 0 ? -1 : std::bit_width(words) - 1;
  const int needed = (n + 1) / 2;
  if (t < needed) {
    const std::uint64_t minimum = ((std::uint64_t{1} << needed) * tile_bytes + reserved) / 7 * 8 + 8;
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
