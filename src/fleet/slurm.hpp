#pragma once
// What `condacuda fleet` asks Slurm before it runs anything: the nodes of the
// partitions, their state and the reason an administrator gave
// (`sinfo --noheader --Node --format '%N|%P|%T|%E'`), and which of them a
// job can start on now. Pure: text in, values out.
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::fleet {

// The format fleet passes to sinfo; parse_sinfo_nodes reads it.
inline constexpr std::string_view sinfo_format = "%N|%P|%T|%E";

struct SlurmNode {
  std::string name;
  std::string partition;      // without the '*' that marks the default
  bool default_partition = false;
  std::string state;          // sinfo's long state: "idle", "mixed", "drained", "down*", "idle~"
  std::string reason;         // "none" when the administrator gave none
};

// One line per node and partition. Errors: a line without the four fields (bad_input).
Result<std::vector<SlurmNode>> parse_sinfo_nodes(std::string_view text);

// Whether a one-task job can start there now: idle or mixed (some CPUs free),
// responding (no '*'), powered up (no '~', '#', '%'), not drained, draining,
// down, failing, reserved for maintenance or being rebooted. A fully
// allocated node is not (the job would wait: fleet never waits).
bool takes_a_job_now(std::string_view state);

// Why a node that does not take a job gave no verdict: "drained: disk
// replaced", "down* (not responding)", "allocated (every CPU in use)".
std::string unavailable_reason(const SlurmNode& node);

} // namespace condacuda::fleet
