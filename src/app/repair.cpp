#include "app/repair.hpp"

#include <cstdlib>
#include <set>

#include "app/doctor_inputs.hpp"
#include "app/kernels.hpp"
#include "app/plan_request.hpp"
#include "app/repair_apply.hpp"
#include "doctor/contexts.hpp"
#include "launch/hook_model.hpp"
#include "launch/launch.hpp"
#include "sys/machine.hpp"
#include "sys/posix.hpp"
#include "sys/prefix_tree.hpp"
#include "sys/repair_state.hpp"
#include "sys/system_cuda.hpp"
#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::app {

const char* to_string(RepairStatus status) {
  switch (status) {
  case RepairStatus::repaired: return "repaired";
  case RepairStatus::unchanged: return "unchanged";
  case RepairStatus::nothing_to_do: return "nothing-to-do";
  case RepairStatus::would_repair: return "would-repair";
  case RepairStatus::cannot_repair: return "cannot-repair";
  case RepairStatus::conflict: return "conflict";
  case RepairStatus::error: return "error";
  }
  return "error";
}

namespace {
const std::string tool = std::string("condacuda ") + CONDACUDA_VERSION;

RepairOutcome failed(RepairOutcome o, Error error) {
  o.status = RepairStatus::error;
  o.error = std::move(error);
  return o;
}

RepairOutcome finish(RepairOutcome o, RepairStatus status, std::optional<std::string> failure = std::nullopt) {
  o.status = status;
  o.failure = std::move(failure);
  return o;
}

// Why nothing was written: the launches that would still fail, and the ways
// out that do not depend on a repair.
std::string cannot_repair_reason(const RepairOutcome& o, const RepairOptions& options) {
  std::string failing;
  for (const auto& s : o.verification.scenarios)
    if (s.required && !s.passes()) failing += std::string(failing.empty() ? "" : "; ") + s.name + " (" + s.description + ")";
  std::string out = "the plan does not make every file and framework import load, or every import order work, in: " + failing + ".";
  if (o.plan.unpinnable.empty()) return out + " See the failing situations above.";
  out += " Ways out: launch with `condacuda run -p " + options.env.prefix + " -- CMD` (it sets LD_LIBRARY_PATH)";
  if (is_venv(options.env)) out += "; take the outside folders off LD_LIBRARY_PATH before launching";
  else out += "; or repair without --pin, which fixes activated launches only";
  return out;
}

// The verdict after, as doctor sees the env now (a fresh view: new links
// exist): activated, and without activation where the two differ, its Jupyter
// kernels judged in every server launch doctor knows of; each launch that
// still fails, with its fix.
void verdict_after(RepairOutcome& o) {
  sys::DiskFileView fresh(sys::host_machine());
  const sys::RepairState state = sys::read_repair_state(o.env.prefix);
  auto after = doctor_inputs(o.env, BaseLdLibraryPath::this_shell(), fresh, state);
  if (!after) return;
  auto report = doctor::run_doctor(*after, fresh);
  if (doctor::contexts_differ(*after))
    doctor::add_not_activated(
        report, doctor::run_doctor(doctor::not_activated_inputs(
                                       *after, launch::not_activated_value(after->base_ld_library_path, after->active_hook_entries)),
                                   fresh));
  const auto survey =
      survey_kernels(*after, state.manifest ? state.manifest->launches : std::vector<launch::PathValue>{}, fresh);
  doctor::judge_kernels(report, survey.kernels, survey.launches, sys::system_cuda_dirs(), fresh);
  o.after = std::make_pair(report.count(doctor::Severity::error), report.count(doctor::Severity::warning));
  o.kernels = std::move(report.kernels);
  for (const auto& f : report.findings)
    if (f.code == doctor::code::not_activated || f.code == doctor::code::kernel_fails)
      o.still_failing.push_back({f.title, f.fix});
}

// What this shell needs for an activation hook to take effect: a conda env
// active here since before the hook existed is activated again; another
// shell gets the hook at its next activation.
std::string next_step(const RepairOutcome& o) {
  // A venv runs no activate.d: its folders go first only under `condacuda run`.
  if (is_venv(o.env) && !o.plan.activation && !o.plan.folders.empty())
    return "condacuda run -p " + util::quote_posix(o.env.prefix) + " -- " + util::shell_word(o.env.prefix + "/bin/python");
  if (is_venv(o.env) || o.hooks.empty()) return "";
  const char* prefix = std::getenv("CONDA_PREFIX");
  const char* state = std::getenv("CONDACUDA_HOOK_STATE");
  if (!prefix || sys::canonical_path(prefix) != sys::canonical_path(o.env.prefix) || (state && *state)) return "";
  const char* shell = std::getenv("SHELL");
  const std::string name = shell ? util::base_name(shell) : "";
  const std::string then = name == "csh" || name == "tcsh" ? "; " : " && ";
  // By its path: a name activates only an env in conda's envs dirs.
  return "conda deactivate" + then + "conda activate " + util::quote_posix(o.env.prefix);
}
// The env's Jupyter kernels: what the plan must hold for (pins by default,
// exposure pins, each running server's LD_LIBRARY_PATH verified and recorded).
PlanChoices kernel_choices(RepairOutcome& o, const RepairOptions& options, const doctor::DoctorInputs& inputs,
                           PlanChoices choices) {
  const auto survey = survey_kernels(inputs, {}, sys::process_file_view());
  // A kernel started through an activation (conda run, condacuda run, ...)
  // gets the env's folders first from the hook this repair writes.
  std::string names;
  for (const auto& k : survey.kernels)
    if (!k.run.activated) names += (names.empty() ? "'" : ", '") + k.spec.name + "'";
  if (names.empty()) return choices;
  if (options.pin == false) {
    o.notes.push_back("--no-pin: the env's Jupyter kernel(s) " + names +
                      " start in their server's environment and stay exposed to its LD_LIBRARY_PATH");
    return choices;
  }
  choices.kernels = true;
  o.notes.push_back("the env has Jupyter kernel(s) " + names +
                    ": a kernel starts in its server's environment and runs no activation, so repair pins every "
                    "library that finds an env CUDA library after LD_LIBRARY_PATH (its own search path then comes first)");
  for (const auto& l : survey.launches) {
    if (!l.running) continue;
    auto it = l.environment.find("LD_LIBRARY_PATH");
    const launch::PathValue value = it == l.environment.end() ? std::nullopt : launch::PathValue(it->second);
    choices.extra_launches = launch::record_launch(choices.extra_launches, value);
    o.notes.push_back("verified and recorded: " + l.name + ", LD_LIBRARY_PATH " + launch::describe(value));
  }
  return choices;
}

// What no repair changes (doctor::is_package_finding), named once: the first
// scenario's, which every scenario shares; and the import-order findings the
// plan names as its limits (repair::OrderLimit), once per soname, with the launch;
// and the import orders a scenario's pass left unsimulated (its cap).
void add_package_notes(RepairOutcome& o) {
  if (o.verification.scenarios.empty()) return;
  for (const auto& f : o.verification.scenarios.front().report.findings)
    if (f.severity == doctor::Severity::error && doctor::is_package_finding(f.code))
      o.notes.push_back("left for you (no repair changes it): " + f.code + ": " + f.title + ". Fix: " + f.fix);
  std::set<std::string> said;
  for (const auto& s : o.verification.scenarios)
    for (const auto& f : s.report.findings)
      if (f.code == doctor::code::import_order && f.severity == doctor::Severity::error && !s.blocks(f) &&
          said.insert(f.library).second)
        o.notes.push_back("left for you (no search path repair controls changes it), " + s.name + ": " + f.code + ": " +
                          f.title + ". Fix: " + f.fix);
  // An import-order pass that reached its cap verified less than every order: said, per scenario.
  for (const auto& s : o.verification.scenarios)
    for (const auto& f : s.report.findings)
      if (f.code == doctor::code::import_order_skipped)
        o.notes.push_back("not verified, " + s.name + ": " + f.title + ". " + f.fix);
}
} // namespace

