// Out-of-core WHT and dyadic convolution against the in-memory results (WhtPlan, convolve,
// autocorrelate), with memory budgets small enough to force many tiles and every pass, through
// the library and the CLI; errors leave no output and an existing output untouched.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "fastconv/dyadic.hpp"
#include "fastconv/out_of_core.hpp"
#include "io/array_io.hpp"

namespace fs = std::filesystem;
using namespace fastconv;

namespace {

/// A fresh directory per test, removed afterwards.
class OutOfCore : public ::testing::Test {
 public:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fastconv_ooc_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path path(const std::string& name) const { return dir_ / name; }
  /// The names in the directory (no temporary file may remain).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed, double magnitude = 100) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_integral_v<T>) {
      x = static_cast<T>(static_cast<long long>(rng() % (2 * static_cast<unsigned long long>(magnitude) + 1)) -
                         static_cast<long long>(magnitude));
    } else {
      x = T(std::uniform_real_distribution<double>(-magnitude, magnitude)(rng));
    }
  }
  return v;
}

/// Writes `values` as a .npy file (bfloat16, which has no NumPy dtype: raw).
template <class T>
FileArray write_array(const fs::path& path, const std::vector<T>& values) {
  io::write_file(path, io::make_array(values, 1, values.size(), false));
  const auto layout = io::read_array_layout(path, dtype_of<T>);
  return {path, layout.data_offset, layout.count(), layout.dtype};
}

template <class T>
std::string extension() {
  return std::is_same_v<T, bfloat16> ? ".bin" : ".npy";
}

template <class T>
FileOutput output_for(const fs::path& path, std::size_t count) {
  return {path, io::array_file_prefix(path, dtype_of<T>, {count})};
}

template <class T>
std::vector<T> read_back(const fs::path& path) {
  return io::read_file(path, dtype_of<T>).template values<T>();
}

/// Exact for integers; floats within a rounding bound relative to the largest result.
template <class T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double largest = 1;
  for (const T& w : want) largest = std::max(largest, std::abs(static_cast<double>(w)));
  const double tolerance = std::is_integral_v<T>          ? 0
                           : std::is_same_v<T, double>    ? 1e-12 * largest
                           : std::is_same_v<T, float>     ? 1e-5 * largest
                           : std::is_same_v<T, float16>   ? 4e-3 * largest
                                                          : 3e-2 * largest;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])), tolerance)
        << what << ": element " << i;
}

OutOfCoreOptions budget(std::uint64_t bytes) {
  OutOfCoreOptions o;
  o.memory_bytes = bytes;
  o.backend = Backend::cpu(2);
  return o;
}

template <class T>
void check_wht(OutOfCore& test, int log2n, std::uint64_t memory, WhtOptions options, bool expect_in_memory) {
  const auto x = random_values<T>(std::size_t{1} << log2n, 7 + log2n);
  const auto in = write_array(test.path("x" + extension<T>()), x);
  const fs::path out = test.path("y" + extension<T>());
  fs::remove(out);
  const std::string what = std::string(to_string(dtype_of<T>)) + " 2^" + std::to_string(log2n) + " " +
                           std::string(to_string(options.order)) + " " + std::string(to_string(options.normalization));
  std::vector<T> want = x;
  try {
    WhtPlan<T>(log2n, options, Backend::cpu(2)).execute(std::span<T>(want));
  } catch (const Error& e) {  // integers: an inexact normalisation is the same Error out of core
    try {
      wht_file(in, output_for<T>(out, x.size()), options, budget(memory));
      ADD_FAILURE() << what << ": expected " << e.what();
    } catch (const Error& f) {
      EXPECT_EQ(f.code(), e.code()) << what;
      EXPECT_EQ(std::string(f.what()), std::string(e.what())) << what;
    }
    EXPECT_FALSE(fs::exists(out)) << what;
    return;
  }
  const auto report = wht_file(in, output_for<T>(out, x.size()), options, budget(memory));
  EXPECT_EQ(report.in_memory, expect_in_memory) << what;
  EXPECT_EQ(report.passes, expect_in_memory ? 1 : 2) << what;
  expect_close(read_back<T>(out), want, what);
}

}  // namespace

