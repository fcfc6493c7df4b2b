// tools/fastconv/run.cpp — the command line parsed and run (main.cpp, and the CLI fuzz target,
// call it). Exit codes: 0 success, 2 bad input or usage, 1 environment or device failure.
// Errors go to stderr as "fastconv: error: <message>".
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <new>

#include "common.hpp"

namespace {

int fail(const std::string& message, int code) {
  std::cerr << "fastconv: error: " << message << '\n';
  return code;
}

}  // namespace

int fastconv::cli::run(int argc, char** argv) {
  using namespace fastconv;
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
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return fail(std::string(e.what()) + " (see 'fastconv --help')", 2);
  }

  try {
    const int status = action();
    // What a command printed to standard output (a report, a table, a result) is its result: a
    // write that failed there (a full disk, a closed pipe) fails the command.
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
      throw Error(ErrorCode::io, "<stdout>: write failed");
    return status;
  } catch (const Error& e) {
    return fail(e.what(), cli::exit_code(e));
  } catch (const std::bad_alloc&) {
    return fail("out of memory: the data did not fit in the memory this process may use; give it smaller inputs or sizes, or run it where more memory is free", 1);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
