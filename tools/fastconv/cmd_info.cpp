// fastconv info — version, backends and their variants, instruction sets and threads.
#include <iostream>

#include "common.hpp"

namespace fastconv::cli {
namespace {

int run_info() {
  std::cout << "fastconv " << version() << "\n\nbackends:\n";
  for (const auto& name : Backend::names()) {
    if (name == "auto") continue;
    const Backend backend = Backend::from_name(name);
    std::cout << "  " << backend.description() << "\n    variants:";
    const auto variants = backend.variants();
    for (std::size_t i = 0; i < variants.size(); ++i)
      std::cout << (i ? ", " : " ") << variants[i] << (variants[i] == backend.variant() ? " (default)" : "");
    std::cout << '\n';
  }
  std::cout << "  auto = " << Backend::best().name() << "\n\n"
            << "devices: the CPU only (this build has no OpenCL or CUDA backend)\n";
  return 0;
}

}  // namespace

void add_info_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("info", "Version, backends and devices found, SIMD level, threads");
  cmd->footer("Variants are listed slowest first. FASTCONV_CPU_ISA=VARIANT (or --variant on a command) forces the\n"
              "cpu backend's instruction set; OMP_NUM_THREADS (or --threads) limits its threads.");
  cmd->callback([&action] { action = run_info; });
}

}  // namespace fastconv::cli
