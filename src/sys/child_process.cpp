#include "sys/child_process.hpp"
#include "sys/child_fork.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <boost/version.hpp>
// Boost 1.80-1.85 ship Process v2 header-only, but environment.hpp does not
// pull in impl/environment.ipp (process_environment::on_setup): include it in
// this, the one translation unit that starts processes (its include guard
// makes this harmless where a later version does include it). From 1.86 on
// it is in the compiled Boost::process library that CMake links.
#if BOOST_VERSION < 108600 && defined(BOOST_PROCESS_V2_HEADER_ONLY)
#include <boost/process/v2/impl/environment.ipp>
#endif
#include <array>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <functional>
#include <cstdlib>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace condacuda::sys {

namespace asio = boost::asio;
namespace bp = boost::process::v2;

namespace {
// Reads a pipe to EOF (or `limit` bytes) into `out`, chunk by chunk.
class PipeReader {
public:
  PipeReader(asio::readable_pipe& pipe, std::string& out, std::size_t limit, std::function<void()> on_done)
      : pipe_(pipe), out_(out), limit_(limit), on_done_(std::move(on_done)) {}
  void start() {
    pipe_.async_read_some(asio::buffer(chunk_), [this](boost::system::error_code ec, std::size_t n) {
      if (out_.size() < limit_) out_.append(chunk_.data(), std::min(n, limit_ - out_.size()));
      if (ec) { // EOF, or closed after the grace period
        done_ = true;
        on_done_();
        return;
      }
      start();
    });
  }
  bool done() const { return done_; }

private:
  asio::readable_pipe& pipe_;
  std::string& out_;
  std::size_t limit_;
  std::function<void()> on_done_;
  std::array<char, 65536> chunk_{};
  bool done_ = false;
};

std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

std::vector<std::string> env_strings(const Environment& env) {
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}
// Boost.Process v2 waits for the child through pidfd_open(2) on Linux and
// finds out it cannot only after fork (the child would run unwatched): ask
// the kernel first, once. CONDACUDA_CHILD_START=fork forces the fallback
// (the tests run the check's child both ways).
bool pidfd_open_works() {
  static const bool works = [] {
    const char* forced = std::getenv("CONDACUDA_CHILD_START");
    if (forced && std::string(forced) == "fork") return false;
#if defined(SYS_pidfd_open)
    long fd = ::syscall(SYS_pidfd_open, ::getpid(), 0);
    if (fd < 0) return false;
    ::close(static_cast<int>(fd));
    return true;
#else
    return false;
#endif
  }();
  return works;
}

ChildRun run_child_with_boost(const ChildRequest& request) {
  ChildRun run;
  run.outcome.started_with = "pidfd";
  auto started = std::chrono::steady_clock::now();
  std::string err_text;
  try {
    asio::io_context ctx;
    asio::readable_pipe out(ctx), err(ctx);
    std::vector<std::string> env = env_strings(request.environment); // outlives the launch
    bp::process proc(ctx, request.program, request.args, bp::process_stdio{nullptr, out, err},
                     bp::process_environment(env));
    run.outcome.started = true;
    bool exited = false;
    asio::steady_timer timer(ctx, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(request.timeout_s)));
    asio::steady_timer grace(ctx);
    // ctx.run() returns once nothing is pending: the child reaped, both pipes
    // at EOF, the timers cancelled.
    std::function<void()> maybe_finish;
    PipeReader out_reader(out, run.stdout_text, request.max_stdout, [&] { maybe_finish(); });
    PipeReader err_reader(err, err_text, 1u << 20, [&] { maybe_finish(); });
    maybe_finish = [&] {
      if (exited && out_reader.done() && err_reader.done()) grace.cancel();
    };
    out_reader.start();
    err_reader.start();
    timer.async_wait([&](boost::system::error_code ec) {
      if (ec || exited) return;
      run.outcome.timed_out = true;
      boost::system::error_code ignored;
      proc.terminate(ignored); // SIGKILL; async_wait below reaps it
    });
    proc.async_wait([&](boost::system::error_code, int) {
      exited = true;
      timer.cancel();
      int status = proc.native_exit_code();
      if (WIFEXITED(status)) run.outcome.exit_code = WEXITSTATUS(status);
      else if (WIFSIGNALED(status)) run.outcome.signal = WTERMSIG(status);
      // A grandchild could keep the pipes open: stop reading soon after the child is gone.
      grace.expires_after(std::chrono::seconds(2));
      grace.async_wait([&](boost::system::error_code ec) {
        if (ec) return;
        boost::system::error_code ignored;
        out.close(ignored);
        err.close(ignored);
      });
      maybe_finish();
    });
    ctx.run();
  } catch (const std::exception& e) {
    run.outcome.spawn_error = e.what();
    run.outcome.started = false;
  }
  run.outcome.stderr_tail = tail(err_text, 4000);
  run.stderr_text = std::move(err_text);
  run.outcome.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return run;
}

} // namespace

ChildRun run_child(const ChildRequest& request) {
  return pidfd_open_works() ? run_child_with_boost(request) : run_child_forked(request);
}

Environment environment_with(const std::optional<std::string>& ld_library_path) {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string key = entry.substr(0, eq);
    if (key == "LD_LIBRARY_PATH") continue;
    env.emplace_back(key, entry.substr(eq + 1));
  }
  if (ld_library_path) env.emplace_back("LD_LIBRARY_PATH", *ld_library_path);
  return env;
}

int exec_command(const std::vector<std::string>& command, const EnvironmentChanges& variables) {
  for (const auto& [name, value] : variables) {
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  std::vector<std::string> words = command;
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  ::execvp(argv[0], argv.data());
  return errno;
}

} // namespace condacuda::sys
