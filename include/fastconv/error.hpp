// fastconv/error.hpp — the one exception type of the library.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace fastconv {

/// What kind of failure an Error reports. The CLI maps invalid_argument, io,
/// unsupported and overflow to exit code 2 (bad input) and device and out_of_memory to exit
/// code 1 (environment).
enum class ErrorCode {
  invalid_argument,  ///< bad sizes, lengths, options or values
  io,                ///< a file could not be read or written, or is malformed
  unsupported,       ///< a valid request this build, type or backend cannot honour
  device,            ///< a backend or device failed or is missing
  overflow,          ///< an exact integer result does not fit its type
  out_of_memory,     ///< the work needs more memory (host or device) than is available: refused before allocating
};

/// Human-readable name of an error code ("invalid_argument", ...).
std::string_view to_string(ErrorCode code) noexcept;

/// Every failure the library reports is an Error; what() is a complete sentence
/// ("<what, where, why>") suitable for showing to a user as it is.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace fastconv
