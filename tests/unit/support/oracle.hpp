#pragma once
// The simulator and the real loader side by side: the same dlopen sequence
// run by the dlopen probe (tests/tools/dlopen_probe.c) and by
// loader::Simulator with the same LD_LIBRARY_PATH and cwd.
#include <optional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "loader/simulator.hpp"

namespace oracle {

struct Step {
  std::string path;
  bool lazy = false;
  bool global = false;
};

struct Outcome {
  bool ok = true;
  std::string error;          // dlerror() text of the first failing step
  std::set<std::string> maps; // l_name of every object after the last step ("" and vdso left out)
  bool operator==(const Outcome&) const = default;
};

struct Options {
  std::optional<std::string> ld_library_path; // nullopt: unset
  std::string cwd;                            // "" : the test's cwd
  bool bind_now = false;                      // LD_BIND_NOW=1
  std::optional<int> glibc_minor = std::nullopt; // the simulator models 2.<this> (the real loader is this machine's)
};

Outcome real(const std::vector<Step>& steps, const Options& options = {});
Outcome simulated(const std::vector<Step>& steps, const Options& options = {});

// The simulator's process after the steps, for finer checks.
struct Simulation {
  std::shared_ptr<condacuda::loader::FileSystemView> files;
  std::shared_ptr<condacuda::loader::Simulator> simulator;
  condacuda::loader::LoaderConfig config;
  condacuda::loader::Process process;
  std::vector<condacuda::loader::LoadReport> reports;
};
Simulation simulate(const std::vector<Step>& steps, const Options& options = {});

// Program start-up: exit status and stderr of running `program` for real,
// and what the simulator predicts.
struct Startup {
  int status = 0;
  std::string err;
  bool operator==(const Startup&) const = default;
};
Startup real_start(const std::string& program, const Options& options = {});
Startup simulated_start(const std::string& program, const Options& options = {});

} // namespace oracle

// doctest prints these on failure.
#include <ostream>
namespace oracle {
inline std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << (o.ok ? "ok" : "FAIL: " + o.error) << " maps{";
  for (const auto& m : o.maps) os << m << ";";
  return os << "}";
}
inline std::ostream& operator<<(std::ostream& os, const Startup& s) {
  return os << "status " << s.status << " stderr[" << s.err << "]";
}
} // namespace oracle
