// Every class of bad input the command line can meet, with the exact message and exit code it
// gets: the listing is tests/bad_inputs.json (read it as documentation), and this test runs
// each case through the real `fastconv` executable. Each case runs in a fresh directory that
// holds its input files and an existing output file; afterwards the output must be untouched
// and no other file may have appeared (nothing half-written).
//
// A case's files: a string is the file's text; {"hex": "93 4e ..."} gives its bytes;
// {"npy": HEADER, "version": 1, "minor": 0, "values_hex": "..."} builds a .npy file around the header
// dictionary text (padded as NumPy pads it), followed by "values_bytes" zero bytes if given
// (sparse: they take no disk space). "stderr_regex" replaces "stderr" where the message holds
// a measured figure.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef FASTCONV_CLI_PATH
#error "FASTCONV_CLI_PATH must point at the fastconv executable"
#endif
#ifndef FASTCONV_BAD_INPUTS
#error "FASTCONV_BAD_INPUTS must point at tests/bad_inputs.json"
#endif

namespace fs = std::filesystem;

namespace {

std::string hex_bytes(const std::string& hex) {
  std::string out;
  std::istringstream in(hex);
  for (std::string byte; in >> byte;) out += static_cast<char>(std::stoi(byte, nullptr, 16));
  return out;
}

/// A .npy file: magic, version, header length, the dictionary padded with spaces and a newline
/// to a multiple of 64 bytes, then the values.
std::string npy_file(const nlohmann::json& spec) {
  const int version = spec.value("version", 1);
  std::string header = spec.at("npy").get<std::string>();
  const std::size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += static_cast<char>(spec.value("minor", 0));
  const std::size_t length = header.size();
  for (std::size_t b = 0; b < (version == 1 ? 2u : 4u); ++b) out += static_cast<char>((length >> (8 * b)) & 0xff);
  return out + header + hex_bytes(spec.value("values_hex", ""));
}

void make_file(const fs::path& path, const nlohmann::json& spec) {
  std::string bytes;
  std::uint64_t zeros = 0;
  if (spec.is_string()) {
    bytes = spec.get<std::string>();
  } else if (spec.contains("hex")) {
    bytes = hex_bytes(spec["hex"].get<std::string>());
  } else {
    bytes = npy_file(spec);
    zeros = spec.value("values_bytes", std::uint64_t{0});
  }
  std::ofstream(path, std::ios::binary) << bytes;
  if (zeros > 0) fs::resize_file(path, bytes.size() + zeros);
}

struct CliRun {
  int code = -1;
  std::string err;
};

/// Runs the CLI with `args` in `dir`, `input` on its standard input; collects stderr.
CliRun run_cli(const fs::path& dir, const std::vector<std::string>& args, const std::string& input) {
  const fs::path in_path = dir / ".stdin", err_path = dir.parent_path() / (dir.filename().string() + ".stderr");
  std::ofstream(in_path) << input;
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    if (!std::freopen(in_path.c_str(), "r", stdin) || !std::freopen(err_path.c_str(), "w", stderr) ||
        !std::freopen("/dev/null", "w", stdout))
      ::_exit(127);
    std::vector<char*> argv{const_cast<char*>(FASTCONV_CLI_PATH)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(FASTCONV_CLI_PATH, argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  fs::remove(in_path);
  CliRun run;
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream err(err_path);
  run.err.assign(std::istreambuf_iterator<char>(err), {});
  fs::remove(err_path);
  return run;
}

std::vector<nlohmann::json> cases() {
  std::ifstream in(FASTCONV_BAD_INPUTS);
  return nlohmann::json::parse(in).at("cases").get<std::vector<nlohmann::json>>();
}

class BadInput : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(BadInput, GetsItsExactMessageAndChangesNothing) {
  const nlohmann::json& c = GetParam();
  const fs::path root = fs::temp_directory_path() / ("fastconv_bad_input_" + std::to_string(::getpid()));
  const fs::path dir = root / "run";
  fs::remove_all(root);
  fs::create_directories(dir);
  const nlohmann::json files = c.value("files", nlohmann::json::object());
  for (const auto& [name, spec] : files.items()) make_file(dir / name, spec);
  const std::string existing = c.value("output", "");
  if (!existing.empty()) std::ofstream(dir / existing) << "an existing file that must stay as it is\n";
  const auto snapshot = [&] {  // every file's bytes (big, sparse ones by their size)
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const auto size = entry.is_regular_file() ? entry.file_size() : 0;
      std::string bytes = "size " + std::to_string(size);
      if (size < (1u << 20)) {
        std::ifstream f(entry.path(), std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(f), {});
      }
      files[entry.path().filename().string()] = bytes;
    }
    return files;
  };
  const std::map<std::string, std::string> before = snapshot();

  const CliRun run = run_cli(dir, c.at("args").get<std::vector<std::string>>(), c.value("stdin", ""));
  EXPECT_EQ(run.code, c.at("exit").get<int>());
  if (c.contains("stderr_regex")) {  // a message with a measured figure (memory available)
    EXPECT_TRUE(std::regex_match(run.err, std::regex(c["stderr_regex"].get<std::string>() + "\n"))) << run.err;
  } else {
    EXPECT_EQ(run.err, c.at("stderr").get<std::string>() + "\n");
  }
  EXPECT_EQ(snapshot(), before) << "a file was created, changed or removed";
  fs::remove_all(root);
}

std::string case_name(const ::testing::TestParamInfo<nlohmann::json>& info) {
  std::string name = info.param.at("class").get<std::string>();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return std::to_string(info.index) + "_" + name;
}

INSTANTIATE_TEST_SUITE_P(Listing, BadInput, ::testing::ValuesIn(cases()), case_name);

TEST(BadInputListing, NamesEveryClassOnce) {
  std::set<std::string> classes;
  for (const auto& c : cases()) EXPECT_TRUE(classes.insert(c.at("class").get<std::string>()).second) << c["class"];
  EXPECT_GE(classes.size(), 40u);
}

}  // namespace
