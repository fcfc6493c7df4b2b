// Helpers shared by the benchmark programs (wht_bench.cpp, ffht_compare.cpp): the size
// range options, aligned test buffers, and a timing loop that measures only the transform.
#pragma once

#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fastconv/fastconv.hpp>

namespace bench {

/// Which sizes a run covers. Each field can be set by a command-line flag
/// (`--fastconv_max_log2n=26`) or, failing that, by an environment variable
/// (`FASTCONV_BENCH_MAX_LOG2N=26`); the flags are removed from argv before Google Benchmark
/// sees it.
struct SizeOptions {
  int min_log2n;            ///< smallest transform
  int max_log2n;            ///< largest transform (big sizes take seconds and GiBs)
  int reference_max_log2n;  ///< largest size the textbook loop (reference backend) runs at
  std::vector<int> dyadic_log2n;  ///< sizes of the dyadic-convolution comparison (ffht_compare)
  std::vector<int> threads = {1, 2};  ///< the cpu backend's thread counts (fastconv_bench)
};

/// Ends the program with a message (exit 2): an option's value is out of range.
[[noreturn]] inline void bad_option(std::string_view what, const std::string& why) {
  std::fprintf(stderr, "error: %.*s %s\n", static_cast<int>(what.size()), what.data(), why.c_str());
  std::exit(2);
}

/// An integer option's value; a malformed one ends the program with a message (exit 2).
inline int parse_int(std::string_view text, std::string_view what) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) {
    std::fprintf(stderr, "error: %.*s: '%.*s' is not an integer\n", static_cast<int>(what.size()), what.data(),
                 static_cast<int>(text.size()), text.data());
    std::exit(2);
  }
  return value;
}

