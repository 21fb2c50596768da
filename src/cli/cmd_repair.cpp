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

#include <cstdio>

namespace condacuda::cli {

namespace {
struct RepairArgs {
  EnvArgs env;
  OutputArgs out;
  bool dry_run = false;
  bool post_link = false;
  std::string shells = "sh,fish,csh";
};

// What a run ended with: the outcome to render, or an error said once.
struct Run {
  int status = exit_ok;
  report::RepairOutcome outcome;
  std::optional<std::string> error;
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

Run failed(int status, const std::string& message) {
  Run r;
  r.status = status;
  r.error = message;
  return r;
}

Run finish(report::RepairOutcome outcome, int status) {
  Run r;
  r.status = status;
  r.outcome = std::move(outcome);
  return r;
}

Run run_repair(const RepairArgs& args, const env::EnvRecord& env_record) {
  const env::EnvRecord* env = &env_record;
  auto shells = parse_shells(args.shells);
  if (!shells) return failed(exit_bad_input, shells.error().describe());
  auto& files = sys::process_file_view();
  auto inputs = sys::doctor_inputs(sys::DoctorRequest{*env, std::nullopt}, files);
  if (!inputs) return failed(exit_code_for(inputs.error()), inputs.error().describe());
  auto previous = sys::read_manifest(env->prefix);
  if (!previous)
    return failed(exit_code_for(previous.error()),
                  previous.error().describe() + " (condacuda will not guess what it created; fix or remove it)");
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
  if (!desired) return failed(exit_code_for(desired.error()), desired.error().describe());
  for (const auto& d : desired->entries)
    if (d.entry.kind == repair::ManifestEntry::Kind::file) outcome.hooks.push_back(d.entry.path);
  if (!outcome.verification.ok) {
    outcome.outcome = "cannot-repair";
    outcome.failure = "the plan does not make every root load (see the failing situations above)";
    return finish(std::move(outcome), exit_problems);
  }
  outcome.changes = repair::compute_changes(*desired, *previous, sys::read_path_states(env->prefix, sys::paths_of(*desired, *previous)), tool);
  if (outcome.changes->conflicts()) {
    outcome.outcome = "conflict";
    outcome.failure = "files condacuda did not create are in the way (marked REFUSE); move them, then run repair again";
    return finish(std::move(outcome), exit_problems);
  }
  bool manifest_same = *previous && (*previous)->entries == outcome.changes->manifest.entries &&
                       (*previous)->folders == outcome.changes->manifest.folders;
  if (args.dry_run) {
    outcome.outcome = outcome.changes->writes() || !manifest_same ? "would-repair" : "unchanged";
    return finish(std::move(outcome), exit_ok);
  }
  if (!outcome.changes->writes() && (manifest_same || (!*previous && desired->entries.empty()))) {
    outcome.outcome = desired->entries.empty() ? "nothing-to-do" : "unchanged";
  } else {
    auto applied = sys::apply_repair(env->prefix, *desired, tool);
    if (!applied) return failed(exit_code_for(applied.error()), applied.error().describe());
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
  return finish(std::move(outcome), exit_ok);
}

// What a conda user must know after the post-link ran: one paragraph.
std::string post_link_message(const env::EnvRecord& env, const Run& run) {
  const auto& o = run.outcome;
  std::string head = "condacuda (" + env.prefix + "): ";
  if (run.error) return head + "repair skipped: " + *run.error + "\n";
  if (o.outcome == "repaired")
    return head + "repaired CUDA library loading: " + std::to_string(o.plan.folders.size()) +
           " folder(s) of this env go first on LD_LIBRARY_PATH when it is activated, " +
           std::to_string(o.plan.links.size()) +
           " symlink(s) let RUNPATH find libraries without activation. `condacuda doctor` shows the result; "
           "`condacuda undo` takes it back.\n";
  if (o.outcome == "unchanged" || o.outcome == "nothing-to-do") return ""; // quiet when all is well
  std::string why;
  for (const auto& s : o.verification.scenarios)
    for (const auto& f : s.report.findings)
      if (why.empty() && f.severity == doctor::Severity::error) why = f.title + ". Fix: " + f.fix;
  if (o.outcome == "conflict") why = "files condacuda did not create are in the way under etc/conda";
  return head + "could not make the CUDA libraries load, nothing was changed: " + why +
         ". Run `condacuda doctor -p " + env.prefix + "` for details.\n";
}

// conda runs post-link scripts with the env activated; a non-zero exit rolls
// the whole install back, so this never fails: it writes what the user must
// know to $PREFIX/.messages.txt (conda prints and deletes it) and exits 0.
void append_message(const std::string& prefix, const std::string& text) {
  if (prefix.empty() || text.empty()) return;
  if (FILE* f = std::fopen((prefix + "/.messages.txt").c_str(), "a")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
}

int post_link(const RepairArgs& args) {
  auto env = select_env(args.env);
  if (!env) {
    append_message(args.env.prefix, "condacuda (" + args.env.prefix +
                                        "): repair skipped: this prefix is not a conda env (no conda-meta/history).\n");
    return exit_ok;
  }
  append_message(env->prefix, post_link_message(*env, run_repair(args, *env)));
  return exit_ok;
}

int repair_command(const RepairArgs& args) {
  if (args.post_link) return post_link(args);
  auto env = select_env(args.env);
  if (!env) return exit_bad_input;
  Run run = run_repair(args, *env);
  if (run.error) {
    print_error(*run.error);
    return run.status;
  }
  run.outcome.env = *env;
  if (args.out.json) emit(report::repair_json(run.outcome).dump() + "\n");
  else emit(report::repair_text(run.outcome, style_for(args.out)));
  return run.status;
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
  sub->add_flag("--post-link", args->post_link,
                "For conda link scripts: never fail, say what happened in $PREFIX/.messages.txt, print nothing");
  return {sub, [args] { return repair_command(*args); }};
}

} // namespace condacuda::cli
