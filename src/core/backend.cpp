#include "fastconv/backend.hpp"

#include <string>

#include "core/backend_impl.hpp"
#include "cpu/backends.hpp"
#include "cpu/isa.hpp"
#include "fastconv/error.hpp"

namespace fastconv {

Backend Backend::reference() {
  static const auto impl = cpu::make_reference_backend();
  return Backend(impl);
}

namespace {
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}
}  // namespace

Backend Backend::cpu(int threads, std::string_view variant) {
  if (threads < 0)
    throw Error(ErrorCode::invalid_argument,
                "cpu backend: thread count " + std::to_string(threads) + " is negative (0 means all cores)");
  if (variant.empty()) return Backend(cpu::make_cpu_backend(threads));
  for (const cpu::IsaKernels* isa : cpu::supported_isas())
    if (isa->name == variant) return Backend(cpu::make_cpu_backend(threads, *isa));
  throw Error(ErrorCode::invalid_argument, "unknown variant '" + std::string(variant) +
                                               "' of backend cpu: valid variants on this CPU are " +
                                               join(cpu::supported_isa_names()));
}

Backend Backend::best() { return cpu(); }

std::vector<std::string> Backend::names() { return {"auto", "reference", "cpu"}; }

Backend Backend::from_name(std::string_view name, int threads, std::string_view variant) {
  if (name == "auto" || name == "cpu") return cpu(threads, variant);
  if (name == "reference") {
    const Backend b = reference();
    if (!variant.empty() && variant != b.variant())
      throw Error(ErrorCode::invalid_argument, "unknown variant '" + std::string(variant) +
                                                   "' of backend reference: valid variants are " + join(b.variants()));
    return b;
  }
  throw Error(ErrorCode::invalid_argument,
              "unknown backend '" + std::string(name) + "': valid backends are " + join(names()));
}

std::string_view Backend::name() const noexcept { return impl_->name(); }
std::string Backend::description() const { return impl_->description(); }
std::string_view Backend::variant() const noexcept { return impl_->variant(); }
std::vector<std::string> Backend::variants() const { return impl_->variants(); }

std::string_view version() noexcept { return FASTCONV_VERSION; }

}  // namespace fastconv
