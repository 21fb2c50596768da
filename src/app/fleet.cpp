#include "app/fleet.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "fleet/documents.hpp"
#include "fleet/node_script.hpp"
#include "fleet/slurm.hpp"
#include "app/repair.hpp"
#include "launch/launch.hpp"
#include "sys/child_process.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "sys/shell_environment.hpp"
#include "util/hostlist.hpp"
#include "util/strings.hpp"

namespace condacuda::app {

namespace {
constexpr double sinfo_timeout_s = 60;
constexpr int allocation_wait_s = 10; // srun --immediate: fleet never queues behind other jobs

Result<std::string> program(const std::string& name) {
  if (auto path = sys::find_program(name)) return *path;
  return make_error(ErrorCode::bad_input, "fleet runs through Slurm: " + name +
                                              " is not on PATH (gather the documents another way and use --from)");
}

// srun's output holds every node's documents (a doctor document of a large env
// is a few hundred KB): room for thousands of nodes.
constexpr std::size_t max_srun_output = std::size_t(1) << 30;

// This shell's environment for sinfo and srun (srun passes it on to the
// tasks, as it does for any job), less what would make the nodes judge this
// one: its declared driver and GPUs (a node's own come from its TaskProlog or
// module), and the job this shell may run in (inside salloc or sbatch, srun
// would start a step of that job, on its nodes only).
sys::Environment slurm_environment() {
  static constexpr std::string_view left_out[] = {
      "CONDACUDA_DRIVER", "CONDACUDA_GPU",     "SLURM_JOB_ID",           "SLURM_JOBID",         "SLURM_STEP_ID",
      "SLURM_STEPID",     "SLURM_JOB_NODELIST", "SLURM_NODELIST",        "SLURM_NNODES",        "SLURM_JOB_NUM_NODES",
      "SLURM_NTASKS",     "SLURM_NPROCS",      "SLURM_TASKS_PER_NODE",   "SLURM_JOB_CPUS_PER_NODE", "SLURMD_NODENAME"};
  sys::Environment env = sys::environment_with(sys::shell_environment().ld_library_path);
  std::erase_if(env, [](const auto& variable) {
    return std::find(std::begin(left_out), std::end(left_out), variable.first) != std::end(left_out);
  });
  return env;
}

sys::ChildRun run(const std::string& program, std::vector<std::string> args, double timeout_s) {
  return sys::run_child({program, std::move(args), slurm_environment(), timeout_s, max_srun_output});
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:[]%@+") == std::string::npos;
    out += (out.empty() ? "" : " ") + (plain ? w : util::quote_posix(w));
  }
  return out;
}

Result<std::set<std::string>> expanded(const std::string& hostlist) {
  std::set<std::string> names;
  if (hostlist.empty()) return names;
  auto list = util::expand_hostlist(hostlist);
  if (!list) return list.error();
  names.insert(list->begin(), list->end());
  return names;
}

// The nodes fleet runs on, by partition, and the ones Slurm would not run a job on now.
struct Selection {
  std::map<std::string, std::vector<std::string>> by_partition;
  std::vector<fleet::NodeRecord> unavailable;
};

Result<Selection> select_nodes(const std::vector<fleet::SlurmNode>& listed, const FleetOptions& o) {
  auto excluded = expanded(o.exclude);
  if (!excluded) return excluded.error();
  const bool any_default = std::any_of(listed.begin(), listed.end(), [](const fleet::SlurmNode& n) { return n.default_partition; });
  auto wanted = [&](const fleet::SlurmNode& n) {
    if (!o.partitions.empty()) return std::find(o.partitions.begin(), o.partitions.end(), n.partition) != o.partitions.end();
    return !o.nodes.empty() || n.default_partition || !any_default;
  };
  Selection s;
  std::set<std::string> seen; // a node in two partitions runs once, in the first one listed
  for (const auto& n : listed) {
    if (!wanted(n) || excluded->count(n.name) || !seen.insert(n.name).second) continue;
    if (fleet::takes_a_job_now(n.state)) s.by_partition[n.partition].push_back(n.name);
    else s.unavailable.push_back(fleet::silent_node(n.name, {fleet::Silence::unavailable, fleet::unavailable_reason(n)}));
  }
  if (s.by_partition.empty() && s.unavailable.empty())
    return make_error(ErrorCode::bad_input, "fleet: no node selected (sinfo lists none for " +
                                                (o.partitions.empty() ? std::string("the default partition")
                                                                      : "--partition " + util::join(o.partitions, ",")) +
                                                (o.nodes.empty() ? "" : " and --nodes " + o.nodes) + ")");
  return s;
}

Result<std::vector<fleet::SlurmNode>> list_nodes(const FleetOptions& o) {
  auto sinfo = program("sinfo");
  if (!sinfo) return sinfo.error();
  std::vector<std::string> args = {"--noheader", "--Node", "--format", std::string(fleet::sinfo_format)};
  if (!o.partitions.empty()) args.push_back("--partition=" + util::join(o.partitions, ","));
  if (!o.nodes.empty()) args.push_back("--nodes=" + o.nodes);
  sys::ChildRun r = run(*sinfo, args, sinfo_timeout_s);
  if (!r.outcome.started || r.outcome.exit_code != 0)
    return make_error(ErrorCode::bad_input, "sinfo failed (" + shell_words(args) + "): " +
                                                std::string(util::trim(r.outcome.spawn_error + r.outcome.stderr_tail)));
  return fleet::parse_sinfo_nodes(r.stdout_text);
}

// How srun's tasks launch the env: as given, else as this shell is (srun
// passes its environment on): activated when the env's hook is active here.
doctor::LaunchContext launch_context(const FleetOptions& o) {
  if (o.context) return *o.context;
  return launch::hook_placement(sys::this_shell(o.env->prefix)).active ? doctor::LaunchContext::activated
                                                                        : doctor::LaunchContext::not_activated;
}

// One srun over `nodes` of `partition`; a record for each node.
std::vector<fleet::NodeRecord> run_partition(const std::string& srun, const std::string& partition,
                                             const std::vector<std::string>& nodes, const FleetOptions& o,
                                             const std::string& condacuda, std::vector<std::string>& commands) {
  const double per_node_s = o.timeout_s * (o.check ? 2 : 1);
  const int minutes = static_cast<int>(std::ceil((per_node_s + 60) / 60));
  const std::string hostlist = util::compress_hostlist_sorted(nodes);
  std::vector<std::string> args = {"--label", "--immediate=" + std::to_string(allocation_wait_s), "--job-name=condacuda-fleet",
                                   "--partition=" + partition, "--nodes=" + std::to_string(nodes.size()),
                                   "--ntasks=" + std::to_string(nodes.size()), "--ntasks-per-node=1",
                                   "--nodelist=" + hostlist, "--time=" + std::to_string(minutes), "--kill-on-bad-exit=0"};
  args.insert(args.end(), o.srun_args.begin(), o.srun_args.end());
  const std::vector<std::string> task = {"/bin/sh", "-c", fleet::node_script(), condacuda, o.env->prefix,
                                         std::to_string(static_cast<long>(o.timeout_s)),
                                         doctor::to_string(launch_context(o)), o.check ? "check" : ""};
  args.insert(args.end(), task.begin(), task.end());
  std::vector<std::string> shown(args.begin(), args.end() - static_cast<long>(task.size()));
  shown.insert(shown.begin(), "srun");
  shown.insert(shown.end(), {"<node script>", condacuda, o.env->prefix});
  commands.push_back(shell_words(shown));

  sys::ChildRun r = run(srun, args, per_node_s + allocation_wait_s + 60);
  fleet::SrunOutput output = fleet::split_srun_output(r.stdout_text, r.stderr_text);
  std::map<std::string, fleet::NodeRecord> found;
  for (const auto& [number, t] : output.tasks)
    if (!t.node.empty()) found.emplace(t.node, fleet::record_from_task(t, o.timeout_s, condacuda));
  const auto launch_failed = fleet::launch_failures(output.srun_messages);
  const std::string srun_said = output.srun_messages.empty() ? "" : ": " + util::join(std::vector<std::string>(
      output.srun_messages.begin(), output.srun_messages.begin() + std::min<std::size_t>(2, output.srun_messages.size())), " / ");
  std::vector<fleet::NodeRecord> out;
  for (const auto& n : nodes) {
    if (auto it = found.find(n); it != found.end()) {
      out.push_back(std::move(it->second));
      continue;
    }
    if (auto f = launch_failed.find(n); f != launch_failed.end())
      out.push_back(fleet::silent_node(n, {fleet::Silence::not_started, "srun could not launch the task there: " + f->second.cause,
                                           fleet::exit_no_answer, f->second.message}));
    else if (r.stdout_text.size() >= max_srun_output)
      out.push_back(fleet::silent_node(n, {fleet::Silence::no_document, "srun's output passed 1 GiB: fleet read no further"}));
    else if (r.outcome.timed_out)
      out.push_back(fleet::silent_node(n, {fleet::Silence::timed_out, "srun did not finish in time; nothing came back from it"}));
    else
      out.push_back(fleet::silent_node(
          n, {fleet::Silence::no_document,
              "nothing came back from it (srun " +
                  (r.outcome.started ? "exited " + std::to_string(r.outcome.exit_code) : "did not start: " + r.outcome.spawn_error) +
                  srun_said + ")"}));
  }
  return out;
}

Result<std::vector<fleet::NodeRecord>> through_srun(const FleetOptions& o, std::vector<std::string>& commands) {
  auto srun = program("srun");
  if (!srun) return srun.error();
  auto listed = list_nodes(o);
  if (!listed) return listed.error();
  auto selection = select_nodes(*listed, o);
  if (!selection) return selection.error();
  const std::string condacuda = o.condacuda ? *o.condacuda : sys::self_executable();
  std::vector<fleet::NodeRecord> records = std::move(selection->unavailable);
  for (const auto& [partition, nodes] : selection->by_partition)
    for (auto& r : run_partition(*srun, partition, nodes, o, condacuda, commands)) records.push_back(std::move(r));
  return records;
}

// Whether one repair of the shared env suits every launch its nodes have: a
// dry run of `repair --pin` here verifying each LD_LIBRARY_PATH the nodes
// launch it with (this machine's loader facts stand for the nodes'). nullopt
// when no failing node is fixed by a repair, or the nodes share one launch.
std::optional<std::string> one_repair_for_all(const fleet::Fleet& f, const env::EnvRecord& env) {
  bool repair_fixes = false;
  std::vector<launch::PathValue> launches;
  for (const auto& r : f.nodes) {
    if (r.no_answer) continue;
    if (!launch::is_recorded(launches, r.facts.ld_library_path)) launches.push_back(r.facts.ld_library_path);
    for (const auto& l : r.verdict.findings)
      repair_fixes |= l.severity == "error" && l.fix.find("condacuda repair") != std::string::npos;
  }
  if (!repair_fixes || launches.size() < 2) return std::nullopt;
  if (launches.size() >= launch::max_recorded_launches)
    return "the nodes launch the shared env with " + std::to_string(launches.size()) +
           " LD_LIBRARY_PATH values, more than a repair records (" + std::to_string(launch::max_recorded_launches) +
           "): repair it for the partitions' own launches (`condacuda repair --pin --launch VALUE`), or make them fewer";
  std::string command = "condacuda repair -p " + util::quote_posix(env.prefix) + " --pin";
  for (const auto& l : launches) command += " --launch " + (l ? util::quote_posix(*l) : std::string("unset"));
  const RepairOutcome dry = repair({env, {repair::Shell::posix}, true, true, false, launches});
  const std::string values = std::to_string(launches.size()) + " LD_LIBRARY_PATH values";
  switch (dry.status) {
  case RepairStatus::would_repair:
  case RepairStatus::unchanged:
  case RepairStatus::nothing_to_do:
    return "one repair of the shared env suits every launch its nodes have (" + values +
           ", verified here with this machine's loader): `" + command + "`";
  case RepairStatus::cannot_repair:
    return "no single repair of the shared env suits every launch its nodes have (" + values + "): " +
           dry.failure.value_or("its verification fails") + " (`" + command + " --dry-run` says more)";
  default:
    return "whether one repair suits every launch (" + values + ") is not known: `" + command + " --dry-run` " +
           (dry.error ? "fails here: " + dry.error->message : "meets files in the way");
  }
}

Result<std::vector<fleet::NodeRecord>> from_files(const std::vector<std::string>& paths, std::vector<std::string>& inputs) {
  for (const auto& p : paths) {
    if (!sys::path_exists(p)) return make_error(ErrorCode::bad_input, "--from " + p + ": no such file or folder");
    if (!sys::is_directory(p)) {
      inputs.push_back(p);
      continue;
    }
    auto files = sys::regular_files_in(p);
    if (!files) return make_error(ErrorCode::bad_input, "--from " + files.error().describe());
    // Not one node silently dropped: a folder that holds no file is a mistake to name.
    if (files->empty()) return make_error(ErrorCode::bad_input, "--from " + p + ": the folder holds no files of documents");
    inputs.insert(inputs.end(), files->begin(), files->end());
  }
  std::vector<fleet::NodeRecord> records;
  for (const auto& file : inputs) {
    auto text = sys::read_text_file(file, sys::read_cap::fleet_documents);
    if (!text) {
      records.push_back(fleet::silent_node(fleet::node_from_file_name(file),
                                           {fleet::Silence::no_document, "a file that cannot be read", fleet::exit_no_answer,
                                            file + ": " + text.error().message}));
      continue;
    }
    for (auto& r : fleet::records_from_text(*text, file)) records.push_back(std::move(r));
  }
  return records;
}
} // namespace

const char* to_string(FleetSource s) { return s == FleetSource::srun ? "srun" : "files"; }

Result<FleetOutcome> fleet(const FleetOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  FleetOutcome out;
  out.env = options.env;
  out.source = options.from.empty() ? FleetSource::srun : FleetSource::files;
  if (out.source == FleetSource::srun) out.context = launch_context(options);
  auto records = out.source == FleetSource::files ? from_files(options.from, out.inputs) : through_srun(options, out.commands);
  if (!records) return records.error();
  out.fleet = fleet::classify(std::move(*records));
  // With the env here, a dry run answers what the grouping can only suspect.
  if (options.env) out.fleet.shared_repair_note = one_repair_for_all(out.fleet, *options.env);
  out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return out;
}

} // namespace condacuda::app
