#include "sys/child_fork.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace condacuda::sys {

namespace {
using Clock = std::chrono::steady_clock;

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  void close_read() { close_fd(read_end); }
  void close_write() { close_fd(write_end); }
  ~Pipe() { close_read(); close_write(); }

private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// The argv/envp arrays are built before fork: the child only calls
// async-signal-safe functions.
struct ExecImage {
  std::vector<std::string> words;
  std::vector<std::string> env;
  std::vector<char*> argv;
  std::vector<char*> envp;
  explicit ExecImage(const ChildRequest& r) : words{r.program} {
    words.insert(words.end(), r.args.begin(), r.args.end());
    for (const auto& [k, v] : r.environment) env.push_back(k + "=" + v);
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
};

[[noreturn]] void exec_child(const ExecImage& image, const Pipe& out, const Pipe& err, const Pipe& exec_status) {
  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, 0);
  ::dup2(out.write_end, 1);
  ::dup2(err.write_end, 2);
  ::execve(image.argv[0], image.argv.data(), image.envp.data());
  int e = errno; // the parent reads it from the close-on-exec status pipe
  ssize_t ignored = ::write(exec_status.write_end, &e, sizeof e);
  (void)ignored;
  ::_exit(127);
}

// Reads what is there; false once the pipe is at EOF or broken.
bool drain(int fd, std::string& out, std::size_t limit) {
  std::array<char, 65536> chunk{};
  ssize_t n = ::read(fd, chunk.data(), chunk.size());
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  if (out.size() < limit) out.append(chunk.data(), std::min<std::size_t>(static_cast<std::size_t>(n), limit - out.size()));
  return true;
}

void record_status(util::ChildOutcome& outcome, int status) {
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
}

int millis_until(Clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 1000000));
}

// Reads both pipes until the child has exited and both are at EOF, the
// timeout (SIGKILL), or 2 s after the exit (a grandchild holding the pipes).
// Without a pidfd, the exit is noticed by polling waitpid between reads,
// at most 20 ms apart.
void supervise(pid_t pid, const ChildRequest& request, int out_fd, int err_fd, ChildRun& run, std::string& err_text) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(request.timeout_s));
  std::optional<Clock::time_point> exited_at;
  bool out_open = true, err_open = true;
  for (;;) {
    if (!exited_at) {
      int status = 0;
      pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        record_status(run.outcome, status);
        exited_at = Clock::now();
      } else if (Clock::now() >= deadline) {
        run.outcome.timed_out = true;
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        record_status(run.outcome, status);
        exited_at = Clock::now();
      }
    }
    if (exited_at && ((!out_open && !err_open) || Clock::now() - *exited_at >= std::chrono::seconds(2))) return;
    std::array<pollfd, 2> fds{pollfd{out_open ? out_fd : -1, POLLIN, 0}, pollfd{err_open ? err_fd : -1, POLLIN, 0}};
    int wait_ms = exited_at ? millis_until(*exited_at + std::chrono::seconds(2)) : std::min(20, millis_until(deadline));
    if (::poll(fds.data(), fds.size(), wait_ms) <= 0) continue; // timeout, EINTR: look at the child again
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      out_open = drain(out_fd, run.stdout_text, request.max_stdout);
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) err_open = drain(err_fd, err_text, 1u << 20);
  }
}
} // namespace

ChildRun run_child_forked(const ChildRequest& request) {
  ChildRun run;
  run.outcome.started_with = "fork";
  auto started = Clock::now();
  std::string err_text;
  ExecImage image(request);
  Pipe out, err, exec_status;
  if (!out.open() || !err.open() || !exec_status.open()) {
    run.outcome.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    run.outcome.spawn_error = std::string("fork: ") + std::strerror(errno);
    return run;
  }
  if (pid == 0) exec_child(image, out, err, exec_status);
  out.close_write();
  err.close_write();
  exec_status.close_write();
  int exec_errno = 0;
  ssize_t n;
  while ((n = ::read(exec_status.read_end, &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {}
  if (n == static_cast<ssize_t>(sizeof exec_errno)) { // execve failed: the child is gone already
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    run.outcome.spawn_error = "cannot run " + request.program + ": " + std::strerror(exec_errno);
    return run;
  }
  run.outcome.started = true;
  supervise(pid, request, out.read_end, err.read_end, run, err_text);
  run.outcome.stderr_tail = err_text.size() <= 4000 ? err_text : err_text.substr(err_text.size() - 4000);
  run.stderr_text = std::move(err_text);
  run.outcome.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return run;
}

} // namespace condacuda::sys