TEST_F(OutOfCore, WhtEqualsInMemoryForEveryTypeOrderAndNormalisation) {
  for (const Order order : {Order::hadamard, Order::sequency, Order::paley})
    for (const Normalization norm : {Normalization::none, Normalization::orthonormal, Normalization::inverse}) {
      const WhtOptions options{order, norm};
      // 4 KiB: tiles of 2^8 words (2^7 for 8-byte words) against 2^12 and 2^13 points.
      for (const int log2n : {12, 13}) {
        check_wht<float>(*this, log2n, 4096, options, false);
        check_wht<double>(*this, log2n, 4096, options, false);
        check_wht<std::int32_t>(*this, log2n, 4096, options, false);
        check_wht<std::int64_t>(*this, log2n, 4096, options, false);
        check_wht<float16>(*this, log2n, 4096, options, false);
        check_wht<bfloat16>(*this, log2n, 4096, options, false);
      }
      check_wht<float>(*this, 6, 4096, options, true);
      check_wht<std::int32_t>(*this, 6, 4096, options, true);
    }
}

TEST_F(OutOfCore, LargerArraysAndManyTiles) {
  // 2^18 float in 64 KiB: tiles of 2^13 words, 32 tiles a pass, columns of 2^5.
  check_wht<float>(*this, 18, 64 << 10, {}, false);
  check_wht<float>(*this, 18, 64 << 10, {Order::sequency, Normalization::orthonormal}, false);
  check_wht<std::int64_t>(*this, 17, 64 << 10, {Order::paley, Normalization::none}, false);
}

TEST_F(OutOfCore, IntegerInverseOfATransformIsExact) {
  const int log2n = 12;
  auto x = random_values<std::int32_t>(std::size_t{1} << log2n, 3, 1000);
  auto spectrum = x;
  WhtPlan<std::int32_t>(log2n).execute(std::span<std::int32_t>(spectrum));
  const auto in = write_array(path("s.npy"), spectrum);
  wht_file(in, output_for<std::int32_t>(path("x.npy"), x.size()), {Order::hadamard, Normalization::inverse},
           budget(4096));
  EXPECT_EQ(read_back<std::int32_t>(path("x.npy")), x);
}

TEST_F(OutOfCore, IntegerResultBeyondTheOwnRingTakesAWiderRingAndOnePassMore) {
  std::vector<std::int32_t> x(1 << 12, 0);
  x[5] = 1 << 28;  // the bound 2^28 · 2^12 exceeds int32, the result (±2^28) does not
  const auto in = write_array(path("x.npy"), x);
  const auto report = wht_file(in, output_for<std::int32_t>(path("y.npy"), x.size()), {}, budget(4096));
  EXPECT_EQ(report.passes, 3);
  auto want = x;
  WhtPlan<std::int32_t>(12).execute(std::span<std::int32_t>(want));
  EXPECT_EQ(read_back<std::int32_t>(path("y.npy")), want);
}

TEST_F(OutOfCore, OverflowLeavesNoOutputAndAnExistingOneUntouched) {
  std::vector<std::int32_t> x(1 << 12, 1 << 20);
  const auto in = write_array(path("x.npy"), x);
  { std::ofstream(path("y.npy")) << "keep"; }
  auto copy = x;
  std::string in_memory;
  try {
    WhtPlan<std::int32_t>(12).execute(std::span<std::int32_t>(copy));
  } catch (const Error& e) {
    in_memory = e.what();
  }
  try {
    wht_file(in, output_for<std::int32_t>(path("y.npy"), x.size()), {}, budget(4096));
    FAIL() << "no overflow";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow);
    EXPECT_EQ(std::string(e.what()), in_memory);
  }
  std::ifstream kept(path("y.npy"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "keep");
  EXPECT_EQ(entries(), (std::vector<std::string>{"x.npy", "y.npy"}));
}

