#pragma once
// The plain POSIX way to run a child: fork, execve, poll its pipes, waitpid.
// run_child (sys/child_process.hpp) takes it where Boost.Process cannot be
// used as built: Boost.Process v2 on Linux waits through pidfd_open(2), which
// sandboxed kernels (gVisor, old seccomp profiles) may refuse, and the
// failure would only show after the child had been forked.
#include "sys/child_process.hpp"

namespace condacuda::sys {

// Same contract as run_child; outcome.started_with is "fork".
ChildRun run_child_forked(const ChildRequest& request);

} // namespace condacuda::sys
