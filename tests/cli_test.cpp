// The fastconv command line: results on the seed's examples, and every error path checked
// for its message, its exit code and the absence of any output file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fastconv/backend.hpp"
#include "fastconv/conv2d.hpp"
#include "io/array_io.hpp"

#ifndef FASTCONV_CLI_PATH
#error "FASTCONV_CLI_PATH must point at the fastconv executable"
#endif

namespace fs = std::filesystem;

namespace {

struct Result {
  int code;
  std::string out, err;
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// One field of a flat JSON object: a string (unescaped) or a number (as written).
struct JsonField {
  std::string key, value;
  bool is_string;
};

/// Parses a flat JSON object whose values are strings or numbers, e.g. {"op":"wht","log2n":4};
/// nullopt if `text` is anything else.
std::optional<std::vector<JsonField>> parse_flat_json(const std::string& text) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  const auto string = [&]() -> std::optional<std::string> {
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    std::string out;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && ++i == text.size()) return std::nullopt;
      out += text[i];
    }
    if (i++ >= text.size()) return std::nullopt;
    return out;
  };
  std::vector<JsonField> fields;
  skip_space();
  if (i >= text.size() || text[i++] != '{') return std::nullopt;
  for (;;) {
    skip_space();
    const auto key = string();
    if (!key) return std::nullopt;
    skip_space();
    if (i >= text.size() || text[i++] != ':') return std::nullopt;
    skip_space();
    if (const auto value = string()) {
      fields.push_back({*key, *value, true});
    } else {
      const std::size_t start = i;
      while (i < text.size() && std::string_view("+-.0123456789eE").find(text[i]) != std::string_view::npos) ++i;
      const std::string number = text.substr(start, i - start);
      char* end = nullptr;
      if (number.empty() || (std::strtod(number.c_str(), &end), *end != '\0')) return std::nullopt;
      fields.push_back({*key, number, false});
    }
    skip_space();
    if (i >= text.size()) return std::nullopt;
    if (text[i] == '}') break;
    if (text[i++] != ',') return std::nullopt;
  }
  ++i;
  skip_space();
  if (i != text.size()) return std::nullopt;
  return fields;
}

/// The fields every `fastconv bench --json` line starts with, in this order.
const std::vector<std::string> kBenchKeys = {"op",    "backend", "variant", "dtype",
                                             "log2n", "batch",   "threads", "median_ms"};

/// The fields of one `fastconv bench --json` line by key, after checking the line's form: a flat
/// object starting with kBenchKeys, strings and numbers where they belong, a positive median.
std::map<std::string, std::string> bench_record(const std::string& line) {
  const auto fields = parse_flat_json(line);
  EXPECT_TRUE(fields) << "not a flat JSON object: " << line;
  if (!fields) return {};
  EXPECT_GE(fields->size(), kBenchKeys.size()) << line;
  std::map<std::string, std::string> record;
  for (std::size_t k = 0; k < fields->size(); ++k) {
    const JsonField& f = (*fields)[k];
    if (k < kBenchKeys.size()) {
      EXPECT_EQ(f.key, kBenchKeys[k]) << line;
    }
    EXPECT_EQ(f.is_string, k < 4 || f.key == "description") << f.key << " in " << line;  // bench gajic's last key
    record[f.key] = f.value;
  }
  EXPECT_GT(std::stod(record["median_ms"]), 0) << line;
  EXPECT_GE(std::stoi(record["threads"]), 1) << line;
  return record;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fastconv_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path path(const std::string& name) const { return dir_ / name; }

  void write(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
  }

  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  /// For runs that open several OpenCL contexts: LeakSanitizer's tracer (Clang 14) crashes reading
  /// the thread-local storage of PoCL's threads there, so those runs skip its check at exit (the
  /// same code is leak-checked by the other tests, one context at a time).
  static constexpr const char* kSeveralOpenClContexts = "ASAN_OPTIONS=detect_leaks=0 ";

  /// Runs `fastconv ARGS` in the test directory with `input` on stdin.
  /// `env` ("NAME=value ") is put before the command.
  Result run(const std::string& args, const std::string& input = "", const std::string& env = "") const {
    write(".stdin", input);
    const std::string cmd = "cd '" + dir_.string() + "' && " + env + "'" FASTCONV_CLI_PATH "' " + args +
                            " < .stdin > .stdout 2> .stderr";
    const int status = std::system(cmd.c_str());
    Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(path(".stdout")), read(path(".stderr"))};
    fs::remove(path(".stdin"));
    fs::remove(path(".stdout"));
    fs::remove(path(".stderr"));
    return r;
  }

  /// Files in the test directory (to check that a failed run left nothing behind).
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  /// A failing run: exit 2, one "fastconv: error:" line containing `fragment`, no stdout, and
  /// the directory exactly as before.
  void expect_bad_input(const std::string& args, const std::string& fragment, const std::string& input = "") {
    const auto before = files();
    const Result r = run(args, input);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("fastconv: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << "expected '" << fragment << "' in: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(files(), before) << args;
  }

  fs::path dir_;
};

TEST_F(Cli, IssueExamples) {
  EXPECT_EQ(run("wht", "1 0 1 1\n").out, "3 1 -1 1\n");
  write("f.txt", "1 0 1 1\n");
  write("g.txt", "0 1 0 1\n");
  const Result r = run("dyadic conv f.txt g.txt");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "1 2 1 2\n");
}

TEST_F(Cli, WhtOptions) {
  EXPECT_EQ(run("wht --order sequency", "1 0 1 1").out, "3 -1 1 1\n");
  EXPECT_EQ(run("wht --order paley", "1 0 1 1").out, "3 -1 1 1\n");
  EXPECT_EQ(run("wht --inverse", "3 1 -1 1").out, "1 0 1 1\n");
  EXPECT_EQ(run("wht --normalize inverse --dtype float64", "1 0 1 1").out, "0.75 0.25 -0.25 0.25\n");
  EXPECT_EQ(run("wht --normalize orthonormal", "1 1 1 1").out, "2 0 0 0\n");
  EXPECT_EQ(run("wht --backend reference --dtype float32", "0.1 0.2").out, "0.3 -0.1\n");
  EXPECT_EQ(run("wht", "# a comment\n1, 0\n0, 1\n").out, "1 1\n1 -1\n");  // a batch of two rows
  EXPECT_EQ(run("wht --threads 1 - -", "5").out, "5\n");
}

TEST_F(Cli, FilesInEveryFormat) {
  write("x.txt", "1 2 3 4 5 6 7 8\n");
  ASSERT_EQ(run("wht x.txt y.npy").code, 0);
  const auto y = fastconv::io::read_npy(path("y.npy"));
  EXPECT_EQ(y.values<std::int64_t>(), (std::vector<std::int64_t>{36, -4, -8, 0, -16, 0, 0, 0}));
  ASSERT_EQ(run("wht --inverse y.npy z.bin").code, 0);
  EXPECT_EQ(fs::file_size(path("z.bin")), 64u);
  const Result r = run("wht --dtype int64 z.bin -");
  EXPECT_EQ(r.out, "36 -4 -8 0 -16 0 0 0\n") << r.err;
  ASSERT_EQ(run("dyadic autocorr x.txt r.csv").code, 0);
  EXPECT_EQ(read(path("r.csv")), "204 200 188 184 140 136 124 120\n");
}

// 16-bit storage, computed in float: each result rounded once to the 16-bit type.
TEST_F(Cli, WhtOfHalfFloats) {
  // float16 0.1 + 0.2 = 0.2999267578125 in float, halfway between two float16s: to even.
  EXPECT_EQ(run("wht --dtype float16", "0.1 0.2").out, "0.2998047 -0.099975586\n");
  EXPECT_EQ(run("wht --dtype half --normalize orthonormal", "1 1").out, "1.4140625 0\n");
  EXPECT_EQ(run("wht --dtype bf16 --backend reference", "1000 1").out, "1000 1000\n");  // 1001, 999 rounded
  EXPECT_EQ(run("wht --dtype float16", "40000 40000").out, "inf 0\n");
  write("x.txt", "1 2 3 4\n5 6 7 8\n");
  ASSERT_EQ(run("wht --dtype f2 x.txt y.npy").code, 0);
  const auto y = fastconv::io::read_npy(path("y.npy"));
  ASSERT_EQ(y.dtype(), fastconv::DType::float16);
  EXPECT_EQ(y.rows, 2u);
  EXPECT_EQ(run("wht --inverse y.npy -").out, "1 2 3 4\n5 6 7 8\n");  // .npy <f2 keeps its type
  write("x8.txt", "1 2 3 4 5 6 7 8\n");
  ASSERT_EQ(run("wht --dtype bfloat16 x8.txt y.bin").code, 0);
  EXPECT_EQ(fs::file_size(path("y.bin")), 16u);
  EXPECT_EQ(run("wht --dtype bfloat16 --inverse y.bin -").out, "1 2 3 4 5 6 7 8\n");
  const Result npy = run("wht --dtype bfloat16 x.txt z.npy");
  EXPECT_EQ(npy.code, 2);
  EXPECT_NE(npy.err.find("bfloat16 has no NumPy dtype"), std::string::npos) << npy.err;
  const Result dyadic = run("dyadic autocorr --dtype float16", "1 0 1 1");
  EXPECT_EQ(dyadic.code, 2);
  EXPECT_NE(dyadic.err.find("float16 is a storage type of the WHT only"), std::string::npos) << dyadic.err;
  // A float16 .npy operand is refused beside any other operand (promotion had made it float64
  // beside a text file's values, and refused it beside another float16).
  write("g.txt", "1 1 0 0\n");
  ASSERT_EQ(run("wht --dtype f2 g.txt h.npy").code, 0);
  for (const std::string operands : {"h.npy g.txt", "g.txt h.npy", "h.npy h.npy"})
    expect_bad_input("dyadic conv " + operands, "h.npy: float16 is a storage type of the WHT only");
  EXPECT_EQ(run("dyadic conv --dtype float32 g.txt g.txt").out, "2 2 0 0\n");
}

