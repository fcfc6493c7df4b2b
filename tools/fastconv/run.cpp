// tools/fastconv/run.cpp — the command line parsed and run (main.cpp, and the CLI fuzz target,
// call it). Exit codes: 0 success, 2 bad input or usage, 1 environment or device failure.
// Errors go to stderr as "fastconv: error: <message>".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <iostream>
#include <new>

#include "common.hpp"

namespace {

/// Whether this process is a rank other than 0 of an mpirun job (Open MPI, MPICH/Hydra or PMIx
/// says so in its environment) running a --distributed command: the ranks' command lines are the
/// same, so a usage error found before the ranks talk to each other is every rank's, and rank 0
/// alone prints it (the errors after that are agreed and printed by rank 0 anyway).
bool another_rank_prints(int argc, char** argv) {
  if (std::none_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--distributed"; }))
    return false;
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* rank = std::getenv(variable); rank != nullptr) return std::string_view(rank) != "0";
  return false;
}

bool quiet = false;  ///< another_rank_prints() for this run

int fail(const std::string& message, int code) {
  if (!quiet) std::cerr << "fastconv: error: " << message << '\n';
  return code;
}

/// Whether everything written to standard output got there. What a command printed there (a
/// report, a table, a result, --help) is its result: a write that failed (a full disk; a closed
/// pipe, where SIGPIPE is ignored) fails the command.
bool stdout_written() {
  std::cout.flush();
  return std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout);
}

constexpr const char* kStdoutFailed = "<stdout>: write failed";

}  // namespace

int fastconv::cli::run(int argc, char** argv) {
  using namespace fastconv;
  std::cout.clear();  // a failed write is the run's own (the fuzz target calls run() again and again)
  std::clearerr(stdout);
  quiet = another_rank_prints(argc, argv);
  CLI::App app{"fastconv — fast Walsh–Hadamard transform, dyadic convolution, Boolean function and S-box analysis, 2-D NN convolution", "fastconv"};
  app.set_version_flag("--version", "fastconv " + std::string(version()));
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::simple);

  cli::Action action;
  cli::add_wht_command(app, action);
  cli::add_dyadic_command(app, action);
  cli::add_boolean_command(app, action);
  cli::add_sbox_command(app, action);
  cli::add_conv2d_command(app, action);
  cli::add_info_command(app, action);
  cli::add_demo_command(app, action);
  cli::add_bench_command(app, action);

  const auto commands = app.get_subcommands([](const CLI::App*) { return true; });
  const auto is_command = [&](std::string_view name) {
    return std::any_of(commands.begin(), commands.end(), [&](const CLI::App* c) { return c->get_name() == name; });
  };
  if (argc <= 1) return fail("no command: use wht, dyadic, boolean, sbox, conv2d, bench, info or demo (see 'fastconv --help')", 2);
  if (argv[1][0] != '-' && !is_command(argv[1]))
    return fail("unknown command '" + std::string(argv[1]) + "': use wht, dyadic, boolean, sbox, conv2d, bench, info or demo (see 'fastconv --help')", 2);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      const int status = app.exit(e);
      return stdout_written() ? status : fail(kStdoutFailed, 2);
    }
    return fail(std::string(e.what()) + " (see 'fastconv --help')", 2);
  }

  try {
    const int status = action();
    if (!stdout_written()) throw Error(ErrorCode::io, kStdoutFailed);
    return status;
  } catch (const Error& e) {
    // The library's memory refusals say what needs how much; the fix is the caller's.
    if (e.code() == ErrorCode::out_of_memory && dynamic_cast<const cli::AdvisedError*>(&e) == nullptr)
      return fail(std::string(e.what()) + ": give it smaller inputs or sizes, or run it where more memory is free", 1);
    return fail(e.what(), cli::exit_code(e));
  } catch (const std::bad_alloc&) {
    return fail("out of memory: the data did not fit in the memory this process may use; give it smaller inputs or sizes, or run it where more memory is free", 1);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
