#include "sys/check_runner.hpp"

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
#include <chrono>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

#include "check/protocol.hpp"
#include "doctor/doctor.hpp"
#include "repair/activation.hpp"
#include "repair/plan.hpp"
#include "sys/doctor_inputs.hpp"
#include "sys/file_view.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace condacuda::sys {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
namespace fs = std::filesystem;

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
} // namespace

ChildRun run_child(const ChildRequest& request) {
  ChildRun run;
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
  run.outcome.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return run;
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

std::string self_executable() { return canonical_path("/proc/self/exe"); }

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  return ec ? fs::path(path).lexically_normal().string() : real.string();
}

std::vector<std::string> stub_folders(const std::optional<std::string>& ld_library_path) {
  std::vector<std::string> out;
  if (!ld_library_path) return out;
  for (const auto& entry : util::split(*ld_library_path, ":;")) {
    if (entry.empty()) continue;
    std::error_code ec;
    fs::path dir(entry);
    if (!fs::exists(dir / "libcuda.so", ec)) continue;
    bool named_stubs = dir.lexically_normal().filename() == "stubs" ||
                       (dir.lexically_normal().filename().empty() && dir.lexically_normal().parent_path().filename() == "stubs");
    if (named_stubs || !fs::exists(dir / "libcuda.so.1", ec)) out.push_back(entry);
  }
  return out;
}

} // namespace condacuda::sys

// ---- the whole check ----------------------------------------------------------

namespace condacuda::sys {

namespace {
void add_finding(check::CheckReport& r, const doctor::Finding& f) {
  for (const auto& have : r.findings)
    if (have.code == f.code && have.library == f.library && have.resolved == f.resolved) return;
  r.findings.push_back(f);
}

bool library_failed(const check::ProbeResult& probe) {
  for (const auto& l : probe.libraries)
    if (!l.loaded && l.component != check::Component::driver) return true;
  return false;
}

void run_python(check::CheckReport& r, const std::string& prefix, const Environment& env, double timeout_s) {
  if (!env_python(prefix)) {
    r.python.push_back({"python", "absent", "", "the env has no python interpreter (bin/python3)", "", "", "", ""});
    return;
  }
  // Started by its path in the env, not its real path: a venv's python finds
  // its site-packages through pyvenv.cfg next to the path it was started as.
  std::string python = prefix + "/bin/python3";
  if (!fs::exists(python)) python = prefix + "/bin/python";
  std::string script(check::python_probe_script());
  ChildRun run = run_child({python, {"-c", script}, env, timeout_s});
  r.python_child = run.outcome;
  r.python = check::parse_python_output(run.stdout_text);
  if (r.python.empty() || run.outcome.timed_out || run.outcome.signal) {
    std::string last = run.outcome.stderr_tail;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
    r.python.push_back({"python", "fail", "", "", "python " + check::describe(run.outcome, timeout_s) +
                                                     (last.empty() ? "" : ": " + last), "", "", ""});
  }
}

// The probe's LD_LIBRARY_PATH: the activated value doctor computes (the
// hook applied when installed); an env without a hook gets the folders
// repair would plan in front, as `condacuda run` gives them.
void activated_path(check::CheckReport& r, const doctor::DoctorInputs& inputs, bool as_is, DiskFileView& files) {
  r.ld_library_path = inputs.config.ld_library_path;
  r.ld_library_path_source = inputs.hook_present ? "hook" : "as-is";
  if (as_is || inputs.hook_present) return;
  std::vector<std::string> folders = repair::plan_repair(inputs, files).folder_paths();
  if (folders.empty()) return;
  std::vector<std::string> absolute;
  for (const auto& f : folders) absolute.push_back(inputs.env.prefix + "/" + f);
  r.ld_library_path = repair::activate_ld_library_path(inputs.base_ld_library_path, absolute, std::nullopt);
  r.ld_library_path_source = "plan";
  r.planned_folders = folders;
}
} // namespace

Result<check::CheckReport> run_check(const CheckOptions& o) {
  auto started = std::chrono::steady_clock::now();
  DiskFileView& files = process_file_view();
  auto inputs = doctor_inputs(DoctorRequest{o.env, o.ld_library_path}, files);
  if (!inputs) return inputs.error();
  check::CheckReport r;
  r.env = o.env;
  r.hook_applied = inputs->hook_present;
  activated_path(r, *inputs, o.as_is, files);
  r.sizes_name = o.quick ? "quick" : "full";
  r.timeout_s = o.timeout_s;
  std::string self = self_executable();
  inputs->config.ld_library_path = r.ld_library_path; // doctor below sees what the probe sees
  r.plan = check::plan_probe(inputs->inventory, inputs->config, files, self);
  check::ProbeRequest request{r.plan.requests(), o.device, o.quick ? check::quick_sizes() : check::full_sizes(),
                              o.link_only_arch};
  Environment env = environment_with(r.ld_library_path);
  ChildRun run = run_child({self, {"__probe", "--request", check::request_json(request).dump(-1)}, env, o.timeout_s});
  r.child = run.outcome;
  r.probe = check::fold_records(run.stdout_text);
  r.library_comparisons = check::compare_libraries(r.plan, r.probe, canonical_path);
  r.objects = check::compare_objects(r.plan, r.probe, canonical_path);
  r.stub_folders = stub_folders(r.ld_library_path);
  r.warnings = check::environment_warnings(env);
  for (auto& w : check::probe_warnings(r)) r.warnings.push_back(std::move(w));
  if (library_failed(r.probe) || o.python) {
    // doctor's findings name the cause of a load failure (which file, which
    // search step) and its fix.
    doctor::DoctorReport doctor = doctor::run_doctor(*inputs, files);
    for (const auto& l : r.probe.libraries)
      if (const doctor::Finding* f = check::explaining_finding(l.error, doctor.findings)) add_finding(r, *f);
    if (o.python) {
      r.python_requested = true;
      run_python(r, o.env.prefix, env, o.timeout_s);
      check::attach_findings(r.python, doctor.findings);
      for (const auto& p : r.python)
        if (const doctor::Finding* f = check::explaining_finding(p.error, doctor.findings)) add_finding(r, *f);
    }
  }
  check::decide(r);
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return r;
}

} // namespace condacuda::sys
