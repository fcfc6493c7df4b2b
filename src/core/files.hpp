// src/core/files.hpp — POSIX file handles: the I/O module's readers and atomic writer, and the
// out-of-core transforms' positional reads and writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fastconv::detail {

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
  /// Reads exactly `count` bytes at byte `offset` (the position read_exact uses is unchanged).
  void read_at(std::uint64_t offset, void* destination, std::size_t count) const;

 private:
  std::size_t read_some(char* destination, std::size_t count);

  std::string name_;
  int fd_ = -1;
  bool regular_ = false;
  std::uint64_t size_ = 0;
};

/// Writes a temporary file beside `target` and renames it over `target` on commit(), so
/// readers of `target` see the old file or the complete new one, never a partial one. A
/// symbolic link is written through (the regular file it points to is replaced, or created;
/// a link to anything else is an io Error), and a file replaced keeps its permission bits.
/// Destroying it uncommitted removes the temporary file; so does remove_temporary_files().
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  /// Writes `bytes` at byte `offset` of the temporary file (the position write uses is unchanged).
  void write_at(std::uint64_t offset, std::string_view bytes);
  /// Reads back `count` bytes at `offset` of what has been written (out-of-core passes).
  void read_at(std::uint64_t offset, void* destination, std::size_t count) const;
  /// The temporary file, for writers that open it themselves (MPI-IO); committed as any other.
  [[nodiscard]] const std::filesystem::path& temporary_path() const noexcept { return temporary_; }
  void commit();

 private:
  std::filesystem::path target_;    ///< as given: named in errors
  std::filesystem::path replaced_;  ///< target_, or the file a symbolic link there points to
  std::filesystem::path temporary_;
  std::optional<unsigned> kept_mode_;  ///< the replaced file's permission bits, set at commit()
  int fd_ = -1;
  int slot_ = -1;  ///< its entry in the table remove_temporary_files() reads
  bool committed_ = false;
};

/// Removes the temporary file of every AtomicFile that exists now. Async-signal-safe (it only
/// reads a fixed table and calls unlink): the CLI calls it from its SIGINT/SIGTERM handler so
/// that an interrupted run leaves no partial output behind.
void remove_temporary_files() noexcept;

}  // namespace fastconv::detail
