// tests/fuzz/fuzz_util.hpp — what the fuzz targets share: a private scratch directory for the
// readers that take a path, and the rule for bad input.
//
// Bad input must be a fastconv::Error whose message names the input; anything else (another
// exception, a crash, a sanitizer report, a leak, a huge allocation, a hang) is a bug, so the
// targets catch fastconv::Error only and let the rest reach libFuzzer.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fastconv/error.hpp"

namespace fastconv::fuzz {

/// The fuzz input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Aborts, printing `what`, unless `condition`: libFuzzer then reports the input as a crash.
/// (Written to file descriptor 2 itself: the CLI's target silences the C stream stderr.)
inline void check(bool condition, std::string_view what) {
  if (condition) return;
  const std::string line = "fuzz check failed: " + std::string(what) + "\n";
  [[maybe_unused]] const ssize_t written = ::write(2, line.data(), line.size());
  std::abort();
}

/// Runs `f`; returns the message of the fastconv::Error it throws, or nullopt if it returns.
template <class F>
std::optional<std::string> error_of(F&& f) {
  try {
    f();
    return std::nullopt;
  } catch (const Error& e) {
    const std::string_view message = e.what();
    check(!message.empty() && message.find('\n') == std::string_view::npos,
          "an Error's message is empty or not one line: '" + std::string(message) + "'");
    return std::string(e.what());
  }
}

/// Like error_of, and the message must name `source` (the file or stream read).
template <class F>
std::optional<std::string> error_naming(std::string_view source, F&& f) {
  auto error = error_of(std::forward<F>(f));
  if (error)
    check(error->find(source) != std::string::npos, "the error '" + *error + "' does not name " + std::string(source));
  return error;
}

/// A private directory made once per process (under /dev/shm, else $TMPDIR or /tmp) and
/// removed at exit; the CLI target runs inside it.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : tmp != nullptr ? tmp : "/tmp";
    std::string name = base + "/fastconv-fuzz-XXXXXX";
    check(::mkdtemp(name.data()) != nullptr, "cannot make a scratch directory under " + base);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return std::filesystem::path(name);
  }();
  return dir;
}

/// Writes `bytes` to the file `name` of the scratch directory, replacing it; returns its path.
inline std::filesystem::path write_scratch(std::string_view name, std::string_view bytes) {
  std::filesystem::path path = scratch_dir() / name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  check(fd >= 0, "cannot write " + path.string());
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    check(n > 0, "cannot write " + path.string());
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return path;
}

/// One thread for OpenMP and OpenBLAS unless the environment says otherwise: the inputs are
/// small, and a fuzzer runs one input at a time.
inline void single_threaded() {
  ::setenv("OMP_NUM_THREADS", "1", 0);
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
}

}  // namespace fastconv::fuzz