namespace {

/// The out-of-core convolution (g set) or autocorrelation of f against the in-memory one:
/// equal results, or the same Error and no output.
template <class T>
void check_dyadic(OutOfCore& test, const std::vector<T>& f, const std::vector<T>* g, std::uint64_t memory,
                  int passes) {
  const auto fa = write_array(test.path("f.npy"), f);
  const fs::path out = test.path("c.npy");
  const std::size_t size = std::max(f.size(), g ? g->size() : 0);
  const std::string what = std::string(to_string(dtype_of<T>)) + (g ? " conv " : " autocorr ") +
                           std::to_string(f.size()) + (g ? " x " + std::to_string(g->size()) : "");
  std::vector<T> want;
  std::string error;
  try {
    want = g ? convolve(f, *g, Backend::cpu(2)) : autocorrelate(f, Backend::cpu(2));
  } catch (const Error& e) {
    error = e.what();
  }
  try {
    const auto report = g ? convolve_files(fa, write_array(test.path("g.npy"), *g), output_for<T>(out, size),
                                           budget(memory))
                          : autocorrelate_file(fa, output_for<T>(out, size), budget(memory));
    EXPECT_EQ(error, "") << what;
    EXPECT_EQ(report.passes, passes) << what;
    expect_close(read_back<T>(out), want, what);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), error) << what;
    EXPECT_FALSE(fs::exists(out)) << what;
  }
  fs::remove(out);
}

template <class T>
void check_dyadic_shapes(OutOfCore& test) {
  const auto f = random_values<T>(1 << 12, 1), g = random_values<T>(1 << 12, 2), h = random_values<T>(1 << 5, 3);
  const auto k = random_values<T>(1 << 9, 4);
  check_dyadic(test, f, &k, 64 << 10, 3);  // the other spectrum (at most 8 KiB) in memory
  check_dyadic(test, f, &g, 4096, 5);      // in a file: two passes more
  check_dyadic(test, f, &h, 4096, 3);      // zero-padded: its 2^5-point spectrum repeats
  check_dyadic(test, h, &f, 4096, 3);      // the longer operand second
  check_dyadic<T>(test, f, nullptr, 4096, 3);
  check_dyadic(test, h, &h, 4096, 1);  // fits: in memory
}

}  // namespace

TEST_F(OutOfCore, DyadicConvolutionAndAutocorrelationEqualInMemory) {
  check_dyadic_shapes<float>(*this);
  check_dyadic_shapes<double>(*this);
  check_dyadic_shapes<std::int32_t>(*this);
  check_dyadic_shapes<std::int64_t>(*this);
}

TEST_F(OutOfCore, IntegerConvolutionNeedingA128BitRingOrOverflowing) {
  // ‖f‖₁·max|g|·N ≈ 2^12·2^30·2^30·2^12 needs Z/2^128, found after g's two passes and f's
  // first in Z/2^64: 3 passes, then 5 again; the sums fit int64.
  const auto f = random_values<std::int64_t>(1 << 12, 4, 1 << 30), g = random_values<std::int64_t>(1 << 12, 5, 1 << 30);
  check_dyadic(*this, f, &g, 4096, 8);
  const std::vector<std::int64_t> big(1 << 12, std::int64_t{1} << 40);  // 2^92: overflows int64
  check_dyadic(*this, big, &big, 4096, 0);
}

TEST_F(OutOfCore, BadInputs) {
  auto x = random_values<float>(1 << 10, 9);
  x[377] = std::nanf("");
  const auto nan = write_array(path("nan.npy"), x);
  try {
    wht_file(nan, output_for<float>(path("y.npy"), x.size()), {}, budget(1024));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("element 377: non-finite value 'nan'"), std::string::npos) << e.what();
  }
  FileArray odd = nan;
  odd.count = 1000;
  EXPECT_THROW(
      try { wht_file(odd, output_for<float>(path("y.npy"), 1000)); } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("not a power of two"), std::string::npos) << e.what();
        throw;
      },
      Error);
  FileArray beyond = nan;
  beyond.count = 2048;  // more values than the file holds
  try {
    wht_file(beyond, output_for<float>(path("y.npy"), 2048));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::io);
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  try {  // tiles of 2^5 words cannot hold a column of 2^10 / 2^5: too little memory
    wht_file(write_array(path("x.npy"), random_values<float>(1 << 12, 1)), output_for<float>(path("y.npy"), 4096), {},
             budget(256));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("needs tiles of 2^6 words"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(), (std::vector<std::string>{"nan.npy", "x.npy"}));
}