// --accumulate float64: float data computed in double, each result rounded once.
TEST_F(Cli, AccumulateInFloat64) {
  // y[0] = 2^24 + 1 + 1 + 0: float rounds 2^24 + 1 back to 2^24 on the way; double does not.
  EXPECT_EQ(run("wht --dtype float32", "16777216 1 1 0").out, "16777216 16777216 16777215 16777214\n");
  EXPECT_EQ(run("wht --dtype float32 --accumulate float64", "16777216 1 1 0").out,
            "16777218 16777216 16777216 16777214\n");
  EXPECT_EQ(run("wht --dtype float32 --accumulate double --backend reference", "16777216 1 1 0").out,
            "16777218 16777216 16777216 16777214\n");
  EXPECT_EQ(run("wht --dtype float32 --accumulate native", "16777216 1 1 0").out,
            "16777216 16777216 16777215 16777214\n");
  EXPECT_EQ(run("wht --dtype bfloat16 --accumulate float64", "1000 1").out, "1000 1000\n");
  EXPECT_EQ(run("wht --accumulate float64", "1 0 1 1").out, "3 1 -1 1\n");  // int64: unaffected
  write("f.txt", "16777216 1 1 0");
  write("d.txt", "1 0 0 0");
  EXPECT_EQ(run("dyadic conv f.txt d.txt --dtype float32").out, "16777215 0.25 1 -0.25\n");
  EXPECT_EQ(run("dyadic conv f.txt d.txt --dtype float32 --accumulate float64").out, "16777216 1 1 0\n");
  EXPECT_EQ(run("dyadic autocorr f.txt --dtype float32 --accumulate float64").out,
            "2.8147498e+14 33554432 33554432 2\n");  // exact: 281474976710658 33554432 33554432 2
  EXPECT_EQ(run("dyadic deconv f.txt d.txt --dtype float32 --accumulate float64").out, "16777216 1 1 0\n");
}

TEST_F(Cli, AccumulateErrors) {
  write("f.txt", "1 0 1 1");
  const auto expect_message = [&](const std::string& args, const std::string& message, const std::string& input) {
    expect_bad_input(args, message, input);
    EXPECT_EQ(run(args, input).err, "fastconv: error: " + message + "\n") << args;
  };
  expect_message("wht --accumulate quad", "--accumulate: unknown accumulation 'quad': use native or float64", "1 2");
  expect_message("dyadic autocorr f.txt --accumulate Float64",
                 "--accumulate: unknown accumulation 'Float64': use native or float64", "");
  expect_message("wht --out-of-core --accumulate float64 f.txt y.npy",
                 "--accumulate float64 is not supported with --out-of-core: convert the data to float64 instead", "");
  expect_message("dyadic conv --out-of-core --accumulate float64 f.txt f.txt y.npy",
                 "--accumulate float64 is not supported with --out-of-core: convert the data to float64 instead", "");
  expect_message("dyadic autocorr --distributed --accumulate double f.txt y.npy",
                 "--accumulate double is not supported with --distributed: convert the data to float64 instead", "");
}

TEST_F(Cli, DyadicOperations) {
  write("f.txt", "1 0 1 1");
  write("g.txt", "0 1 0 1");
  write("h2.txt", "1 2");
  EXPECT_EQ(run("dyadic conv f.txt h2.txt").out, "1 2 3 3\n");  // h zero-padded to 4
  EXPECT_EQ(run("dyadic conv - g.txt", "1 0 1 1\n0 0 0 1").out, "1 2 1 2\n1 0 1 0\n");  // rows of F
  EXPECT_EQ(run("dyadic deconv - g.txt", "1 2 1 2").code, 2);  // g's spectrum has zeros
  write("h.txt", "2 1 0 0");
  const Result y = run("dyadic conv f.txt h.txt");
  EXPECT_EQ(y.out, "2 1 3 3\n");
  EXPECT_EQ(run("dyadic deconv - h.txt", y.out).out, "1 0 1 1\n");
  EXPECT_EQ(run("dyadic deconv --dtype int64 - h.txt", y.out).out, "1 0 1 1\n");
  EXPECT_EQ(run("dyadic autocorr", "1 0 1 1").out, "3 2 2 2\n");
}

