// tests/fuzz/cli_runner.hpp — the `fastconv` command line run in-process (fastconv::cli::run)
// inside the fuzz targets' private scratch directory, with its standard streams captured.
//
// Safety: each run works in the scratch directory (fuzz_util.hpp), and the targets build argv
// from fixed vocabularies and literals without '/', so a run reads and writes only there.
// (So libFuzzer's paths must be absolute, -artifact_prefix included, as run_fuzz.sh makes them:
// a crash inside a run is reported from the scratch directory.)
// After each run every file the run created is removed and every input file it replaced is
// written again, so each run sees the same directory.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "fuzz_util.hpp"

namespace fastconv::fuzz {

struct CliResult {
  int code = 0;
  std::string out;  ///< what the run wrote to std::cout
  std::string err;  ///< what it wrote to std::cerr
};

class CliRunner {
 public:
  /// `inputs`: file name → content, written into the scratch directory, which becomes the
  /// working directory.
  explicit CliRunner(std::map<std::string, std::string> inputs) : inputs_(std::move(inputs)) {
    single_threaded();
    // No OpenCL platform: the opencl backend then fails fast with its device error instead of
    // compiling kernels through PoCL (seconds each).
    std::filesystem::create_directories(scratch_dir() / "no-opencl-vendors");
    ::setenv("OCL_ICD_VENDORS", (scratch_dir() / "no-opencl-vendors").c_str(), 1);
    for (const auto& [name, content] : inputs_) restore(name);
    // Progress lines (out-of-core) go to the C stream stderr; libFuzzer's and the sanitizers'
    // reports use file descriptor 2 and keep it.
    stderr = std::fopen("/dev/null", "w");
    std::cout.rdbuf(&out_);
    std::cerr.rdbuf(&err_);
  }

  /// Runs `fastconv ARGS...` with `stdin_text` on standard input; then `inspect`, while the
  /// files the run wrote are still there.
  CliResult run(const std::vector<std::string>& args, std::string_view stdin_text,
                const std::function<void(const CliResult&)>& inspect = {}) {
    // The run works in the scratch directory; libFuzzer, between runs, where it was started.
    const int home = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    check(home >= 0 && ::chdir(scratch_dir().c_str()) == 0, "cannot enter the scratch directory");
    // std::cin for the text readers; file descriptor 0 for those that open /dev/stdin.
    write_scratch("stdin", stdin_text);
    const int fd = ::open("stdin", O_RDONLY | O_CLOEXEC);
    check(fd >= 0 && ::dup2(fd, 0) == 0, "cannot redirect standard input");
    ::close(fd);
    std::istringstream in{std::string(stdin_text)};
    std::cin.rdbuf(in.rdbuf());
    for (std::ostream* s : {&std::cout, &std::cerr}) s->clear();
    std::cin.clear();
    out_.str("");
    err_.str("");

    std::vector<std::string> strings{"fastconv"};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    CliResult result;
    result.code = cli::run(static_cast<int>(strings.size()), argv.data());
    std::cin.rdbuf(nullptr);
    result.out = out_.str();
    result.err = err_.str();
    if (verbose_) {  // FASTCONV_FUZZ_VERBOSE=1: what ran and how it ended, to follow an input
      std::string line = "fastconv";
      for (const std::string& arg : args) line += " '" + arg + "'";
      line += " -> " + std::to_string(result.code) + (result.err.empty() ? "\n" : ": " + result.err);
      [[maybe_unused]] const ssize_t written = ::write(2, line.data(), line.size());
    }
    if (inspect) inspect(result);
    clean_up();
    check(::fchdir(home) == 0, "cannot leave the scratch directory");
    ::close(home);
    return result;
  }

 private:
  void restore(const std::string& name) {
    const std::filesystem::path path = write_scratch(name, inputs_.at(name));
    struct stat st {};
    check(::stat(path.c_str(), &st) == 0, "cannot stat " + path.string());
    written_[name] = {st.st_ino, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
  }

  void clean_up() {
    for (const auto& entry : std::filesystem::directory_iterator(".")) {
      const std::string name = entry.path().filename().string();
      if (name == "stdin" || name == "no-opencl-vendors") continue;
      if (!inputs_.contains(name)) {
        std::filesystem::remove_all(entry.path());
        continue;
      }
      struct stat st {};
      if (::stat(name.c_str(), &st) != 0 ||
          std::pair{st.st_ino, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec} != written_[name])
        restore(name);
    }
    for (const auto& [name, content] : inputs_)  // replaced by a file that was then removed
      if (!std::filesystem::exists(name)) restore(name);
  }

  std::map<std::string, std::string> inputs_;
  std::map<std::string, std::pair<ino_t, long long>> written_;
  bool verbose_ = std::getenv("FASTCONV_FUZZ_VERBOSE") != nullptr;
  std::stringbuf out_, err_;
};

/// The contract of cli::run: exit code 0, 1 (environment) or 2 (bad input or usage), and a
/// failure says so on stderr in one line "fastconv: error: <message>". Nothing in the fuzz targets'
/// vocabulary runs out of memory or escapes as an unexpected exception.
inline void check_cli_result(const CliResult& r) {
  check(r.code == 0 || r.code == 1 || r.code == 2, "exit code " + std::to_string(r.code));
  if (r.code == 0) return;
  check(r.err.starts_with("fastconv: error: ") && r.err.size() > 18 && r.err.find('\n') == r.err.size() - 1,
        "a failure without one line 'fastconv: error: <message>': '" + r.err + "'");
  check(!r.err.starts_with("fastconv: error: internal error: ") && !r.err.starts_with("fastconv: error: out of memory"),
        "an unexpected failure: " + r.err);
}

}  // namespace fastconv::fuzz