// The budget a too-small-budget error names is the least that runs: one byte less gives the
// same error. (For a short second operand, whose spectrum a larger budget keeps in memory with
// two tiles beside it, the error had named the budget of three tiles with the spectrum in a file.)
TEST_F(OutOfCore, TheBudgetAnErrorNamesIsTheLeastThatRuns) {
  const auto least_named = [](const std::function<void(std::uint64_t)>& job, const std::string& what) {
    try {
      job(64);
    } catch (const Error& e) {
      const std::string message = e.what();
      const auto at = message.find("at least ");
      if (e.code() != ErrorCode::invalid_argument || at == std::string::npos) {
        ADD_FAILURE() << what << ": " << message;
        return std::uint64_t{0};
      }
      return static_cast<std::uint64_t>(std::stoull(message.substr(at + 9)));
    }
    ADD_FAILURE() << what << ": ran in 64 bytes";
    return std::uint64_t{0};
  };
  const auto check = [&](const std::function<void(std::uint64_t)>& job, const std::string& what) {
    const std::uint64_t least = least_named(job, what);
    if (least == 0) return;
    EXPECT_NO_THROW(job(least)) << what << " in " << least << " bytes";
    try {
      job(least - 1);
      ADD_FAILURE() << what << " ran in " << least - 1 << " bytes, less than the " << least << " named";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("at least " + std::to_string(least) + " bytes"), std::string::npos)
          << what << ": " << e.what();
    }
  };
  const fs::path out = path("c.npy");
  const auto f = write_array(path("f.npy"), random_values<float>(1 << 12, 3));
  const auto fi = write_array(path("fi.npy"), random_values<std::int32_t>(1 << 12, 4));
  check([&](std::uint64_t b) { fs::remove(out), wht_file(f, output_for<float>(out, 1 << 12), {}, budget(b)); }, "wht");
  check([&](std::uint64_t b) { fs::remove(out), autocorrelate_file(f, output_for<float>(out, 1 << 12), budget(b)); },
        "float autocorrelation");
  for (const int k : {1, 3, 5, 6, 7, 9, 12}) {
    const auto g = write_array(path("g.npy"), random_values<float>(std::size_t{1} << k, 5 + k));
    check([&](std::uint64_t b) { fs::remove(out), convolve_files(f, g, output_for<float>(out, 1 << 12), budget(b)); },
          "float convolution with 2^" + std::to_string(k));
    const auto gi = write_array(path("gi.npy"), random_values<std::int32_t>(std::size_t{1} << k, 6 + k));
    check([&](std::uint64_t b) {
      fs::remove(out), convolve_files(fi, gi, output_for<std::int32_t>(out, 1 << 12), budget(b));
    }, "int32 convolution with 2^" + std::to_string(k));
  }
  fs::remove(out);
}

// float64 accumulation is an in-memory option: refused for float and 16-bit files, before any output
// exists; double files are unaffected by it.
TEST_F(OutOfCore, Float64AccumulationIsRefusedForFloatData) {
  const WhtOptions wide{.accumulation = Accumulation::float64};
  const auto x = write_array(path("x.npy"), random_values<float>(1 << 10, 3));
  try {
    wht_file(x, output_for<float>(path("y.npy"), 1 << 10), wide, budget(1024));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    EXPECT_STREQ(e.what(), "out-of-core WHT: float64 accumulation is not supported (the tiles are transformed in the "
                           "file's own type): convert the data to float64 instead");
  }
  const auto ints = random_values<std::int64_t>(1 << 10, 4);
  const std::vector<double> d(ints.begin(), ints.end());  // integer-valued: every path gives the exact result
  wht_file(write_array(path("d.npy"), d), output_for<double>(path("e.npy"), d.size()), wide, budget(1024));
  auto want = d;
  wht(want);
  EXPECT_EQ(read_back<double>(path("e.npy")), want);
  EXPECT_EQ(entries(), (std::vector<std::string>{"d.npy", "e.npy", "x.npy"}));
}