TEST_F(Cli, HelpAndVersion) {
  for (const std::string cmd : {"", "wht ", "dyadic ", "dyadic conv ", "dyadic autocorr ", "dyadic deconv ",
                                "info ", "demo ", "bench ", "bench wht ", "bench dyadic ",
                                "bench gajic "}) {
    const Result r = run(cmd + "--help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << cmd << r.out;
  }
  EXPECT_EQ(run("--version").out, "fastconv 0.1.0\n");
  const Result info = run("info");
  EXPECT_EQ(info.code, 0);
  EXPECT_NE(info.out.find("reference"), std::string::npos);
  EXPECT_NE(info.out.find("cpu:"), std::string::npos);
  // conv2d's FFT library, as the build chose it (FASTCONV_FFT), with its version.
  const std::string fft = fastconv::conv2d_fft_library();
  EXPECT_TRUE(fft.starts_with("fftw-3.") || fft.starts_with("Intel MKL 20")) << fft;
  EXPECT_NE(info.out.find("conv2d FFTs (cpu): " + fft + "\n"), std::string::npos) << info.out;
}

TEST_F(Cli, InfoListsVariants) {
  const Result info = run("info");
  ASSERT_EQ(info.code, 0) << info.err;
  for (const fastconv::Backend& backend : {fastconv::Backend::reference(), fastconv::Backend::cpu()}) {
    std::string expected = "variants:";
    for (const std::string& v : backend.variants())
      expected += (expected.back() == ':' ? " " : ", ") + v + (v == backend.variant() ? " (default)" : "");
    EXPECT_NE(info.out.find(expected), std::string::npos) << "expected '" << expected << "' in:\n" << info.out;
  }
  EXPECT_NE(info.out.find("textbook (default)"), std::string::npos) << info.out;
}

TEST_F(Cli, VariantsGiveTheSameResults) {
  const std::string x = "3 -1 4 1 -5 9 2 -6 5 3 -5 8 9 -7 9 3\n";
  const Result reference = run("wht --backend reference --variant textbook", x);
  ASSERT_EQ(reference.code, 0) << reference.err;
  EXPECT_EQ(reference.out, run("wht", x).out);
  EXPECT_EQ(reference.out, "32 12 0 4 4 -20 4 28 -18 -10 10 -46 10 46 -26 18\n");  // checked by the O(N²) sum
  write("g.txt", "3 1 0 1 0 0 0 0 0 0 0 0 0 0 0 0");  // Walsh spectrum 3 ± 1 ± 1: never zero
  const std::string conv = run("dyadic conv - g.txt", x).out;
  EXPECT_EQ(conv, "9 4 12 10 -12 24 9 -21 26 9 -4 24 23 -3 23 27\n");  // checked by the O(N²) sum
  for (const std::string& v : fastconv::Backend::cpu().variants()) {
    EXPECT_EQ(run("wht --variant " + v, x).out, reference.out) << v;
    EXPECT_EQ(run("wht --backend cpu --threads 1 --dtype float64 --variant " + v, x).out, reference.out) << v;
    EXPECT_EQ(run("dyadic conv - g.txt --variant " + v, x).out, conv) << v;
  }
  EXPECT_EQ(run("dyadic conv - g.txt --backend reference --variant textbook", x).out, conv);
  EXPECT_EQ(run("dyadic autocorr --backend reference --variant textbook", "1 0 1 1").out, "3 2 2 2\n");
  EXPECT_EQ(run("dyadic deconv - g.txt --backend reference --variant textbook", conv).out, x);
  EXPECT_EQ(run("dyadic deconv - g.txt --dtype int64 --backend reference --variant textbook", conv).out, x);
}

TEST_F(Cli, UnknownVariantListsTheValidOnes) {
  std::string cpu_variants;
  for (const std::string& v : fastconv::Backend::cpu().variants())
    cpu_variants += (cpu_variants.empty() ? "" : ", ") + v;
  expect_bad_input("wht --variant bogus",
                   "unknown variant 'bogus' of backend cpu: valid variants on this CPU are " + cpu_variants, "1 2");
  expect_bad_input("wht --backend reference --variant avx2",
                   "unknown variant 'avx2' of backend reference: valid variants are textbook", "1 2");
  write("f.txt", "1 0 1 1");
  expect_bad_input("dyadic conv f.txt f.txt --variant bogus", cpu_variants);
  expect_bad_input("dyadic autocorr f.txt --variant bogus", cpu_variants);
  expect_bad_input("dyadic deconv f.txt f.txt --backend reference --variant bogus", "valid variants are textbook");
  expect_bad_input("bench wht --variant bogus --log2n 2", cpu_variants);
  expect_bad_input("bench dyadic --backend reference --variant bogus --log2n 2", "valid variants are textbook");
}

TEST_F(Cli, BenchWhtJson) {
  const Result r = run("bench wht --log2n 4:6 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  const fastconv::Backend best = fastconv::Backend::best();
  for (int k = 0; k < 3; ++k) {
    auto record = bench_record(out[k]);
    EXPECT_EQ(record["op"], "wht");
    EXPECT_EQ(record["backend"], best.name());
    EXPECT_EQ(record["variant"], best.variant());
    EXPECT_EQ(record["dtype"], "float32");
    EXPECT_EQ(record["log2n"], std::to_string(4 + k));
    EXPECT_EQ(record["batch"], "1");
    EXPECT_GE(std::stoi(record["repeats"]), 5);  // adaptive: at least 5 runs
  }
}

TEST_F(Cli, BenchOptions) {
  Result r = run("bench wht --backend reference --variant textbook --threads 3 --log2n 3 --batch 4 "
                 "--dtype int32,float64 --dtype i8 --repeats 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  const char* dtypes[] = {"int32", "float64", "int64"};
  for (int k = 0; k < 3; ++k) {
    auto record = bench_record(out[k]);
    EXPECT_EQ(record["backend"], "reference");
    EXPECT_EQ(record["variant"], "textbook");
    EXPECT_EQ(record["dtype"], dtypes[k]);
    EXPECT_EQ(record["log2n"], "3");
    EXPECT_EQ(record["batch"], "4");
    EXPECT_EQ(record["threads"], "1");  // the reference backend runs on one thread
    EXPECT_EQ(record["repeats"], "2");
  }
  r = run("bench wht --backend cpu --threads 2 --log2n 5 --repeats 1 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(bench_record(r.out)["threads"], "2");

  r = run("bench wht --log2n 2:3 --repeats 3");  // the table
  ASSERT_EQ(r.code, 0) << r.err;
  out = lines(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  for (const char* column :
       {"op", "backend", "variant", "dtype", "log2n", "batch", "threads", "median ms", "elem/ns", "GB/s"})
    EXPECT_NE(out[0].find(column), std::string::npos) << column << " in " << out[0];
  EXPECT_EQ(out[1].rfind("wht ", 0), 0u) << out[1];

  r = run("bench wht --order walsh --log2n 9 --repeats 1 --json");  // ordered: the op says which order
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(bench_record(r.out)["op"], "wht-sequency");
  r = run("bench wht --order paley --log2n 2:3 --repeats 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out)[1].rfind("wht-paley ", 0), 0u) << r.out;
}

TEST_F(Cli, BenchDyadic) {
  Result r = run("bench dyadic --log2n 3:4 --batch 2 --dtype int32,float64 --repeats 3 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 8u) << r.out;  // 2 types x 2 sizes x 2 operations
  for (std::size_t k = 0; k < out.size(); ++k) {
    auto record = bench_record(out[k]);
    EXPECT_EQ(record["op"], k % 2 ? "dyadic-system" : "dyadic");
    EXPECT_EQ(record["dtype"], k < 4 ? "int32" : "float64");
    EXPECT_EQ(record["log2n"], std::to_string(3 + k / 2 % 2));
    EXPECT_EQ(record["batch"], "2");
    EXPECT_EQ(record["repeats"], "3");
  }
  r = run("bench dyadic --backend reference --log2n 6");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out).size(), 3u) << r.out;
  EXPECT_NE(r.out.find("dyadic-system reference textbook"), std::string::npos) << r.out;
}

TEST_F(Cli, BenchUsageErrors) {
  expect_bad_input("bench", "subcommand");
  expect_bad_input("bench wht --log2n 5:3", "--log2n 5:3: the range is empty");
  expect_bad_input("bench wht --log2n 41", "--log2n 41: 41 is too large: sizes go up to 2^40");
  expect_bad_input("bench dyadic --log2n 2:99", "too large");
  expect_bad_input("bench wht --log2n 2-4", "--log2n: '2-4' is not a size");
  expect_bad_input("bench wht --log2n :4", "not a size");
  expect_bad_input("bench wht --dtype float32,complex64", "--dtype: unknown type 'complex64'");
  expect_bad_input("bench wht --batch 0", "--batch: '0' is not a whole number >= 1");
  expect_bad_input("bench wht --order gray --log2n 3", "--order: unknown order 'gray': use hadamard, sequency or paley");
  expect_bad_input("bench dyadic --order sequency", "--order");
  expect_bad_input("bench dyadic --repeats -1", "--repeats");
  expect_bad_input("bench wht --backend gpu", "valid backends are auto, reference, cpu");
  expect_bad_input("bench wht --log2n 40 --batch 100000000", "more elements than memory can address");
}

// Sizes whose buffers cannot fit the memory this process may use are refused before the table's
// first row: exit 1 (the machine's limit, not the arguments' form), one line saying what needs
// how much, and what to change. 2^40 float32 points need 8 TiB for the input and the array.
TEST_F(Cli, BenchRefusesSizesBeyondMemory) {
  for (const auto& [args, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"bench wht --log2n 10:40 --repeats 1", "bench wht at 2^40 float32 points needs 8.0 TiB, "},
           {"bench wht --dtype float32,float64 --log2n 39 --repeats 1", "bench wht at 2^39 float32 points needs 4.0 TiB, "},
           {"bench dyadic --dtype float64 --log2n 38 --batch 2", "bench dyadic at 2^38 float64 points in 2 rows needs 16.0 TiB, "}}) {
    const auto before = files();
    const Result r = run(args);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
    EXPECT_EQ(r.err.rfind("fastconv: error: " + fragment, 0), 0u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(" available: use a smaller --log2n or --batch\n"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(files(), before) << args;
  }
}

TEST_F(Cli, BenchGajicTable) {
  if (fastconv::devices().empty()) {
    const Result r = run("bench gajic --log2n 4 --repeats 1");  // the library's device error
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.err.rfind("fastconv: error: ", 0), 0u) << r.err;
    GTEST_SKIP() << "no OpenCL device (fastconv::devices() is empty): `bench gajic` needs one; checked that it "
                    "exits 1 with the device error";
  }
  Result r = run("bench gajic --log2n 4,6 --repeats 1", "", kSeveralOpenClContexts);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;  // header line, blank, column header, separator, n = 4 and 6
  EXPECT_EQ(out[0].rfind("OpenCL device: opencl: ", 0), 0u) << out[0];
  EXPECT_NE(out[0].find("cpu backend: cpu: "), std::string::npos) << out[0];
  EXPECT_EQ(out[1], "");
  EXPECT_EQ(out[2],
            "| n | textbook (ms) | cpu (ms) | gajic2011 compute | gajic2011 transfer | fast compute | fast transfer "
            "| fast total | gajic2011 total / fast total |");
  EXPECT_EQ(out[3], "|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (int k = 0; k < 2; ++k) {
    const std::string& row = out[4 + k];
    EXPECT_EQ(row.rfind("| " + std::to_string(4 + 2 * k) + " | ", 0), 0u) << row;
    EXPECT_EQ(std::count(row.begin(), row.end(), '|'), 10) << row;
    EXPECT_EQ(row.find(" - "), std::string::npos) << row;  // the textbook loop ran
  }

  r = run("bench gajic --log2n 5 --repeats 2 --reference-max-n 4");  // no textbook column above 4
  ASSERT_EQ(r.code, 0) << r.err;
  out = lines(r.out);
  ASSERT_EQ(out.size(), 5u) << r.out;
  EXPECT_EQ(out[4].rfind("| 5 | - | ", 0), 0u) << out[4];
}

TEST_F(Cli, BenchGajicJson) {
  if (fastconv::devices().empty()) GTEST_SKIP() << "no OpenCL device (fastconv::devices() is empty)";
  const Result r = run("bench gajic --log2n 3 --repeats 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 4u) << r.out;  // textbook, cpu, gajic2011, fast
  const char* backends[] = {"reference", "cpu", "opencl", "opencl"};
  for (int k = 0; k < 4; ++k) {
    auto record = bench_record(out[k]);
    EXPECT_EQ(record["op"], "dyadic");
    EXPECT_EQ(record["backend"], backends[k]);
    EXPECT_EQ(record["dtype"], "float32");
    EXPECT_EQ(record["log2n"], "3");
    EXPECT_EQ(record["repeats"], "2");
    EXPECT_EQ(record.count("compute_ms"), k >= 2 ? 1u : 0u) << out[k];
    EXPECT_EQ(record.count("transfer_ms"), k >= 2 ? 1u : 0u) << out[k];
    EXPECT_EQ(record.count("description"), 1u) << out[k];
  }
  EXPECT_EQ(bench_record(out[2])["variant"], "gajic2011");
  EXPECT_EQ(bench_record(out[3])["variant"], "fast");
  EXPECT_GT(std::stod(bench_record(out[2])["compute_ms"]), 0);
  EXPECT_GT(std::stoi(bench_record(out[2])["launches"]), std::stoi(bench_record(out[3])["launches"]))
      << "gajic2011 launches one kernel per FWT step";
}

TEST_F(Cli, BenchGajicUsageErrors) {  // parsed before any device is opened: the same without OpenCL
  expect_bad_input("bench gajic --log2n 0", "--log2n 0: '0' is not a size");
  expect_bad_input("bench gajic --log2n x", "--log2n x: 'x' is not a size");
  expect_bad_input("bench gajic --log2n 4,31", "'31' is not a size");
  expect_bad_input("bench gajic --log2n 4,,8", "'' is not a size");
  expect_bad_input("bench gajic --repeats 0", "--repeats: '0' is not a whole number >= 1");
  expect_bad_input("bench gajic --reference-max-n -1", "--reference-max-n");
}

TEST_F(Cli, UsageErrors) {
  expect_bad_input("wht --bogus", "--bogus");
  expect_bad_input("", "no command: use wht");
  expect_bad_input("frobnicate", "unknown command 'frobnicate'");
  expect_bad_input("wht --order zigzag", "unknown order 'zigzag'", "1 2");
  expect_bad_input("wht --normalize half", "unknown normalisation 'half'", "1 2");
  expect_bad_input("wht --inverse --normalize orthonormal", "contradicts", "1 2");
  expect_bad_input("wht --dtype complex64", "unknown type 'complex64'", "1 2");
  expect_bad_input("wht --backend gpu", "valid backends are auto, reference, cpu", "1 2");
  expect_bad_input("wht --threads -1", "--threads", "1 2");
  // libgomp ends the process when it cannot start a thread: the count is bounded first.
  expect_bad_input("wht --threads 100000", "thread count 100000 is more than 1024", "1 2");
  expect_bad_input("bench wht --threads 5000 --log2n 4 --batch 4096 --repeats 1", "thread count 5000 is more than 1024");
  expect_bad_input("dyadic conv - -", "only one operand", "1 2");
}

TEST_F(Cli, BadInputs) {
  expect_bad_input("wht missing.txt out.txt", "missing.txt: cannot open");
  expect_bad_input("wht x.doc out.txt", "unknown extension '.doc'");
  expect_bad_input("wht - out.txt", "power of two", "1 2 3\n");
  expect_bad_input("wht", "no values", "");
  expect_bad_input("wht", "no values", "# only a comment\n\n");
  expect_bad_input("wht", "'abc' is not a number", "1 abc 3 4");
  expect_bad_input("wht", "NaN and infinities are not accepted", "1 nan");
  expect_bad_input("wht", "NaN and infinities are not accepted", "1 -inf");
  expect_bad_input("wht", "same number of values", "1 2\n3 4 5 6\n");
  expect_bad_input("wht --dtype int32", "int32", "1 2 3 4.5");
  expect_bad_input("wht --dtype int32", "overflow", "1073741824 1073741824");
  expect_bad_input("wht --dtype int64 --inverse", "not divisible", "1 0 1 1");
  expect_bad_input("wht --dtype int64 --normalize orthonormal", "cannot be exact", "1 0");

  write("x.bin", std::string(12, '\0'));
  expect_bad_input("wht x.bin out.txt", "give --dtype");
  expect_bad_input("wht --dtype float64 x.bin out.txt", "not a multiple of 8");

  write("bad.npy", "\x93NUMPY garbage");
  expect_bad_input("wht bad.npy out.txt", "bad.npy");
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
  header.resize(117, ' ');
  header += '\n';
  const std::string npy_prefix = std::string("\x93NUMPY\x01\x00", 8) + std::string(1, static_cast<char>(118)) +
                                 std::string(1, '\0') + header;
  write("short.npy", npy_prefix + std::string(16, '\0'));  // 2 of the 4 doubles
  expect_bad_input("wht short.npy out.txt", "truncated");
  std::string be = npy_prefix;
  be.replace(be.find("<f8"), 3, ">f8");
  write("be.npy", be + std::string(32, '\0'));
  expect_bad_input("wht be.npy out.txt", "'>f8'");
  std::string c8 = npy_prefix;
  c8.replace(c8.find("<f8"), 3, "<c8");
  write("c8.npy", c8 + std::string(32, '\0'));
  expect_bad_input("wht c8.npy out.txt", "'<c8'");

  write("f.txt", "1 0 1 1");
  write("h.txt", "1 1 0 0");
  expect_bad_input("dyadic deconv f.txt h.txt out.txt", "zero at index 1");
  expect_bad_input("dyadic deconv --dtype int64 f.txt h.txt out.txt", "zero at index 1");
  write("three.txt", "1 2 3");
  expect_bad_input("dyadic conv f.txt three.txt", "power of two");
  write("rows.txt", "1 2\n3 4\n");
  expect_bad_input("dyadic conv f.txt rows.txt", "must be 1-D");
}

TEST_F(Cli, FailuresNeverTouchAnExistingOutput) {
  write("out.txt", "precious\n");
  write("bad.txt", "1 2 3");
  expect_bad_input("wht bad.txt out.txt", "power of two");
  EXPECT_EQ(read(path("out.txt")), "precious\n");
  expect_bad_input("wht --dtype int32 - out.txt", "overflow", "2147483647 1");
  EXPECT_EQ(read(path("out.txt")), "precious\n");
  expect_bad_input("wht - nodir/out.txt", "nodir", "1 2");
}

// --- boolean and sbox -------------------------------------------------------------------------

/// f as 0/1 values from a hex truth table (SageMath's convention: f(0) is the lowest bit).
std::vector<int> truth_table_of_hex(const std::string& hex) {
  std::vector<int> f;
  for (auto digit = hex.rbegin(); digit != hex.rend(); ++digit) {
    const int v = std::stoi(std::string(1, *digit), nullptr, 16);
    for (int b = 0; b < 4; ++b) f.push_back((v >> b) & 1);
  }
  return f;
}

std::string joined(const std::vector<long long>& values, const char* separator = " ") {
  std::string out;
  for (const long long v : values) out += (out.empty() ? "" : separator) + std::to_string(v);
  return out;
}

const std::vector<int> kPresent = {0xC, 5, 6, 0xB, 9, 0, 0xA, 0xD, 3, 0xE, 0xF, 8, 4, 7, 1, 2};

/// A histogram as `analyze --json` prints it: [[value, count], ...] by value.
nlohmann::ordered_json pairs(const std::map<long long, long long>& histogram) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& [value, count] : histogram) j.push_back({value, count});
  return j;
}
const std::string kPresentText = "0xC,5,6,0xB,9,0,0xA,0xD,3,0xE,0xF,8,4,7,1,2";

TEST_F(Cli, BooleanAnalyzeJson) {
  const std::string bent = "0113077C165E76A8";  // SageMath's documentation: a bent function of 6 variables
  const Result r = run("boolean analyze " + bent + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto json = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"n", "weight", "balanced", "nonlinearity", "linearity", "absolute_indicator",
                                            "sum_of_squares_indicator", "algebraic_degree", "algebraic_immunity",
                                            "correlation_immunity", "resiliency", "is_bent", "is_plateaued",
                                            "plateau_amplitude", "walsh_spectrum", "autocorrelation_spectrum"}));
  const auto f = truth_table_of_hex(bent);
  // The spectra by their definitions, as [value, count] pairs by value.
  std::map<long long, long long> walsh, autocorrelation;
  for (int a = 0; a < 64; ++a) {
    long long w = 0, r = 0;
    for (int x = 0; x < 64; ++x) {
      w += (f[x] ^ (std::popcount(static_cast<unsigned>(a & x)) & 1)) ? -1 : 1;
      r += (f[x] ^ f[x ^ a]) ? -1 : 1;
    }
    ++walsh[w];
    ++autocorrelation[r];
  }
  EXPECT_EQ(json["walsh_spectrum"], pairs(walsh));
  EXPECT_EQ(json["autocorrelation_spectrum"], pairs(autocorrelation));
  EXPECT_EQ(json["plateau_amplitude"], 8);
  EXPECT_EQ(json["n"], 6);
  EXPECT_EQ(json["weight"], std::count(f.begin(), f.end(), 1));
  EXPECT_EQ(json["balanced"], false);
  EXPECT_EQ(json["nonlinearity"], 28);  // bent: 2^(n-1) - 2^(n/2-1)
  EXPECT_EQ(json["linearity"], 8);
  EXPECT_EQ(json["absolute_indicator"], 0);  // bent: every derivative is balanced
  EXPECT_EQ(json["sum_of_squares_indicator"], 64 * 64);
  EXPECT_EQ(json["is_bent"], true);
  EXPECT_EQ(json["is_plateaued"], true);
  EXPECT_EQ(json["resiliency"], -1);

  const Result text = run("boolean analyze " + bent);
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("bent"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("-8: "), std::string::npos) << text.out;  // the Walsh histogram
  // Every field the table prints is in the JSON (a review found algebraic immunity, the
  // amplitude and both spectra missing).
  EXPECT_NE(text.out.find("algebraic immunity        " + json["algebraic_immunity"].dump() + "\n"), std::string::npos)
      << text.out;
  // x0·x1·x2 is not plateaued (|W| takes 6 and 2): no amplitude.
  const Result conjunction = run("boolean analyze 80 --json");
  EXPECT_TRUE(nlohmann::ordered_json::parse(conjunction.out)["plateau_amplitude"].is_null()) << conjunction.out;
  // The constant 0 of 22 variables: Σ Δ² = 2^22 · (2^22)² passes 64 bits; the analysis stands
  // without it (it had been an error that printed nothing).
  write("zero22.txt", "0x" + std::string(std::size_t{1} << 20, '0') + "\n");
  const Result zero = run("boolean analyze zero22.txt --json");
  ASSERT_EQ(zero.code, 0) << zero.err;
  const auto zero_json = nlohmann::ordered_json::parse(zero.out);
  EXPECT_TRUE(zero_json["sum_of_squares_indicator"].is_null()) << zero.out.substr(0, 300);
  EXPECT_EQ(zero_json["weight"], 0);
  EXPECT_EQ(zero_json["linearity"], 1 << 22);
  EXPECT_NE(run("boolean analyze zero22.txt").out.find("sum-of-squares indicator  more than 2^64 - 1\n"), std::string::npos);
}

TEST_F(Cli, BooleanSpectraAndAnf) {
  // Majority of 3 variables: f(x) = 1 for x = 3, 5, 6, 7.
  const std::vector<int> f = {0, 0, 0, 1, 0, 1, 1, 1};
  std::vector<long long> walsh(8), autocorrelation(8);
  for (int a = 0; a < 8; ++a)
    for (int x = 0; x < 8; ++x) {
      walsh[a] += (f[x] ^ (std::popcount(static_cast<unsigned>(a & x)) & 1)) ? -1 : 1;
      autocorrelation[a] += (f[x] ^ f[x ^ a]) ? -1 : 1;
    }
  EXPECT_EQ(run("boolean walsh e8").out, joined(walsh) + "\n");
  EXPECT_EQ(run("boolean autocorr e8").out, joined(autocorrelation) + "\n");
  EXPECT_EQ(run("boolean anf e8").out, "x0*x1 + x0*x2 + x1*x2\n");
  EXPECT_EQ(run("boolean anf e8 --format values").out, "0 0 0 1 0 1 1 0\n");
  write("majority.txt", "0 0 0 1\n0 1 1 1\n");
  EXPECT_EQ(run("boolean walsh majority.txt").out, joined(walsh) + "\n");
  EXPECT_EQ(run("boolean walsh -", "00010111").out, joined(walsh) + "\n");
  fastconv::io::write_file(path("majority.npy"), fastconv::io::make_array(std::vector<std::int32_t>(f.begin(), f.end()), 1, 8, false));
  EXPECT_EQ(run("boolean walsh majority.npy").out, joined(walsh) + "\n");
  // The extension in any case, as every other command reads it (.NPY had been read as text).
  fastconv::io::write_file(path("MAJORITY.NPY"), fastconv::io::make_array(std::vector<std::int32_t>(f.begin(), f.end()), 1, 8, false));
  EXPECT_EQ(run("boolean walsh MAJORITY.NPY").out, joined(walsh) + "\n");
  fastconv::io::write_file(path("LUT.Npy"), fastconv::io::make_array(std::vector<std::int64_t>{0, 1, 3, 2}, 1, 4, false));
  EXPECT_EQ(run("sbox ddt LUT.Npy").out, run("sbox ddt 0,1,3,2").out);
  const Result saved = run("boolean walsh e8 w.npy");
  EXPECT_EQ(saved.code, 0) << saved.err;
  const auto array = fastconv::io::read_file(path("w.npy"), std::nullopt);
  ASSERT_EQ(array.size(), 8u);
  for (int a = 0; a < 8; ++a) EXPECT_EQ(array.values<std::int64_t>()[a], walsh[a]);
}

TEST_F(Cli, SBoxAnalyzePresent) {
  const Result r = run("sbox analyze " + kPresentText + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto json = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"n", "m", "bijective", "differential_uniformity", "differential_spectrum",
                                            "linearity", "nonlinearity", "absolute_walsh_spectrum", "algebraic_degree",
                                            "min_algebraic_degree", "degree_spectrum", "boomerang_uniformity",
                                            "boomerang_spectrum", "fixed_points", "is_apn",
                                            "differential_branch_number", "linear_branch_number"}));
  // The spectra by their definitions: DDT over a ≠ 0, |LAT| over b ≠ 0, the degrees of the
  // components b ≠ 0 (ANF by the Möbius transform), BCT over a, b ≠ 0.
  std::map<long long, long long> ddt, walsh, degrees, bct;
  std::vector<int> inverse(16);
  for (int x = 0; x < 16; ++x) inverse[kPresent[x]] = x;
  const auto dot = [](int a, int b) { return std::popcount(static_cast<unsigned>(a & b)) & 1; };
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b) {
      int d = 0, l = 0, c = 0;
      for (int x = 0; x < 16; ++x) {
        d += (kPresent[x] ^ kPresent[x ^ a]) == b;
        l += (dot(a, x) ^ dot(b, kPresent[x])) ? -1 : 1;
        c += (inverse[kPresent[x] ^ b] ^ inverse[kPresent[x ^ a] ^ b]) == a;
      }
      if (a != 0) ++ddt[d];
      if (b != 0) ++walsh[std::abs(l)];
      if (a != 0 && b != 0) ++bct[c];
    }
  for (int b = 1; b < 16; ++b) {
    std::vector<int> anf(16);
    for (int x = 0; x < 16; ++x) anf[x] = dot(b, kPresent[x]);
    for (int bit = 1; bit < 16; bit <<= 1)
      for (int x = 0; x < 16; ++x)
        if (x & bit) anf[x] ^= anf[x ^ bit];
    int degree = -1;
    for (int x = 0; x < 16; ++x)
      if (anf[x] != 0) degree = std::max(degree, std::popcount(static_cast<unsigned>(x)));
    ++degrees[degree];
  }
  EXPECT_EQ(json["differential_spectrum"], pairs(ddt));
  EXPECT_EQ(json["absolute_walsh_spectrum"], pairs(walsh));
  EXPECT_EQ(json["degree_spectrum"], pairs(degrees));
  EXPECT_EQ(json["boomerang_spectrum"], pairs(bct));
  // PRESENT's published properties.
  EXPECT_EQ(json["n"], 4);
  EXPECT_EQ(json["m"], 4);
  EXPECT_EQ(json["bijective"], true);
  EXPECT_EQ(json["differential_uniformity"], 4);
  EXPECT_EQ(json["linearity"], 8);
  EXPECT_EQ(json["nonlinearity"], 4);
  EXPECT_EQ(json["algebraic_degree"], 3);
  EXPECT_EQ(json["min_algebraic_degree"], 2);
  EXPECT_EQ(json["boomerang_uniformity"], 16);
  EXPECT_EQ(json["fixed_points"], 0);
  EXPECT_EQ(json["is_apn"], false);
  EXPECT_EQ(json["differential_branch_number"], 3);
  EXPECT_EQ(json["linear_branch_number"], 2);

  EXPECT_EQ(run("sbox analyze present --json").out, r.out);  // the catalogue's PRESENT

  // Not a permutation: no boomerang uniformity. The same values from a file, in hex.
  write("lut.txt", "# a 3-bit S-box\n[0x0, 0x1, 0x1, 0x3, 0x4, 0x5, 0x6, 0x7]\n");
  const Result file = run("sbox analyze lut.txt --json");
  ASSERT_EQ(file.code, 0) << file.err;
  const auto j = nlohmann::ordered_json::parse(file.out);
  EXPECT_EQ(j["bijective"], false);
  EXPECT_TRUE(j["boomerang_uniformity"].is_null());
  EXPECT_TRUE(j["boomerang_spectrum"].is_null());
  EXPECT_EQ(j["n"], 3);
  EXPECT_EQ(j["m"], 3);
  EXPECT_EQ(j["fixed_points"], 7);
  EXPECT_EQ(run("sbox analyze lut.txt").code, 0);
}

