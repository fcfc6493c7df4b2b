// fastconv info — version, backends and their variants, instruction sets and threads.
#include <algorithm>
#include <iostream>

#include "common.hpp"

namespace fastconv::cli {
namespace {

std::string mebibytes(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

int run_info() {
  std::cout << "fastconv " << version() << "\n\nbackends:\n";
  for (const auto& name : Backend::names()) {
    if (name == "auto") continue;
    try {
      const Backend backend = Backend::from_name(name);
      std::cout << "  " << backend.description() << "\n    variants:";
      const auto variants = backend.variants();
      for (std::size_t i = 0; i < variants.size(); ++i)
        std::cout << (i ? ", " : " ") << variants[i] << (variants[i] == backend.variant() ? " (default)" : "");
    } catch (const Error& e) {  // a device backend without a device: say why
      std::cout << "  " << name << ": not available: " << e.what() << "\n    variants:";
      const auto variants = Backend::variants_of(name);
      for (std::size_t i = 0; i < variants.size(); ++i) std::cout << (i ? ", " : " ") << variants[i];
    }
    std::cout << '\n';
  }
  std::cout << "  auto = " << Backend::best().name() << "\n\nconv2d FFTs (cpu): " << conv2d_fft_library()
            << "\n\ndevices:\n";
  const auto found = devices();
  const auto names = Backend::names();
  if (std::find(names.begin(), names.end(), "opencl") == names.end())
    std::cout << "  the CPU only (this build has no OpenCL or CUDA backend)\n";
  else if (found.empty())
    std::cout << "  no OpenCL device found (for the CPU: apt-get install pocl-opencl-icd)\n";
  for (const Device& d : found)
    std::cout << "  " << d.backend << " " << d.id << ": " << d.name << " (" << d.type << ", " << d.platform << ")\n"
              << "    " << d.version << "; " << d.compute_units << " compute units, " << mebibytes(d.global_memory_bytes)
              << " global memory, " << (d.local_memory_bytes >> 10) << " KiB local memory, work-groups up to "
              << d.max_work_group_size << (d.fp64 ? ", double precision" : ", no double precision") << '\n';
  return 0;
}

}  // namespace

void add_info_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("info", "Version, backends and devices found, SIMD level, threads");
  cmd->footer("Variants are listed slowest first. FASTCONV_CPU_ISA=VARIANT (or --variant on a command) forces the\n"
              "cpu backend's instruction set; OMP_NUM_THREADS (or --threads) limits its threads.\n"
              "FASTCONV_OPENCL_DEVICE=P:D (or --device on a command) picks the opencl backend's device.");
  cmd->callback([&action] { action = run_info; });
}

}  // namespace fastconv::cli
