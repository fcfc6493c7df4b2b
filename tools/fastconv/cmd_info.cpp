// fastconv info — version, backends, instruction sets and threads.
#include <iostream>

#include "common.hpp"

namespace fastconv::cli {
namespace {

int run_info() {
  std::cout << "fastconv " << version() << "\n\nbackends:\n";
  for (const auto& name : Backend::names()) {
    if (name == "auto") continue;
    std::cout << "  " << Backend::from_name(name).description() << '\n';
  }
  std::cout << "  auto = " << Backend::best().name() << "\n\n"
            << "devices: the CPU only (this build has no OpenCL or CUDA backend)\n";
  return 0;
}

}  // namespace

void add_info_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand("info", "Version, backends and devices found, SIMD level, threads");
  cmd->footer("Set FASTCONV_CPU_ISA=baseline|avx2|avx512 to force the cpu backend's instruction set\n"
              "and OMP_NUM_THREADS (or --threads) to limit its threads.");
  cmd->callback([&action] { action = run_info; });
}

}  // namespace fastconv::cli