/// "20,22,25" -> {20, 22, 25}.
inline std::vector<int> parse_int_list(std::string_view text, std::string_view what) {
  std::vector<int> values;
  while (!text.empty()) {
    const auto comma = text.find(',');
    values.push_back(parse_int(text.substr(0, comma), what));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return values;
}

/// Reads the options, removing the flags it knows from argv (so that
/// benchmark::ReportUnrecognizedArguments does not reject them). `--help` prints `usage`
/// before Google Benchmark prints its own flags.
inline SizeOptions parse_size_options(int& argc, char** argv, SizeOptions defaults, std::string_view usage) {
  struct Field {
    std::string_view flag, env;
    int* value;
  };
  SizeOptions o = defaults;
  const Field fields[] = {{"--fastconv_min_log2n=", "FASTCONV_BENCH_MIN_LOG2N", &o.min_log2n},
                          {"--fastconv_max_log2n=", "FASTCONV_BENCH_MAX_LOG2N", &o.max_log2n},
                          {"--fastconv_reference_max_log2n=", "FASTCONV_BENCH_REFERENCE_MAX_LOG2N",
                           &o.reference_max_log2n}};
  constexpr std::string_view dyadic_flag = "--fastconv_dyadic_log2n=", dyadic_env = "FASTCONV_BENCH_DYADIC_LOG2N";
  constexpr std::string_view threads_flag = "--fastconv_threads=", threads_env = "FASTCONV_BENCH_THREADS";
  for (const Field& f : fields)
    if (const char* env = std::getenv(std::string(f.env).c_str())) *f.value = parse_int(env, f.env);
  if (const char* env = std::getenv(dyadic_env.data())) o.dyadic_log2n = parse_int_list(env, dyadic_env);
  if (const char* env = std::getenv(threads_env.data())) o.threads = parse_int_list(env, threads_env);

  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    bool consumed = false;
    for (const Field& f : fields)
      if (arg.starts_with(f.flag)) {
        *f.value = parse_int(arg.substr(f.flag.size()), f.flag);
        consumed = true;
      }
    if (arg.starts_with(dyadic_flag)) {
      o.dyadic_log2n = parse_int_list(arg.substr(dyadic_flag.size()), dyadic_flag);
      consumed = true;
    }
    if (arg.starts_with(threads_flag)) {
      o.threads = parse_int_list(arg.substr(threads_flag.size()), threads_flag);
      consumed = true;
    }
    if (arg == "--help" || arg == "-h") std::fwrite(usage.data(), 1, usage.size(), stdout);
    if (!consumed) argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  // The library's sizes are 2^0 … 2^48; an empty range would register nothing and say nothing.
  constexpr int most = 48;  // WhtPlan's largest size
  const auto in_sizes = [&](int v) { return v >= 0 && v <= most; };
  const std::string sizes = "must lie in 0 … " + std::to_string(most);
  if (!in_sizes(o.min_log2n)) bad_option("fastconv_min_log2n", "= " + std::to_string(o.min_log2n) + ": " + sizes);
  if (!in_sizes(o.max_log2n)) bad_option("fastconv_max_log2n", "= " + std::to_string(o.max_log2n) + ": " + sizes);
  if (o.min_log2n > o.max_log2n)
    bad_option("fastconv_min_log2n", "= " + std::to_string(o.min_log2n) + " exceeds fastconv_max_log2n = " +
                                         std::to_string(o.max_log2n) + ": no size to run");
  if (o.reference_max_log2n < 0) bad_option("fastconv_reference_max_log2n", "must be >= 0");
  for (const int n : o.dyadic_log2n)
    if (!in_sizes(n)) bad_option("fastconv_dyadic_log2n", "holds " + std::to_string(n) + ": each " + sizes);
  if (o.threads.empty()) bad_option("fastconv_threads", "is empty: give thread counts, e.g. 1,2");
  for (const int t : o.threads)
    if (t < 1 || t > fastconv::Backend::kMaxCpuThreads)
      bad_option("fastconv_threads", "holds " + std::to_string(t) + ": each must lie in 1 … " +
                                         std::to_string(fastconv::Backend::kMaxCpuThreads));
  o.reference_max_log2n = std::min(o.reference_max_log2n, o.max_log2n);
  return o;
}

/// A buffer aligned to 64 bytes, or to 2 MiB with transparent huge pages requested (madvise)
/// when it is that large. Every implementation under test gets the same kind of buffer.
template <class T>
class Buffer {
 public:
  explicit Buffer(std::size_t size) : size_(size) {
    const std::size_t bytes = std::max<std::size_t>(size * sizeof(T), 64);
    const std::size_t align = bytes >= huge_page ? huge_page : 64;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    data_.reset(static_cast<T*>(std::aligned_alloc(align, rounded)));
    if (!data_) throw std::bad_alloc();
    if (align == huge_page) madvise(data_.get(), rounded, MADV_HUGEPAGE);
    std::memset(static_cast<void*>(data_.get()), 0, rounded);  // fault the pages in now
  }
  T* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  std::span<T> span() const noexcept { return {data_.get(), size_}; }
  std::span<const T> cspan() const noexcept { return {data_.get(), size_}; }

 private:
  static constexpr std::size_t huge_page = std::size_t{2} << 20;
  struct Free {
    void operator()(T* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_;
};

/// Small pseudo-random integers (−3 … 3) stored as T: exact in every type, and an
/// unnormalised transform of up to 2^28 of them still fits int32 (3·2^28 < 2^31). A 64-bit
/// LCG (Knuth's MMIX constants) rather than <random>: filling 2^28 elements must take well
/// under a second, since every repetition of every case fills its own.
template <class T>
Buffer<T> random_buffer(std::size_t size, std::uint64_t seed = 42) {
  Buffer<T> b(size);
  std::uint64_t state = seed;
  for (T& e : b.span()) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    e = static_cast<T>(static_cast<int>((state >> 32) % 7) - 3);  // the high bits: the low ones are periodic
  }
  return b;
}

/// Runs `transform` on `data` once per iteration and reports the time of that call alone
/// (the benchmark must use UseManualTime()). Between calls `data` is restored from `input`,
/// outside the timed region: repeated unnormalised transforms would grow the values by N
/// every two calls (overflowing integers, reaching inf in floating point). Every
/// implementation is timed by this same loop, so the restore treats them all alike.
template <class T, class F>
void time_in_place(benchmark::State& state, int threads, std::span<T> data, std::span<const T> input,
                   F&& transform) {
  using clock = std::chrono::steady_clock;
  // The calling thread restores the array, so that every call finds it where a caller that
  // has just written it would: in the calling thread's cache. (Restored on all OpenMP threads,
  // half of it sat in the other core's cache and a one-thread call first fetched it from
  // there: at 2^12 floats on the Xeon VM 2.1 µs a call instead of 1.2, for FFHT and fastconv
  // alike; a team of `threads` pays that move as a caller would.) Then an empty parallel
  // region wakes the team: workers that sat idle through a long restore fall asleep, and
  // waking a sleeping vCPU costs up to ~0.4 ms on a VM, a cost of the benchmark's pauses, not
  // of the transform.
  const auto restore = [&] {
    std::copy(input.begin(), input.end(), data.begin());
    if (threads > 1) {
#pragma omp parallel num_threads(threads)
      { benchmark::ClobberMemory(); }
    }
  };
  restore();
  for (auto _ : state) {
    const auto start = clock::now();
    transform();
    const auto stop = clock::now();
    benchmark::DoNotOptimize(data.data());
    benchmark::ClobberMemory();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
    restore();
  }
}

/// items = elements transformed (or convolved) per call; bytes = the size of that array.
inline void set_throughput(benchmark::State& state, std::size_t elements, std::size_t element_size) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(iterations * static_cast<std::int64_t>(elements));
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(elements * element_size));
}

/// Milliseconds for big sizes, microseconds for small ones (the JSON has full precision
/// either way; this only keeps the console table readable).
inline benchmark::TimeUnit unit_for(int log2n) {
  return log2n >= 16 ? benchmark::kMillisecond : benchmark::kMicrosecond;
}

/// Whether the library has a dyadic convolution that writes into the caller's output
/// (no allocation per call); without one, the benchmarks time the allocating convolve().
template <class T>
constexpr bool has_convolve_into = requires(std::span<const T> f, std::span<T> out, const fastconv::Backend& b) {
  fastconv::convolve(f, f, out, b);
};

/// Dyadic convolution of f and g with the inputs preserved, into `out` where the library
/// allows it. Returns the result's first element, for DoNotOptimize.
template <class T>
T convolve(std::span<const T> f, std::span<const T> g, std::span<T> out, const fastconv::Backend& backend) {
  if constexpr (has_convolve_into<T>) {
    fastconv::convolve(f, g, out, backend);
    return out[0];
  } else {
    return fastconv::convolve(f, g, backend)[0];
  }
}

template <class T>
constexpr std::string_view convolve_label() {
  return has_convolve_into<T> ? "into the caller's output" : "allocates its result";
}

template <class T>
constexpr std::string_view type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, fastconv::float16>) return "float16";
  else return "bfloat16";
}

}  // namespace bench
