#include "fastconv/backend.hpp"

#include <string>

#include "core/backend_impl.hpp"
#include "cpu/backends.hpp"
#include "fastconv/error.hpp"

namespace fastconv {

Backend Backend::reference() {
  static const auto impl = cpu::make_reference_backend();
  return Backend(impl);
}

Backend Backend::cpu(int threads) {
  if (threads < 0)
    throw Error(ErrorCode::invalid_argument,
                "cpu backend: thread count " + std::to_string(threads) + " is negative (0 means all cores)");
  return Backend(cpu::make_cpu_backend(threads));
}

Backend Backend::best() { return cpu(); }

std::vector<std::string> Backend::names() { return {"auto", "reference", "cpu"}; }

Backend Backend::from_name(std::string_view name, int threads) {
  if (name == "auto") return threads > 0 ? cpu(threads) : best();
  if (name == "reference") return reference();
  if (name == "cpu") return cpu(threads);
  std::string valid;
  for (const std::string& n : names()) valid += (valid.empty() ? "" : ", ") + n;
  throw Error(ErrorCode::invalid_argument,
              "unknown backend '" + std::string(name) + "': valid backends are " + valid);
}

std::string_view Backend::name() const noexcept { return impl_->name(); }
std::string Backend::description() const { return impl_->description(); }

std::string_view version() noexcept { return FASTCONV_VERSION; }

}  // namespace fastconv