TEST_F(Cli, SBoxTables) {
  // DDT, LAT (two scales), ACT and BCT of PRESENT against the definitions.
  const auto dot = [](int a, int b) { return std::popcount(static_cast<unsigned>(a & b)) & 1; };
  std::string ddt, lat, bias, act, bct;
  std::vector<int> inverse(16);
  for (int x = 0; x < 16; ++x) inverse[kPresent[x]] = x;
  for (int a = 0; a < 16; ++a) {
    std::vector<long long> d(16), l(16), c(16), b(16);
    std::string bias_row;
    for (int x = 0; x < 16; ++x) ++d[kPresent[x ^ a] ^ kPresent[x]];
    for (int v = 0; v < 16; ++v) {
      for (int x = 0; x < 16; ++x) {
        l[v] += dot(a, x) ^ dot(v, kPresent[x]) ? -1 : 1;
        c[v] += dot(v, kPresent[x] ^ kPresent[x ^ a]) ? -1 : 1;
        b[v] += (inverse[kPresent[x] ^ v] ^ inverse[kPresent[x ^ a] ^ v]) == a;
      }
      std::ostringstream number;
      number << static_cast<double>(l[v]) / 32;
      bias_row += (v ? " " : "") + number.str();
    }
    ddt += joined(d) + "\n";
    lat += joined(l) + "\n";
    act += joined(c) + "\n";
    bct += joined(b) + "\n";
    bias += bias_row + "\n";
  }
  EXPECT_EQ(run("sbox ddt " + kPresentText).out, ddt);
  EXPECT_EQ(run("sbox lat " + kPresentText).out, lat);
  EXPECT_EQ(run("sbox lat " + kPresentText + " --scale bias").out, bias);
  EXPECT_EQ(run("sbox act " + kPresentText).out, act);
  EXPECT_EQ(run("sbox bct " + kPresentText).out, bct);
  EXPECT_EQ(run("sbox ddt " + kPresentText + " ddt.txt").code, 0);
  EXPECT_EQ(read(path("ddt.txt")), ddt);
}

