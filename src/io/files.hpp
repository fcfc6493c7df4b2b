// src/io/files.hpp — POSIX file handles for the readers and the atomic writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace fastconv::io::detail {

/// A file open for reading; every failure is an io Error naming the file.
class InputFile {
 public:
  explicit InputFile(const std::filesystem::path& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The file's size; an io Error unless it is a regular file (a pipe has no size to check).
  [[nodiscard]] std::uint64_t size() const;
  /// Reads exactly `count` bytes; running out early is a truncation error.
  void read_exact(void* destination, std::size_t count);
  /// Reads everything from the current position to the end.
  std::string read_rest();

 private:
  std::size_t read_some(char* destination, std::size_t count);

  std::string name_;
  int fd_ = -1;
  bool regular_ = false;
  std::uint64_t size_ = 0;
};

/// Writes a temporary file beside `target` and renames it over `target` on commit(), so
/// readers of `target` see the old file or the complete new one, never a partial one.
/// Destroying it uncommitted removes the temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace fastconv::io::detail