TEST_F(OutOfCore, AvailableMemoryIsPositive) { EXPECT_GT(available_memory_bytes(), 0u); }

// --- the command line -------------------------------------------------------------------------

namespace {

struct CliRun {
  int code;
  std::string err;
};

CliRun fastconv_cli(const std::string& args, const fs::path& dir) {
  const fs::path err = dir / "stderr.txt";
  const std::string command = std::string(FASTCONV_CLI_PATH) + " " + args + " 2>" + err.string();
  const int status = std::system(command.c_str());
  std::ifstream in(err);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(err);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

}  // namespace

TEST_F(OutOfCore, CliMatchesTheInMemoryCli) {
  write_array(path("x.npy"), random_values<std::int32_t>(1 << 14, 11));
  write_array(path("f.npy"), random_values<double>(1 << 14, 12));
  write_array(path("g.npy"), random_values<double>(1 << 9, 13));
  // A 2-D array of one row: the output keeps the shape (1, N), in memory and out of core.
  io::write_file(path("row.npy"), io::make_array(random_values<float>(1 << 12, 14), 1, 1 << 12, true));
  write_array(path("g32.npy"), random_values<float>(1 << 9, 15));
  const std::string d = dir_.string() + "/";
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"wht --order sequency", "x.npy"},
      {"wht", "row.npy"},
      {"dyadic conv", "row.npy " + d + "g32.npy"},
      {"wht --order paley --inverse --dtype int32", "x.npy"},
      {"dyadic conv", "f.npy " + d + "g.npy"},
      {"dyadic autocorr", "f.npy"},
  };
  for (const auto& [command, inputs] : commands) {
    fs::remove(path("ooc.npy"));
    fs::remove(path("mem.npy"));
    const CliRun ooc = fastconv_cli(command + " --out-of-core --memory 16K " + d + inputs + " " + d + "ooc.npy", dir_);
    const CliRun mem = fastconv_cli(command + " " + d + inputs + " " + d + "mem.npy", dir_);
    ASSERT_EQ(mem.code, ooc.code) << command << ": " << ooc.err;
    if (mem.code != 0) {  // the inverse of random integers is not exact: the same message
      EXPECT_TRUE(ooc.err.ends_with(mem.err)) << command << ": " << ooc.err;  // after the progress lines
      EXPECT_FALSE(fs::exists(path("ooc.npy")));
      continue;
    }
    EXPECT_NE(ooc.err.find("pass 2/"), std::string::npos) << command << ": " << ooc.err;
    // Progress stays within 100 % (a convolution's spectrum file had been read outside its count).
    for (std::size_t at = ooc.err.find('%'); at != std::string::npos; at = ooc.err.find('%', at + 1)) {
      std::size_t digits = at;
      while (digits > 0 && std::isdigit(static_cast<unsigned char>(ooc.err[digits - 1]))) --digits;
      if (digits < at) {
        EXPECT_LE(std::stoi(ooc.err.substr(digits, at - digits)), 100) << command << ": " << ooc.err;
      }
    }
    const auto got = io::read_file(path("ooc.npy"), std::nullopt), want = io::read_file(path("mem.npy"), std::nullopt);
    ASSERT_EQ(got.dtype(), want.dtype()) << command;
    EXPECT_EQ(got.two_d, want.two_d) << command << " " << inputs;
    EXPECT_EQ(got.rows, want.rows) << command << " " << inputs;
    if (got.dtype() == DType::int32) {
      EXPECT_EQ(got.values<std::int32_t>(), want.values<std::int32_t>()) << command;
    } else if (got.dtype() == DType::float32) {
      expect_close(got.values<float>(), want.values<float>(), command);
    } else {
      expect_close(got.values<double>(), want.values<double>(), command);
    }
  }
  const CliRun quiet = fastconv_cli("wht --out-of-core --quiet --memory 16K " + d + "x.npy " + d + "q.bin", dir_);
  EXPECT_EQ(quiet.code, 0);
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(fs::file_size(path("q.bin")), (1u << 14) * 4);
}