TEST_F(Cli, AnalysisBadInputs) {
  expect_bad_input("sbox analyze 1,2,3", "has 3 entries; it needs 2^n");
  expect_bad_input("sbox analyze 0,1,2,4 --m 2", "4");
  expect_bad_input("sbox analyze 0,x,2,3", "'x'");
  expect_bad_input("sbox analyze C,5,6,B", "0x");
  expect_bad_input("sbox analyze 0,1,2,99999999999", "32 bits");
  expect_bad_input("sbox bct 0,0,1,1", "permutation");
  expect_bad_input("sbox lat 0,1,2,3 --scale big", "unknown scale 'big'");
  expect_bad_input("sbox analyze missing/lut.txt", "missing/lut.txt");
  expect_bad_input("sbox analyze serpent", "unknown S-box 'serpent'");
  expect_bad_input("sbox analyze missing.txt", "missing.txt: no such file");  // had read "unknown S-box"
  expect_bad_input("sbox analyze Missing.NPY", "Missing.NPY: no such file");
  write("gaps.txt", "0,1,,1\n");  // had been read as three values
  expect_bad_input("boolean walsh gaps.txt", "gaps.txt: line 1, column 5: a value is missing before this comma");
  write("lead.txt", ",0,1\n");
  expect_bad_input("boolean walsh lead.txt", "lead.txt: line 1, column 1: a value is missing before this comma");
  expect_bad_input("sbox analyze -", "no values", "");
  // Found by fuzz_cli (with _GLIBCXX_ASSERTIONS): an empty LUT argument read its first character.
  expect_bad_input("sbox analyze ''", "S-box look-up table '': no values");
  expect_bad_input("boolean analyze ''", "hex truth table is empty");
  expect_bad_input("boolean analyze 0113077C165E76AG", "'G'");
  expect_bad_input("boolean analyze abc", "has 3 digits");
  write("tt.txt", "0 1 1 2\n");
  expect_bad_input("boolean analyze tt.txt", "tt.txt");
  write("odd.txt", "0 1 1\n");
  expect_bad_input("boolean walsh odd.txt", "odd.txt: 3 values; a truth table has 2^n values");
  expect_bad_input("boolean anf e8 --format tree", "--format");
  write("out.txt", "precious\n");
  expect_bad_input("sbox ddt 0,1,2 out.txt", "has 3 entries");
  expect_bad_input("boolean walsh zz out.txt", "'z'");
  EXPECT_EQ(read(path("out.txt")), "precious\n");
  // The ANF's polynomial and hex forms are text: an array file's extension would be a lie.
  for (const char* file : {"anf.npy", "anf.bin", "anf"})
    expect_bad_input(std::string("boolean anf e8 ") + file, "the ANF's polynomial form is a line of text");
  expect_bad_input("boolean anf e8 --format hex anf.raw", "the ANF's hex form is a line of text");
  fs::create_directory(path("table.d"));
  expect_bad_input("boolean analyze table.d", "table.d: cannot open: Is a directory");
  expect_bad_input("boolean anf -", "<stdin>: line 1, column 5: '2' is not a truth-table value", "0 1 2 0\n");
  fastconv::io::write_file(path("two.npy"), fastconv::io::make_array(std::vector<std::int64_t>{0, 2, 0, 1}, 1, 4, false));
  expect_bad_input("boolean anf two.npy", "two.npy: value 1 is 2, not 0 or 1");
  fastconv::io::write_file(path("real.npy"), fastconv::io::make_array(std::vector<double>{0, 1}, 1, 2, false));
  expect_bad_input("boolean anf real.npy", "real.npy: a .npy truth table holds integers 0 and 1, not float64 values");
  fastconv::io::write_file(path("rows.npy"), fastconv::io::make_array(std::vector<std::int64_t>{0, 1, 1, 0}, 2, 2, true));
  expect_bad_input("boolean anf rows.npy", "rows.npy: a truth table is one vector, not 2 rows");
  fs::remove(path("rows.npy"));
  fs::remove(path("two.npy"));
  fs::remove(path("real.npy"));
  fs::remove(path("table.d"));
}

