// SIGINT and SIGTERM during a `fastconv` run: the process stops at once, removes its unfinished
// (temporary) output, leaves existing files as they were and exits 130 or 143. A write past the
// file-size limit (SIGXFSZ) is an error like any failed write.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#ifndef FASTCONV_CLI_PATH
#error "FASTCONV_CLI_PATH must point at the fastconv executable"
#endif

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr const char* kExisting = "an existing file that must stay as it is\n";

class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fastconv_interrupt_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "out.npy") << kExisting;
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A .npy file of 2^log2n float32 zeros (sparse: it takes no disk space to make).
  void make_input(int log2n) const {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(1ull << log2n) + ",), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    std::ofstream(dir_ / "in.npy", std::ios::binary) << bytes << header;
    fs::resize_file(dir_ / "in.npy", bytes.size() + header.size() + (std::uint64_t{4} << log2n));
  }

  /// Starts the CLI in the directory, its stdin the read end of a pipe kept open (`stdin_writer`),
  /// with files limited to `file_size_limit` bytes (ulimit -f) if that is not 0.
  pid_t start(const std::vector<std::string>& args, rlim_t file_size_limit = 0) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(fds[0], STDIN_FILENO);
      ::close(fds[1]);
      const int err = ::open((dir_.string() + ".stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(err, STDERR_FILENO);
      if (::chdir(dir_.c_str()) != 0) ::_exit(127);
      const struct rlimit limit{file_size_limit, file_size_limit};
      if (file_size_limit != 0 && ::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(127);
      std::vector<char*> argv{const_cast<char*>(FASTCONV_CLI_PATH)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(FASTCONV_CLI_PATH, argv.data());
      ::_exit(127);
    }
    ::close(fds[0]);
    stdin_writer_ = fds[1];
    return pid;
  }

  /// Waits for the child; its exit code (128 + N if signal N killed it), or −1 after 30 s.
  int wait(pid_t pid) {
    for (auto until = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < until;) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        ::close(stdin_writer_);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(1ms);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }

  /// Whether a temporary file exists beside out.npy.
  bool temporary_exists() const {
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.path().filename().string().rfind(".out.npy.tmp-", 0) == 0) return true;
    return false;
  }

  std::set<std::string> files() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.insert(entry.path().filename().string());
    return names;
  }

  std::string stderr_text() const {
    std::ifstream in(dir_.string() + ".stderr");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    fs::remove(dir_.string() + ".stderr");
    return text;
  }

  std::string existing_output() const {
    std::ifstream in(dir_ / "out.npy");
    return {std::istreambuf_iterator<char>(in), {}};
  }

  /// Interrupts an out-of-core WHT (its output is a temporary file from the start) with `signal`.
  void interrupt_out_of_core(int signal, int expected_code, const std::string& expected_message) {
    make_input(26);  // 256 MiB through a 4 MiB budget: seconds of work
    const pid_t pid = start({"wht", "--out-of-core", "--memory", "4M", "--quiet", "in.npy", "out.npy"});
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (!temporary_exists() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(temporary_exists()) << "the run made no temporary output";
    const auto sent = std::chrono::steady_clock::now();
    ::kill(pid, signal);
    EXPECT_EQ(wait(pid), expected_code);
    EXPECT_LT(std::chrono::steady_clock::now() - sent, 5s) << "it did not stop promptly";
    EXPECT_EQ(stderr_text(), expected_message);
    EXPECT_EQ(files(), (std::set<std::string>{"in.npy", "out.npy"})) << "a temporary file was left behind";
    EXPECT_EQ(existing_output(), kExisting);
  }

  fs::path dir_;
  int stdin_writer_ = -1;
};

TEST_F(Interrupt, SigintRemovesTheUnfinishedOutputAndExits130) {
  interrupt_out_of_core(SIGINT, 130, "fastconv: interrupted (SIGINT); unfinished output removed\n");
}

TEST_F(Interrupt, SigtermRemovesTheUnfinishedOutputAndExits143) {
  interrupt_out_of_core(SIGTERM, 143, "fastconv: terminated (SIGTERM); unfinished output removed\n");
}

// A run waiting for standard input stops as promptly.
TEST_F(Interrupt, SigtermWhileReadingStandardInput) {
  const pid_t pid = start({"wht", "-", "out.npy"});
  std::this_thread::sleep_for(200ms);  // in read() by now (or soon: the signal is handled either way)
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait(pid), 143);
  EXPECT_EQ(stderr_text(), "fastconv: terminated (SIGTERM); unfinished output removed\n");
  EXPECT_EQ(files(), (std::set<std::string>{"out.npy"}));
  EXPECT_EQ(existing_output(), kExisting);
}

// Past `ulimit -f`, the kernel sends SIGXFSZ, which had killed the process (exit 153) with no
// message and its temporary output left behind; the write's own error is reported instead.
TEST_F(Interrupt, WritesPastTheFileSizeLimitAreAnErrorThatLeavesNothing) {
  make_input(14);  // 64 KiB in, 64 KiB out, against a limit of 20 KiB
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"wht", "in.npy", "out.npy"},
        std::vector<std::string>{"wht", "--out-of-core", "--memory", "8K", "--quiet", "in.npy", "out.npy"}}) {
    EXPECT_EQ(wait(start(args, 20 << 10)), 2) << args[1];
    EXPECT_NE(stderr_text().find("fastconv: error: out.npy: cannot write: File too large"), std::string::npos) << args[1];
    EXPECT_EQ(files(), (std::set<std::string>{"in.npy", "out.npy"})) << "a temporary file was left behind: " << args[1];
    EXPECT_EQ(existing_output(), kExisting);
  }
}

}  // namespace