// One or two values under budgets of a few bytes: they had looped forever (a tiling of one
// row and no column) or failed as out of memory; they are transformed in memory.
TEST_F(OutOfCore, OneOrTwoValuesUnderAnyBudget) {
  write_array(path("one.npy"), std::vector<std::int64_t>{7});
  write_array(path("two.npy"), std::vector<std::int64_t>{3, 5});
  write_array(path("four.npy"), std::vector<std::int64_t>{3, 5, -2, 7});
  write_array(path("twof.npy"), std::vector<float>{1, 2});
  const std::string d = dir_.string() + "/";
  const struct {
    std::string command;
    std::vector<double> want;
  } cases[] = {
      {"wht " + d + "one.npy", {7}},
      {"wht " + d + "two.npy", {8, -2}},
      {"dyadic autocorr " + d + "twof.npy", {5, 4}},
      {"dyadic conv " + d + "four.npy " + d + "two.npy", {34, 30, 29, 11}},  // C(t) = Σx f(x)·g(x ⊕ t)
  };
  for (const auto& c : cases)
    for (const int budget : {16, 20, 24, 40, 60}) {
      const std::string what = c.command + " --memory " + std::to_string(budget);
      fs::remove(path("o.npy"));
      const CliRun run = fastconv_cli(c.command + " --out-of-core --quiet --memory " + std::to_string(budget) + " " +
                                          d + "o.npy",
                                      dir_);
      if (run.code == 2 && c.command.starts_with("dyadic conv") && budget < 60) {  // four values: tiled
        EXPECT_NE(run.err.find("out of core needs tiles of"), std::string::npos) << what << ": " << run.err;
        continue;
      }
      ASSERT_EQ(run.code, 0) << what << ": " << run.err;
      const auto got = io::convert(io::read_file(path("o.npy"), std::nullopt), DType::float64, "o.npy");
      EXPECT_EQ(got.values<double>(), c.want) << what;
    }
}

TEST_F(OutOfCore, CliErrors) {
  { std::ofstream(path("x.txt")) << "1 2 3 4\n"; }
  write_array(path("x.npy"), random_values<float>(1 << 10, 1));
  { std::ofstream(path("short.npy")) << "\x93NUMPY"; }
  const std::string d = dir_.string() + "/";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"wht --out-of-core " + d + "x.txt " + d + "y.npy", "text cannot be read in pieces"},
      {"wht --out-of-core - " + d + "y.npy", "text cannot be read in pieces"},
      {"wht --out-of-core " + d + "x.npy " + d + "y.txt", "a text file cannot be written in pieces"},
      {"wht --out-of-core --memory 4X " + d + "x.npy " + d + "y.npy", "--memory: '4X' is not a size"},
      // Found by fuzz_cli: the size wrapped around 64 bits and the run went on with another one.
      {"wht --out-of-core --memory 999999999999999T " + d + "x.npy " + d + "y.npy",
       "--memory: '999999999999999T' is more than 2^64 bytes"},
      {"wht --out-of-core --dtype float64 " + d + "x.npy " + d + "y.npy", "computes in the file's own type"},
      {"wht --out-of-core " + d + "short.npy " + d + "y.npy", "short.npy"},
      {"dyadic autocorr --out-of-core --memory 256 " + d + "x.npy " + d + "y.npy", "needs tiles of 2^5 words"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = fastconv_cli(args, dir_);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("fastconv: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(path("y.npy")));
}