// A table too long for a file name (255 bytes) is read as a table, not refused by the file
// system's check for a file of that name.
TEST_F(Cli, LongInlineTables) {
  std::string hex, lut;
  for (int i = 0; i < 256; ++i) hex += "e8", lut += (i ? "," : "") + std::to_string((i * 7) % 256);
  const Result f = run("boolean analyze " + hex + " --json");
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(nlohmann::json::parse(f.out)["n"], 11);
  const Result s = run("sbox analyze " + lut + " --json");
  ASSERT_EQ(s.code, 0) << s.err;
  const auto json = nlohmann::json::parse(s.out);
  EXPECT_EQ(json["n"], 8);
  EXPECT_EQ(json["bijective"], true);  // x -> 7x mod 256
}

// A report whose write fails (here: a full device) fails the command, as a result file's would.
TEST_F(Cli, FailedWritesToStandardOutputAreErrors) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  for (const std::string command : {"boolean analyze e8", "sbox analyze present --json", "info", "--version", "wht --help"}) {
    const std::string cmd = "'" FASTCONV_CLI_PATH "' " + command + " > /dev/full 2> '" + path(".stderr").string() + "'";
    const int status = std::system(cmd.c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2) << command;
    // (info may print a device library's warnings before it)
    EXPECT_TRUE(read(path(".stderr")).ends_with("fastconv: error: <stdout>: write failed\n")) << command;
  }
  fs::remove(path(".stderr"));
}

}  // namespace

TEST_F(Cli, OpenClBackend) {
  const auto names = fastconv::Backend::names();
  if (std::find(names.begin(), names.end(), "opencl") == names.end()) {
    // An environment problem, as for a build without CUDA (Conv2dOnCuda): exit 1 with the way
    // out, nothing written.
    const Result r = run("wht --backend opencl - out.txt", "1 0 1 1");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("this build of fastconv has no OpenCL backend: install the OpenCL headers"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("out.txt")));
    GTEST_SKIP() << "this build has no OpenCL backend: checked the refusal only";
  }
  // Usage errors come before any device is opened.
  expect_bad_input("wht --backend opencl --variant radix3", "valid variants are gajic2011, fast", "1 0 1 1");
  expect_bad_input("wht --backend cpu --device 0:0", "applies to the opencl and cuda backends only", "1 0 1 1");
  // No OpenCL platform: exit 1 with a sentence saying how to get one, nothing written.
  const Result none = run("wht --backend opencl - out.txt", "1 0 1 1");
  if (fastconv::devices().empty()) {
    EXPECT_EQ(none.code, 1) << none.err;
    EXPECT_NE(none.err.find("pocl-opencl-icd"), std::string::npos) << none.err;
    EXPECT_FALSE(fs::exists(path("out.txt")));
    GTEST_SKIP() << "no OpenCL device found (install pocl-opencl-icd for the CPU)";
  }
  fs::remove(path("out.txt"));
  const Result empty = run("wht --backend opencl", "1 0 1 1", "OCL_ICD_VENDORS=/nonexistent ");
  EXPECT_EQ(empty.code, 1) << empty.err;
  EXPECT_NE(empty.err.find("no OpenCL platform found"), std::string::npos) << empty.err;
  EXPECT_NE(empty.err.find("pocl-opencl-icd"), std::string::npos) << empty.err;
  expect_bad_input("wht --backend opencl --device 7:7", "OpenCL device '7:7' does not exist", "1 0 1 1");
  for (const std::string variant : {"gajic2011", "fast"}) {
    EXPECT_EQ(run("wht --backend opencl --variant " + variant, "1 0 1 1").out, "3 1 -1 1\n") << variant;
    write("f.txt", "1 0 1 1");
    write("g.txt", "0 1 0 1");
    EXPECT_EQ(run("dyadic conv f.txt g.txt --backend opencl --device 0:0 --variant " + variant).out, "1 2 1 2\n");
  }
}

// PoCL limited to work-groups of 1–4 items: every launch names its group size (left to PoCL,
// seed 001's kernels failed an assertion inside it). Other platforms ignore the variable.
TEST_F(Cli, OpenClWithTheSmallestWorkGroups) {
  bool opencl = false;
  for (const auto& d : fastconv::devices()) opencl = opencl || d.backend == "opencl";
  if (!opencl) GTEST_SKIP() << "no OpenCL device found (install pocl-opencl-icd for the CPU)";
  std::string values;
  for (int i = 0; i < 64; ++i) values += std::to_string((i * 37) % 11 - 5) + " ";
  write("f.txt", values);
  write("g.txt", "1 0 2 0 -1 3 0 1");
  const std::string wht = "wht f.txt --order sequency --backend ", conv = "dyadic conv f.txt g.txt --backend ";
  const Result want_wht = run(wht + "reference"), want_conv = run(conv + "reference");
  ASSERT_EQ(want_wht.code, 0) << want_wht.err;
  ASSERT_EQ(want_conv.code, 0) << want_conv.err;
  for (const char* limit : {"1", "4"})
    for (const std::string variant : {"gajic2011", "fast"}) {
      const std::string env = std::string("POCL_MAX_WORK_GROUP_SIZE=") + limit + " ";
      const Result a = run(wht + "opencl --variant " + variant, "", env);
      EXPECT_EQ(a.code, 0) << limit << " " << variant << ": " << a.err;
      EXPECT_EQ(a.out, want_wht.out) << limit << " " << variant;
      const Result b = run(conv + "opencl --variant " + variant, "", env);
      EXPECT_EQ(b.code, 0) << limit << " " << variant << ": " << b.err;
      EXPECT_EQ(b.out, want_conv.out) << limit << " " << variant;
    }
}

