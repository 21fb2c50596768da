// condacuda repair [ENV] [--dry-run] [--json] [--shells sh,fish,csh]
// Plan (a value) -> verify by simulation -> apply (atomic, locked, manifest).
#include "cli/commands.hpp"
#include "report/repair_report.hpp"
#include "sys/doctor_inputs.hpp"
#include "sys/file_view.hpp"
#include "sys/machine.hpp"
#include "sys/repair_io.hpp"
#include "sys/system_cuda.hpp"
#include "util/strings.hpp"

namespace condacuda::cli {

namespace {
struct RepairArgs {
  EnvArgs env;
  OutputArgs out;
  bool dry_run = false;
  std::string shells = "sh,fish,csh";
};

Result<std::vector<repair::Shell>> parse_shells(const std::string& list) {
  std::vector<repair::Shell> shells;
  for (const auto& name : util::split(list, ",")) {
    if (name == "sh" || name == "bash" || name == "zsh") shells.push_back(repair::Shell::posix);
    else if (name == "fish") shells.push_back(repair::Shell::fish);
    else if (name == "csh" || name == "tcsh") shells.push_back(repair::Shell::csh);
    else return make_error(ErrorCode::bad_input, "unknown shell '" + name + "' (sh, fish, csh)");
  }
  if (std::find(shells.begin(), shells.end(), repair::Shell::posix) == shells.end())
    shells.insert(shells.begin(), repair::Shell::posix); // conda, micromamba and pixi all source .sh
  return shells;
}

int finish(const RepairArgs& args, const report::RepairOutcome& outcome, int status) {
  if (args.out.json) emit(report::repair_json(outcome).dump() + "\n");
  else emit(report::repair_text(outcome, style_for(args.out)));
  return status;
}

int run_repair(const RepairArgs& args) {
  auto env = select_env(args.env);
  if (!env) return exit_bad_input;
  auto shells = parse_shells(args.shells);
  if (!shells) {
    print_error(shells.error().describe());
    return exit_bad_input;
  }
  auto& files = sys::process_file_view();
  auto inputs = sys::doctor_inputs(sys::DoctorRequest{*env, std::nullopt}, files);
  if (!inputs) {
    print_error(inputs.error().describe());
    return exit_code_for(inputs.error());
  }
  auto previous = sys::read_manifest(env->prefix);
  if (!previous) {
    print_error(previous.error().describe() + " (condacuda will not guess what it created; fix or remove it)");
    return exit_code_for(previous.error());
  }
  std::vector<std::string> own_links;
  if (*previous)
    for (const auto& e : (*previous)->entries)
      if (e.kind == repair::ManifestEntry::Kind::symlink) own_links.push_back(env->prefix + "/" + e.path);
  report::RepairOutcome outcome;
  outcome.env = *env;
  outcome.dry_run = args.dry_run;
  outcome.plan = repair::plan_repair(*inputs, files, own_links);
  outcome.verification = repair::verify_plan(outcome.plan, *inputs, sys::system_cuda_dirs(), files);
  const std::string tool = std::string("condacuda ") + CONDACUDA_VERSION;
  auto desired = repair::desired_state(outcome.plan, *shells, tool);
  if (!desired) {
    print_error(desired.error().describe());
    return exit_code_for(desired.error());
  }
  for (const auto& d : desired->entries)
    if (d.entry.kind == repair::ManifestEntry::Kind::file) outcome.hooks.push_back(d.entry.path);
  if (!outcome.verification.ok) {
    outcome.outcome = "cannot-repair";
    outcome.failure = "the plan does not make every root load (see the failing situations above)";
    return finish(args, outcome, exit_problems);
  }
  outcome.changes = repair::compute_changes(*desired, *previous, sys::read_path_states(env->prefix, sys::paths_of(*desired, *previous)), tool);
  if (outcome.changes->conflicts()) {
    outcome.outcome = "conflict";
    outcome.failure = "files condacuda did not create are in the way (marked REFUSE); move them, then run repair again";
    return finish(args, outcome, exit_problems);
  }
  bool manifest_same = *previous && (*previous)->entries == outcome.changes->manifest.entries &&
                       (*previous)->folders == outcome.changes->manifest.folders;
  if (args.dry_run) {
    outcome.outcome = outcome.changes->writes() || !manifest_same ? "would-repair" : "unchanged";
    return finish(args, outcome, exit_ok);
  }
  if (!outcome.changes->writes() && (manifest_same || (!*previous && desired->entries.empty()))) {
    outcome.outcome = desired->entries.empty() ? "nothing-to-do" : "unchanged";
  } else {
    auto applied = sys::apply_repair(env->prefix, *desired, tool);
    if (!applied) {
      print_error(applied.error().describe());
      return exit_code_for(applied.error());
    }
    outcome.changes = applied->changes;
    outcome.outcome = "repaired";
  }
  // The verdict after, as doctor sees the env now (a fresh view: new links exist).
  sys::DiskFileView fresh(sys::host_machine());
  auto after = sys::doctor_inputs(sys::DoctorRequest{*env, std::nullopt}, fresh);
  if (after) {
    auto report = doctor::run_doctor(std::move(*after), fresh);
    outcome.after = std::make_pair(report.count(doctor::Severity::error), report.count(doctor::Severity::warning));
  }
  return finish(args, outcome, exit_ok);
}
} // namespace

Command add_repair(CLI::App& app) {
  auto args = std::make_shared<RepairArgs>();
  CLI::App* sub = app.add_subcommand(
      "repair", "Fix the env durably: activation hooks that put its CUDA folders first, symlinks for RUNPATH");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  sub->add_flag("--dry-run", args->dry_run, "Plan and verify, write nothing");
  sub->add_option("--shells", args->shells, "Hook flavours to write: sh (always), fish, csh")->capture_default_str();
  return {sub, [args] { return run_repair(*args); }};
}

} // namespace condacuda::cli
