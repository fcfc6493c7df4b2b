#include "core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

#include "fastconv/error.hpp"

namespace fastconv::detail {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(ErrorCode code, std::string_view source, std::string_view what) {
  throw Error(code, std::string(source) + ": " + std::string(what));
}

[[noreturn]] void fail_errno(std::string_view source, std::string_view action, int error) {
  fail(ErrorCode::io, source, std::string(action) + ": " + std::strerror(error));
}

// Unique enough that O_EXCL rarely has to retry; O_EXCL, not the name, guarantees safety.
std::string temporary_name(const fs::path& target) {
  static std::atomic<std::uint64_t> counter{0};
  const auto clock = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const std::uint64_t tag =
      clock ^ (static_cast<std::uint64_t>(::getpid()) << 40) ^ (counter.fetch_add(1) * 0x9E3779B97F4A7C15ULL);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(tag));
  // Shortened so that a name near NAME_MAX (255) still leaves room for the decoration.
  return "." + target.filename().string().substr(0, 200) + ".tmp-" + hex;
}

/// The temporary files that exist now, for remove_temporary_files(), which a signal handler
/// calls: a fixed table of lock-free slots, so that reading it neither allocates nor locks.
struct TemporarySlot {
  enum : int { kFree, kFilling, kLive };
  std::atomic<int> state{kFree};
  char path[4096];
};
static_assert(std::atomic<int>::is_always_lock_free);
constexpr int kTemporarySlots = 64;  // more files open at once than any run writes
TemporarySlot temporary_slots[kTemporarySlots];