TEST_F(Cli, CudaBackendWithoutAGpuSaysSo) {
  for (const auto& d : fastconv::devices())
    if (d.backend == "cuda") GTEST_SKIP() << "a CUDA device is present: the device tests cover it";
  expect_bad_input("wht --backend cuda --variant bikov-a9", "valid variants are gajic2011, bikov-a1", "1 0 1 1");
  const Result r = run("wht --backend cuda --variant bikov-a5 - out.txt", "1 0 1 1");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("fastconv: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("out.txt")));
}

TEST_F(Cli, BenchBikovTable) {
  expect_bad_input("bench bikov --log2n 0", "--log2n 0: '0' is not a size");
  expect_bad_input("bench bikov --backend cpu", "use cuda or opencl");
  bool opencl = false, cuda = false;
  for (const auto& d : fastconv::devices()) (d.backend == "cuda" ? cuda : opencl) = true;
  if (!cuda) {
    const Result r = run("bench bikov --log2n 7 --repeats 1");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.err.rfind("fastconv: error: ", 0), 0u) << r.err;
  }
  if (!opencl) GTEST_SKIP() << "no OpenCL device found (install pocl-opencl-icd for the CPU)";
  const Result r = run("bench bikov --backend opencl --log2n 7,9 --repeats 1", "", kSeveralOpenClContexts);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 6u) << r.out;  // device line, blank, header, rule, two sizes
  EXPECT_EQ(rows[2], "| n | textbook (A0) | cpu | gajic2011 | fast |");
  EXPECT_EQ(rows[4].rfind("| 7 | ", 0), 0u) << rows[4];
  EXPECT_EQ(rows[5].rfind("| 9 | ", 0), 0u) << rows[5];
}

namespace {

/// A .npy tensor of float64 values in the Cli test directory.
void write_tensor(const fs::path& path, std::vector<std::size_t> shape, std::vector<double> values) {
  fastconv::io::Tensor t;
  t.shape = std::move(shape);
  const std::size_t count = values.size();
  t.values = fastconv::io::make_array(std::move(values), 1, count, false);
  fastconv::io::write_npy_tensor(path, t);
}

}  // namespace

