#include "support/oracle.hpp"

#include <unistd.h>

#include "support/fixture.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/machine.hpp"
#include "util/strings.hpp"

namespace oracle {

using namespace condacuda;

namespace {
std::map<std::string, std::optional<std::string>> probe_env(const Options& o) {
  std::map<std::string, std::optional<std::string>> env;
  env["LD_LIBRARY_PATH"] = o.ld_library_path;
  env["LD_BIND_NOW"] = o.bind_now ? std::optional<std::string>("1") : std::nullopt;
  env["LD_PRELOAD"] = std::nullopt;
  return env;
}

loader::LoaderConfig config_for(const Options& o) {
  loader::LoaderConfig c = sys::detect_machine().config;
  c.ld_library_path = o.ld_library_path;
  c.bind_now = o.bind_now;
  if (o.glibc_minor) c.glibc_minor = *o.glibc_minor;
  if (!o.cwd.empty()) {
    c.cwd = o.cwd;
  } else {
    char buf[4096];
    if (getcwd(buf, sizeof buf)) c.cwd = buf;
  }
  return c;
}

// $ORIGIN of an executable is its real directory (readlink /proc/self/exe).
std::string real_program(const std::string& path) {
  char resolved[4096];
  return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}
} // namespace

Outcome real(const std::vector<Step>& steps, const Options& options) {
  std::vector<std::string> argv{fixture::probe_path(), "--maps"};
  for (const auto& s : steps) {
    if (s.lazy) argv.push_back("--lazy");
    if (s.global) argv.push_back("--global");
    argv.push_back(s.path);
  }
  auto r = fixture::run(argv, probe_env(options), options.cwd);
  Outcome o;
  for (const auto& line : util::split(r.out, "\n")) {
    if (line.rfind("ERR ", 0) == 0) {
      o.ok = false;
      o.error = line.substr(4);
    } else if (line.rfind("MAP ", 0) == 0) {
      std::string name = line.substr(4);
      if (!name.empty() && name != "linux-vdso.so.1") o.maps.insert(name);
    }
  }
  if (r.status != 0 && r.status != 1) {
    o.ok = false;
    o.error = std::string(util::trim(r.err));
    o.maps.clear();
  }
  return o;
}

Simulation simulate(const std::vector<Step>& steps, const Options& options) {
  Simulation s;
  s.config = config_for(options);
  s.files = std::make_shared<sys::DiskFileView>(s.config.machine);
  s.simulator = std::make_shared<loader::Simulator>(s.config, *s.files);
  loader::Simulator& sim = *s.simulator;
  std::string program = real_program(fixture::probe_path());
  s.reports.push_back(sim.start_program(s.process, program, program));
  for (const auto& step : steps) {
    auto report = sim.dlopen(s.process, step.path, step.lazy ? loader::Binding::lazy : loader::Binding::now,
                             step.global ? loader::Visibility::global : loader::Visibility::local);
    bool ok = report.ok;
    s.reports.push_back(std::move(report));
    if (!ok) break;
  }
  return s;
}

Outcome simulated(const std::vector<Step>& steps, const Options& options) {
  Simulation s = simulate(steps, options);
  Outcome o;
  for (std::size_t i = 1; i < s.reports.size(); ++i) {
    const auto& r = s.reports[i];
    if (!r.ok) {
      o.ok = false;
      o.error = r.first->kind == loader::ErrorKind::assertion ? r.first->text : r.first->message();
    }
  }
  for (const auto& obj : s.process.objects)
    if (!obj.is_main && !obj.faked) o.maps.insert(obj.name);
  // ld.so aborts the process on an assertion: the probe prints no maps.
  if (!o.ok && s.reports.back().first->kind == loader::ErrorKind::assertion) o.maps.clear();
  return o;
}

Startup real_start(const std::string& program, const Options& options) {
  auto r = fixture::run({program}, probe_env(options), options.cwd);
  return Startup{r.status, r.status == 0 ? "" : r.err};
}

Startup simulated_start(const std::string& program, const Options& options) {
  loader::LoaderConfig config = config_for(options);
  sys::DiskFileView files(config.machine);
  loader::Simulator sim(config, files);
  loader::Process p;
  auto report = sim.start_program(p, real_program(program), program);
  auto outcome = loader::startup_outcome(report, program);
  return Startup{outcome.exit_status, outcome.stderr_text};
}

} // namespace oracle