/// The slot now holding `path`, or -1 when the table is full or the path too long (that
/// file is then only removed by its AtomicFile).
int register_temporary(const fs::path& path) noexcept {
  const std::string& name = path.native();
  if (name.size() >= sizeof(TemporarySlot::path)) return -1;
  for (int i = 0; i < kTemporarySlots; ++i) {
    int expected = TemporarySlot::kFree;
    if (temporary_slots[i].state.compare_exchange_strong(expected, TemporarySlot::kFilling)) {
      std::memcpy(temporary_slots[i].path, name.c_str(), name.size() + 1);
      temporary_slots[i].state.store(TemporarySlot::kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int slot) noexcept {
  if (slot >= 0) temporary_slots[slot].state.store(TemporarySlot::kFree, std::memory_order_release);
}

/// Reads exactly `count` bytes at `offset` of `fd` with pread (the file position is unchanged).
void read_fully(int fd, const std::string& name, std::uint64_t offset, char* out, std::size_t count) {
  while (count > 0) {
    const ssize_t n = ::pread(fd, out, count, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(name, "cannot read", errno);
    if (n == 0)
      fail(ErrorCode::io, name,
           "truncated: the file ended " + std::to_string(count) + " bytes early (did it change while being read?)");
    out += n;
    count -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

}  // namespace

InputFile::InputFile(const fs::path& path) : name_(path.string()) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail_errno(name_, "cannot open", errno);
  struct stat info {};
  const int error = ::fstat(fd_, &info) != 0 ? errno : S_ISDIR(info.st_mode) ? EISDIR : 0;
  if (error != 0) {
    ::close(fd_);
    fail_errno(name_, "cannot open", error);
  }
  regular_ = S_ISREG(info.st_mode);
  size_ = static_cast<std::uint64_t>(info.st_size);
}

InputFile::~InputFile() { ::close(fd_); }

std::uint64_t InputFile::size() const {
  if (!regular_) fail(ErrorCode::io, name_, "not a regular file: binary input must be a file whose size is known");
  return size_;
}

std::size_t InputFile::read_some(char* destination, std::size_t count) {
  ssize_t n = 0;
  do {
    n = ::read(fd_, destination, count);
  } while (n < 0 && errno == EINTR);
  if (n < 0) fail_errno(name_, "cannot read", errno);
  return static_cast<std::size_t>(n);
}

void InputFile::read_exact(void* destination, std::size_t count) {
  auto* out = static_cast<char*>(destination);
  while (count > 0) {
    const std::size_t n = read_some(out, count);
    if (n == 0) {
      fail(ErrorCode::io, name_,
           "truncated: the file ended " + std::to_string(count) + " bytes early (did it change while being read?)");
    }
    out += n;
    count -= n;
  }
}

std::string InputFile::read_rest() {
  std::string text;
  std::array<char, 1 << 16> chunk{};
  while (const std::size_t n = read_some(chunk.data(), chunk.size())) text.append(chunk.data(), n);
  return text;
}

void InputFile::read_at(std::uint64_t offset, void* destination, std::size_t count) const {
  read_fully(fd_, name_, offset, static_cast<char*>(destination), count);
}

namespace {

/// The file a write to `target` replaces: `target` itself, or the file at the end of a chain of
/// symbolic links there (the links stay links, as when a shell's > writes through them), which
/// is created if it does not exist. A link to anything but a regular file (a directory, a
/// device, a FIFO) is an io Error: the rename would replace that file with a regular one.
fs::path replaced_file(const fs::path& target) {
  fs::path file = target;
  std::error_code error;
  for (int links = 0; fs::is_symlink(file, error); ++links) {
    const fs::path next = fs::read_symlink(file, error);
    if (error || links == 40)  // the kernel's own limit on a chain (ELOOP)
      fail(ErrorCode::io, target.string(), "cannot follow its symbolic link" + (error ? ": " + error.message() : ""));
    file = next.is_absolute() ? next : file.parent_path() / next;
  }
  const fs::file_status status = fs::status(file, error);
  if (file != target && fs::exists(status) && !fs::is_regular_file(status))
    fail(ErrorCode::io, target.string(),
         "a symbolic link to " + file.string() + ", which is not a regular file: give the name of a file to write");
  return file;
}

}  // namespace

AtomicFile::AtomicFile(const fs::path& target) : target_(target), replaced_(replaced_file(target)) {
  const fs::path directory = replaced_.has_parent_path() ? replaced_.parent_path() : fs::path(".");
  int error = EEXIST;
  for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
    temporary_ = directory / temporary_name(replaced_);
    // Registered before it exists: a signal between open() and the registration would leave
    // the file behind. (A signal before open() unlinks a name that is not there; the names are
    // random 64-bit, so an existing file of the same name, O_EXCL's EEXIST, is not expected.)
    slot_ = register_temporary(temporary_);
    // open() rather than mkstemp() so the file gets the mode the umask gives any new file.
    fd_ = ::open(temporary_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    error = fd_ < 0 ? errno : 0;
    if (error != 0) unregister_temporary(std::exchange(slot_, -1));
  }
  if (error != 0) {
    fail_errno(target.string(), "cannot create a temporary file in '" + directory.string() + "'", error);
  }
  // A file replaced keeps its permission bits (a private 0600 file stays private), though not
  // set-user-ID and the like, which would now apply to this process's user; a new file gets the
  // mode the umask gives any new file. Until commit() the owner may write it whatever that
  // mode is: the distributed writer's ranks reopen the temporary file by its name.
  struct stat existing {};
  if (::stat(replaced_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
    kept_mode_ = existing.st_mode & 0777;
    ::fchmod(fd_, *kept_mode_ | S_IWUSR);
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temporary_.c_str());
  unregister_temporary(slot_);
}

void AtomicFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(target_.string(), "cannot write", errno);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicFile::write_at(std::uint64_t offset, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(target_.string(), "cannot write", errno);
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

void AtomicFile::read_at(std::uint64_t offset, void* destination, std::size_t count) const {
  read_fully(fd_, target_.string(), offset, static_cast<char*>(destination), count);
}

void AtomicFile::commit() {
  if (kept_mode_ && ::fchmod(fd_, *kept_mode_) != 0) fail_errno(target_.string(), "cannot set its permissions", errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  // close() reports write errors that were deferred (NFS, quotas).
  if (closed != 0) fail_errno(target_.string(), "cannot write", errno);
  std::error_code error;
  fs::rename(temporary_, replaced_, error);
  if (error) fail(ErrorCode::io, target_.string(), "cannot replace it with the new file: " + error.message());
  committed_ = true;
  unregister_temporary(std::exchange(slot_, -1));  // after the rename: a signal before it still removes the file
}

void remove_temporary_files() noexcept {
  for (TemporarySlot& slot : temporary_slots)
    if (slot.state.load(std::memory_order_acquire) == TemporarySlot::kLive) ::unlink(slot.path);
}

}  // namespace fastconv::detail
