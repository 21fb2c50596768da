#pragma once
// `condacuda fleet`: the env judged on every node of a Slurm partition (one
// srun, one task per node, each running `condacuda doctor --json --gpu
// visible` there, and `check --json` with --check), or node documents
// gathered any other way (--from); the nodes grouped into classes
// (fleet/classes.hpp).
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "env/discovery.hpp"
#include "fleet/classes.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct FleetOptions {
  std::optional<env::EnvRecord> env;    // the env to judge through srun (unset with --from)
  std::vector<std::string> partitions;  // --partition; none: the default partition
  std::string nodes;                    // --nodes: a hostlist ("" all of the partitions)
  std::string exclude;                  // --exclude: a hostlist
  bool check = false;                   // --check: also `condacuda check` (needs the GPU)
  // --context: how the jobs launch the env. Unset: as srun passes this shell
  // on, activated when the env's hook is active here, else not activated.
  std::optional<doctor::LaunchContext> context;
  double timeout_s = 300;               // --timeout: per node and command
  std::optional<std::string> condacuda; // --condacuda: its path on the nodes (default: this binary's)
  std::vector<std::string> srun_args;   // --srun-arg: passed to srun as they are (--account, --gres...)
  std::vector<std::string> from;        // --from: files or folders of node documents
};

enum class FleetSource { srun, files };
const char* to_string(FleetSource s); // "srun", "files"

struct FleetOutcome {
  FleetSource source = FleetSource::srun;
  std::optional<env::EnvRecord> env;
  fleet::Fleet fleet;
  std::optional<doctor::LaunchContext> context; // the launch judged (srun)
  std::vector<std::string> commands; // the srun command lines run (for people; one per partition)
  std::vector<std::string> inputs;   // the files read (--from)
  double wall_ms = 0;
};

// Errors: no sinfo/srun on PATH, sinfo failing, a hostlist that cannot be
// read, no node selected, a --from path that cannot be listed (bad_input).
// Nodes that give no verdict are classes of the result, never errors.
Result<FleetOutcome> fleet(const FleetOptions& options);

} // namespace condacuda::app