TEST_F(Cli, Conv2d) {
  // x = 1 … 9 on a 3×3 image, two filters of 2×2: [[1,0],[0,1]] (the main diagonal) and all ones.
  write_tensor(path("x.npy"), {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  write_tensor(path("w.npy"), {2, 1, 2, 2}, {1, 0, 0, 1, 1, 1, 1, 1});
  write_tensor(path("b.npy"), {2}, {0, 100});
  for (const std::string algorithm : {"auto", "direct", "im2col_gemm", "fft2d", "polyhankel"}) {
    const Result r = run("conv2d x.npy w.npy --bias b.npy --algorithm " + algorithm);
    ASSERT_EQ(r.code, 0) << r.err;
    // direct and im2col_gemm are exact on these integers; the FFT algorithms (and auto, which
    // may choose one) round (8.000000000000002 with MKL's FFTs): to 1e-12 there.
    const bool rounds = algorithm == "fft2d" || algorithm == "polyhankel" || algorithm == "auto";
    std::istringstream values(r.out);
    ASSERT_EQ(lines(r.out).size(), 4u) << r.out;  // two planes of two rows
    for (const double expected : {6, 8, 12, 14, 112, 116, 124, 128}) {
      double value = 0;
      ASSERT_TRUE(values >> value) << algorithm << ": " << r.out;
      EXPECT_NEAR(value, expected, rounds ? 1e-12 * expected : 0.0) << algorithm << ": " << r.out;
    }
  }
  // Padding 1 on top only: the first output row sees a zero row above the image, so the
  // diagonal filter gives x(0, j + 1) there.
  const Result padded = run("conv2d x.npy w.npy --padding 1,0,0,0 --dtype float64");
  ASSERT_EQ(padded.code, 0) << padded.err;
  std::istringstream first_row(lines(padded.out).at(0));
  double x01 = 0, x02 = 0;
  ASSERT_TRUE(first_row >> x01 >> x02) << padded.out;
  EXPECT_NEAR(x01, 2, 1e-12) << padded.out;  // auto may choose an FFT algorithm, which rounds
  EXPECT_NEAR(x02, 3, 1e-12) << padded.out;
  // An unbatched (C, H, W) input, a .npy output of shape (K, Oh, Ow).
  write_tensor(path("x3.npy"), {1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_EQ(run("conv2d x3.npy w.npy y.npy --padding 1 --show-algorithm --algorithm direct").code, 0);
  const auto y = fastconv::io::read_npy_tensor(path("y.npy"));
  EXPECT_EQ(y.shape, (std::vector<std::size_t>{2, 4, 4}));
  EXPECT_EQ(y.values.values<double>()[5], 6.0);  // output (0, 1, 1) = x(0,0)·1 + x(1,1)·1
  // The reference backend computes direct on one thread.
  const Result reference = run("conv2d x.npy w.npy --bias b.npy --backend reference --show-algorithm");
  ASSERT_EQ(reference.code, 0) << reference.err;
  EXPECT_EQ(lines(reference.out), (std::vector<std::string>{"6 8", "12 14", "112 116", "124 128"}));
  EXPECT_NE(reference.err.find("conv2d algorithm: direct"), std::string::npos) << reference.err;
}

TEST_F(Cli, Conv2dOnCuda) {
  write_tensor(path("x.npy"), {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  write_tensor(path("w.npy"), {2, 1, 2, 2}, {1, 0, 0, 1, 1, 1, 1, 1});
  const Result r = run("conv2d x.npy w.npy --backend cuda --show-algorithm");
  bool cuda = false;
  for (const auto& d : fastconv::devices()) cuda = cuda || d.backend == "cuda";
  if (!cuda) {  // an environment problem: exit 1 with the way out (a GPU, or a build with CUDA)
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.find("use --backend cpu") != std::string::npos ||
                r.err.find("this build of fastconv has no CUDA backend: install the CUDA toolkit") != std::string::npos)
        << r.err;
    GTEST_SKIP() << "no CUDA device: checked the refusal only; the cuda conv2d did not run";
  }
  ASSERT_EQ(r.code, 0) << r.err;
  // polyhankel computes through cuFFT, which rounds (12.000000000000002 on an H100).
  std::istringstream values(r.out);
  for (const double expected : {6, 8, 12, 14, 12, 16, 24, 28}) {
    double v = 0;
    ASSERT_TRUE(values >> v) << r.out;
    EXPECT_NEAR(v, expected, 1e-12 * 28) << r.out;
  }
  EXPECT_EQ(lines(r.out).size(), 4u) << r.out;
  EXPECT_NE(r.err.find("conv2d algorithm: polyhankel"), std::string::npos) << r.err;
}

// An output that cannot fit in memory is refused before the plan is made (auto's race and
// polyhankel's choices take seconds on large shapes) or anything is allocated: exit 1, and an
// existing output file keeps its contents. The library refuses its own work space
// (conv2d_test.cpp, WorkBeyondMemoryOrFftExtentsIsRefusedBeforeAllocating).
TEST_F(Cli, Conv2dRefusesOutputsBeyondMemory) {
  write_tensor(path("x.npy"), {1, 1, 4, 4}, std::vector<double>(16, 1.0));
  write_tensor(path("w.npy"), {2, 1, 3, 3}, std::vector<double>(18, 1.0));
  write("y.npy", "keep");
  const auto before = files();
  for (const std::string algorithm : {"auto", "direct", "fft2d", "polyhankel"}) {
    const Result r = run("conv2d x.npy w.npy y.npy --padding 1048576 --algorithm " + algorithm);
    EXPECT_EQ(r.code, 1) << algorithm << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("fastconv: error: conv2d: the output of shape (1, 2, 2097154, 2097154) in float64 needs "
                          "64.0 TiB, ",
                          0),
              0u)
        << r.err;
    // What to do about it, as for every environment failure.
    EXPECT_NE(r.err.find(" available: give it smaller inputs or sizes, or run it where more memory is free\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(files(), before) << algorithm;
    EXPECT_EQ(read(path("y.npy")), "keep");
  }
}

TEST_F(Cli, Conv2dBadInputs) {
  write_tensor(path("x.npy"), {1, 2, 4, 4}, std::vector<double>(32, 1.0));
  write_tensor(path("w.npy"), {3, 2, 3, 3}, std::vector<double>(54, 1.0));
  write_tensor(path("w1.npy"), {3, 1, 3, 3}, std::vector<double>(27, 1.0));
  write_tensor(path("big.npy"), {1, 2, 5, 5}, std::vector<double>(50, 1.0));
  write_tensor(path("b2.npy"), {2}, {1, 2});
  write("y.npy", "keep");
  expect_bad_input("conv2d x.npy w1.npy", "take 1 input channels");
  expect_bad_input("conv2d x.npy w.npy --bias b2.npy",
                   "b2.npy: the bias has shape (2,), not (3,): one value per filter");
  expect_bad_input("conv2d x.npy w.npy --padding 1,2", "T,B,L,R");
  expect_bad_input("conv2d x.npy w.npy --padding -1", "whole numbers");
  // A blank before the sign: std::stoull had read ' -1' as 2^64 − 1.
  expect_bad_input("conv2d x.npy w.npy --padding ' -1'", "' -1' is not P or T,B,L,R (whole numbers");
  expect_bad_input("conv2d x.npy w.npy --padding '1, -1,1,1'", "whole numbers");
  expect_bad_input("conv2d x.npy w.npy --padding 99999999999999999999", "'99999999999999999999' is more than 64 bits hold");
  EXPECT_EQ(run("conv2d x.npy w.npy --algorithm direct --padding '1, 1 ,1,1'").out,
            run("conv2d x.npy w.npy --algorithm direct --padding 1").out);
  expect_bad_input("conv2d x.npy w.npy --bias ''", "--bias: an empty file name");  // had run without a bias
  expect_bad_input("conv2d x.npy w.npy --algorithm fast", "polyhankel");
  expect_bad_input("conv2d x.npy big.npy y.npy", "");  // a 5×5 kernel on a 4×4 image: no output
  expect_bad_input("conv2d x.npy b2.npy", "(K, C, Kh, Kw)");
  expect_bad_input("conv2d b2.npy w.npy", "(N, C, H, W)");
  expect_bad_input("conv2d x.npy w.npy --backend opencl",
                   "conv2d: the opencl backend does not compute conv2d; the cpu, reference and cuda backends do");
  expect_bad_input("conv2d x.npy w.npy --backend reference --algorithm fft2d",
                   "the reference backend computes auto, direct, not fft2d");
  expect_bad_input("conv2d x.npy w.npy --backend cuda --algorithm winograd",
                   "the cuda backend computes auto, polyhankel, not winograd");
  expect_bad_input("conv2d x.npy w.npy --dtype int32", "float32 or float64");
  expect_bad_input("conv2d x.npy w.npy y.txt", ".npy");
  // Found by fuzz_conv2d: padded sizes that overflow 64 bits are refused, not allocated.
  expect_bad_input("conv2d x.npy w.npy y.npy --padding 4294967296",
                   "is too large: the size in bytes of the padded input, N*C*(H+top+bottom)*(W+left+right) values, "
                   "overflows 64 bits");
  expect_bad_input("conv2d x.npy w.npy y.npy --padding 18446744073709551615",
                   "is too large: the padded height or width overflows 64 bits");
  EXPECT_EQ(read(path("y.npy")), "keep");
}

#ifdef FASTCONV_MPIEXEC
// `mpirun -np P fastconv ... --distributed` writes the same file as the single-process command.
// (No LeakSanitizer under mpirun, and a TMPDIR of its own for each: see tests/CMakeLists.txt.)
class CliDistributed : public Cli {
 protected:
  Result mpirun(int ranks, const std::string& args) const {
    return run(args, "",
               "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 "
               "ASAN_OPTIONS=detect_leaks=0 '" FASTCONV_MPI_TMPDIR "' '" FASTCONV_MPIEXEC
               "' --oversubscribe -np " + std::to_string(ranks) + " ");
  }

  /// An MPMD launch: one rank runs `first`, the other `second` (each the arguments of fastconv).
  Result mpirun_two(const std::string& first, const std::string& second) const {
    return run(second, "",
               "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 "
               "ASAN_OPTIONS=detect_leaks=0 timeout 60 '" FASTCONV_MPI_TMPDIR "' '" FASTCONV_MPIEXEC
               "' --oversubscribe -np 1 '" FASTCONV_CLI_PATH "' " + first + " : -np 1 ");
  }

  template <class T>
  void write_npy(const std::string& name, std::vector<T> values) const {
    const std::size_t n = values.size();
    fastconv::io::write_file(path(name), fastconv::io::make_array(std::move(values), 1, n, false));
  }
};

TEST_F(CliDistributed, ResultsEqualTheSingleProcessOnes) {
  std::vector<std::int64_t> x(1 << 10), g(1 << 4);
  std::vector<double> d(1 << 9);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int64_t>((i * 7919) % 2001) - 1000;
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<std::int64_t>(i * i % 17) - 8;
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = std::sin(0.1 * static_cast<double>(i));
  write_npy("x.npy", x);
  write_npy("g.npy", g);
  write_npy("d.npy", d);
  struct Command {
    std::string command, distributed_options, what;
  };
  const std::vector<Command> commands = {
      {"wht --order sequency x.npy", "", "int64 WHT"},
      {"wht --order paley --normalize orthonormal d.npy", "", "float64 WHT"},
      {"wht --dtype int32 x.npy", "--exchange alltoall", "int32 WHT, all-to-all"},
      {"dyadic conv x.npy g.npy", "", "convolution with a shorter G"},
      {"dyadic autocorr x.npy", "--exchange pairwise", "autocorrelation"}};
  for (const auto& [command, distributed_options, what] : commands) {
    ASSERT_EQ(run(command + " expected.npy").code, 0) << what;
    const auto expected = fastconv::io::read_npy(path("expected.npy"));
    for (const int ranks : {1, 2, 4}) {
      const Result r = mpirun(ranks, command + " --distributed " + distributed_options + " got.npy");
      ASSERT_EQ(r.code, 0) << what << " on " << ranks << " ranks: " << r.err;
      const auto got = fastconv::io::read_npy(path("got.npy"));
      ASSERT_EQ(got.dtype(), expected.dtype()) << what;
      if (fastconv::is_integer(got.dtype())) {
        EXPECT_EQ(read(path("got.npy")), read(path("expected.npy"))) << what << " on " << ranks << " ranks";
      } else {
        const auto& a = got.values<double>();
        const auto& b = expected.values<double>();
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-12) << what << " at " << i;
      }
    }
  }
}

TEST_F(CliDistributed, ErrorsComeOnceAndLeaveNoFile) {
  write_npy("big.npy", std::vector<std::int32_t>(1 << 8, 1 << 30));
  write_npy("x.npy", std::vector<double>(1 << 8, 1.0));
  write("out.npy", "keep");
  const auto check = [&](int ranks, const std::string& args, const std::string& fragment) {
    const Result r = mpirun(ranks, args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("fastconv: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << "expected '" << fragment << "' in: " << r.err;
    const auto first = r.err.find("fastconv: error: ");
    EXPECT_EQ(r.err.find("fastconv: error: ", first + 1), std::string::npos) << "printed by several ranks: " << r.err;
    EXPECT_EQ(read(path("out.npy")), "keep") << args;
    EXPECT_EQ(files(), (std::vector<std::string>{"big.npy", "out.npy", "x.npy"})) << args;
  };
  check(4, "wht --distributed big.npy out.npy", "WHT overflows int32: output element 0 = 274877906944");
  check(3, "wht --distributed x.npy out.npy", "power-of-two number of ranks");
  check(2, "wht --distributed x.npy out.txt", "out.txt: a text file cannot be written in pieces");
  check(2, "dyadic conv --distributed x.npy big.npy out.npy", "give --dtype");
  check(2, "wht --distributed --exchange sideways x.npy out.npy", "unknown exchange 'sideways'");
  check(1, "wht --distributed - out.npy", "not standard input");
  // Usage errors found before the ranks talk to each other: rank 0 alone prints them.
  check(2, "wht --distributed --order bogus x.npy out.npy", "--order");
  check(2, "wht --distributed --dtype int128 x.npy out.npy", "int128");
  check(1, "wht --exchange pairwise x.npy out.npy", "--exchange requires --distributed");
}

// Ranks given different commands had waited in collective calls that did not match (int32 data
// on one, float64 on the other; a convolution beside an autocorrelation), crashed in one
// (float32 beside float64), or written rank 0's output alone (different outputs).
TEST_F(CliDistributed, RanksGivenDifferentCommandsAreAnError) {
  write_npy("i.npy", std::vector<std::int32_t>(16, 1));
  write_npy("d.npy", std::vector<double>(16, 1.0));
  write_npy("f.npy", std::vector<float>(16, 1.0f));
  const std::vector<std::pair<std::string, std::string>> launches = {
      {"wht --distributed i.npy out.npy", "wht --distributed d.npy out.npy"},
      {"wht --distributed f.npy out.npy", "wht --distributed d.npy out.npy"},
      {"wht --distributed d.npy out.npy", "wht --distributed --dtype float32 d.npy out.npy"},
      {"dyadic conv --distributed d.npy d.npy out.npy", "dyadic autocorr --distributed d.npy out.npy"},
      {"wht --distributed d.npy out.npy", "wht --distributed d.npy other.npy"}};
  for (const auto& [first, second] : launches) {
    const Result r = mpirun_two(first, second);
    EXPECT_EQ(r.code, 2) << first << " : " << second << "\n" << r.err;
    EXPECT_NE(r.err.find("fastconv: error: --distributed: the ranks were given different sizes or options"),
              std::string::npos)
        << first << " : " << second << "\n" << r.err;
    EXPECT_EQ(files(), (std::vector<std::string>{"d.npy", "f.npy", "i.npy"})) << first << " : " << second;
  }
}

// A value the --dtype conversion refuses is named by its index in the file, not in the rank's block.
TEST_F(CliDistributed, ConversionErrorsNameTheFilesElement) {
  std::vector<double> x(8, 1.0);
  x[6] = 2.5;
  write_npy("x.npy", x);
  const Result r = mpirun(2, "wht --distributed --dtype int32 x.npy out.npy");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("x.npy: element 6: '2.5' is not an integer"), std::string::npos) << r.err;
}
#endif
