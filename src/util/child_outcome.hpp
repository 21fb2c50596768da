#pragma once
// How a child process ended: what the system layer's child helper reports
// (sys/child_process.hpp) and the check's report keeps.
#include <string>

namespace condacuda::util {

struct ChildOutcome {
  bool started = false;
  std::string started_with; // "pidfd" (Boost.Process) or "fork" (the fallback, sys/child_fork.hpp)
  std::string spawn_error;
  bool timed_out = false;
  int exit_code = -1; // when it exited
  int signal = 0;     // when a signal ended it
  std::string stderr_tail;
  double wall_ms = 0;
};

} // namespace condacuda::util