RepairOutcome repair(const RepairOptions& options) {
  RepairOutcome o;
  o.env = options.env;
  o.dry_run = options.dry_run;
  const std::string& prefix = options.env.prefix;
  // A repair that writes holds the env's lock from its first read to its last
  // write: another repair or undo is never seen half-way (a dry run only reads).
  auto tree = options.dry_run ? sys::PrefixTree::open(prefix) : open_locked(prefix);
  if (!tree) return failed(std::move(o), tree.error());
  auto& files = sys::process_file_view();
  const sys::RepairState state = sys::read_repair_state(*tree);
  if (state.unreadable) {
    Error e = *state.unreadable;
    e.message += " (condacuda will not guess what it created; fix or remove it)";
    return failed(std::move(o), e);
  }
  const std::optional<repair::Manifest>& previous = state.manifest;
  auto inputs = doctor_inputs(options.env, BaseLdLibraryPath::this_shell(), files, state);
  if (!inputs) return failed(std::move(o), inputs.error());
  o.warnings = inputs->inventory.warnings;
  const auto system = sys::system_cuda_dirs();
  if (options.launches.size() >= launch::max_recorded_launches)
    return failed(std::move(o), make_error(ErrorCode::bad_input,
                                           "--launch: at most " + std::to_string(launch::max_recorded_launches - 1) +
                                               " besides this shell's (a repair records " +
                                               std::to_string(launch::max_recorded_launches) + ")"));
  const PlanChoices choices =
      kernel_choices(o, options, *inputs, {options.pin, true, options.forget_launches, options.launches});
  repair::PlanRequest request = plan_request(*inputs, previous, choices, system);
  if (!options.launches.empty())
    o.notes.push_back("the launch(es) given with --launch are verified and recorded too: " +
                      std::to_string(options.launches.size()) + " LD_LIBRARY_PATH value(s) beside this shell's");
  if (request.pin && !options.pin && is_venv(options.env) && !previous)
    o.notes.push_back("a venv has no conda activation to run a hook: repair pins (the libraries' own search path then comes "
                      "before LD_LIBRARY_PATH) so that the env's libraries win without it; --no-pin does not");
  if (previous && !previous->launches.empty() && previous->launches != request.launches)
    o.notes.push_back(options.forget_launches
                          ? "the launches earlier repairs recorded are forgotten: only this shell's (LD_LIBRARY_PATH " +
                                launch::describe(request.launches.back()) + ") is verified and recorded"
                          : "this shell's launch (LD_LIBRARY_PATH " + launch::describe(request.launches.back()) +
                                ") is recorded beside the " + std::to_string(previous->launches.size()) +
                                " earlier one(s): this and every later repair verifies them all");
  o.plan = repair::plan_repair(*inputs, files, request);
  o.verification = repair::verify_plan(o.plan, *inputs, system, files, request.pinned_now);
  auto desired = repair::desired_state(o.plan, options.shells, tool);
  if (!desired) return failed(std::move(o), desired.error());
  for (const auto& d : desired->entries)
    if (d.entry.kind == repair::ManifestEntry::Kind::file) o.hooks.push_back(d.entry.path);
  add_package_notes(o);
  if (!o.verification.ok)
    return finish(std::move(o), RepairStatus::cannot_repair, cannot_repair_reason(o, options));
  o.changes = repair::compute_changes(*desired, previous,
                                      sys::read_path_states(*tree, repair::paths_of(*desired, previous)), tool,
                                      sys::read_pin_states(*tree, sys::pin_offsets(&*desired, previous)));
  if (o.changes->conflicts())
    return finish(std::move(o), RepairStatus::conflict,
                  "files condacuda did not create are in the way (marked REFUSE); move them, then run repair again");
  const repair::RepairDecision decision = repair::decide_repair(*desired, previous, *o.changes);
  const RepairStatus quiet =
      decision == repair::RepairDecision::nothing_to_do ? RepairStatus::nothing_to_do : RepairStatus::unchanged;
  if (options.dry_run)
    return finish(std::move(o), decision == repair::RepairDecision::write ? RepairStatus::would_repair : quiet);
  RepairStatus status = RepairStatus::repaired;
  if (decision == repair::RepairDecision::write) {
    if (auto applied = apply_repair(*tree, *desired, previous, *o.changes); !applied)
      return failed(std::move(o), applied.error());
  } else {
    status = quiet;
    remove_leftovers(*tree, *desired, previous);
  }
  if (auto marked = mark_repair_time(*tree); !marked)
    o.warnings.push_back("the activation hooks may call this repair stale: " + marked.error().describe());
  verdict_after(o);
  o.next_step = next_step(o);
  return finish(std::move(o), status);
}

namespace {
// conda prints and deletes $PREFIX/.messages.txt after the transaction. As
// every write into an env: never through a link, never into a FIFO.
void append_message(const std::string& prefix, const std::string& text) {
  if (prefix.empty() || text.empty()) return;
  if (auto tree = sys::PrefixTree::open(prefix)) (void)tree->append_file(".messages.txt", text);
}
} // namespace

void post_link(const std::string& prefix, const std::optional<env::EnvRecord>& env,
               const Result<std::vector<repair::Shell>>& shells, const PostLinkMessage& message) {
  PostLinkOutcome outcome{prefix, std::nullopt};
  if (env) {
    RepairOutcome o;
    o.env = *env;
    if (!shells) o = failed(std::move(o), shells.error());
    else o = repair({*env, *shells, false, std::nullopt, false, {}});
    outcome.repair = std::move(o);
  }
  append_message(env ? env->prefix : prefix, message(outcome));
}

} // namespace condacuda::app
