// fastconv — the command-line tool. Exit codes: 0 success, 2 bad input or usage,
// 1 environment or device failure, 130 interrupted (SIGINT), 143 terminated (SIGTERM).
// Errors go to stderr as "fastconv: error: <message>".
#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "common.hpp"
#include "core/files.hpp"

namespace {

/// SIGINT and SIGTERM: remove the unfinished output (every temporary file an AtomicFile holds;
/// existing outputs are only ever replaced by a rename, so they stay untouched), say so, and
/// exit at once with 128 + the signal number, as a shell reports a process the signal killed.
/// Only async-signal-safe calls: unlink (in remove_temporary_files), write and _exit.
extern "C" void on_interrupt(int signal_number) {
  fastconv::detail::remove_temporary_files();
  const char* message = signal_number == SIGINT ? "fastconv: interrupted (SIGINT); unfinished output removed\n"
                                                : "fastconv: terminated (SIGTERM); unfinished output removed\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message, std::strlen(message));
  ::_exit(128 + signal_number);
}

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);  // one handler at a time, whichever signal comes first
  sigaddset(&action.sa_mask, SIGTERM);
  for (const int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction previous {};
    // A signal the parent set to be ignored (nohup, a background job) stays ignored.
    if (::sigaction(signal_number, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    ::sigaction(signal_number, &action, nullptr);
  }
}

/// SIGXFSZ, which a write past the file-size limit (ulimit -f) raises, would kill the process
/// with its temporary files left behind and no message. Ignored, the write fails with EFBIG
/// instead: "cannot write: File too large", exit 2, the unfinished output removed.
void ignore_file_size_signal() { ::signal(SIGXFSZ, SIG_IGN); }

}  // namespace

int main(int argc, char** argv) {
  install_interrupt_handlers();
  ignore_file_size_signal();
  return fastconv::cli::run(argc, argv);
}
