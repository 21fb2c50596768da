#pragma once
// `condacuda repair`: plan (a value) -> verify by simulation -> apply (atomic,
// locked, manifest), and what its conda post-link says.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "doctor/doctor.hpp"
#include "env/discovery.hpp"
#include "launch/launch.hpp"
#include "repair/changes.hpp"
#include "repair/hooks.hpp"
#include "repair/plan.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct RepairOptions {
  env::EnvRecord env;
  std::vector<repair::Shell> shells; // posix is always among them
  bool dry_run = false;
  // --pin / --no-pin; unset: what the last repair did, else pin in a venv or
  // uv env (no conda activation runs a hook there) and not in a conda env.
  std::optional<bool> pin;
  // --forget-launches: verify and record this shell's launch only, not those
  // earlier repairs recorded (the pins they made stay unless --no-pin).
  bool forget_launches = false;
  // --launch: LD_LIBRARY_PATH values to verify and record too (nullopt: unset).
  std::vector<launch::PathValue> launches;
};

enum class RepairStatus {
  repaired,      // changes written; the env loads
  unchanged,     // the env was repaired already: nothing written
  nothing_to_do, // healthy without a repair: nothing written
  would_repair,  // --dry-run: a repair would write something
  cannot_repair, // the plan does not make every root load: nothing written
  conflict,      // a file condacuda did not create is in the way: nothing written
  error,         // the env could not be read or written (RepairOutcome::error)
};
const char* to_string(RepairStatus status); // "repaired", "would-repair", ...

struct RepairOutcome {
  env::EnvRecord env;
  bool dry_run = false;
  repair::RepairPlan plan;
  std::vector<std::string> hooks; // hook files the plan writes
  repair::Verification verification;
  std::optional<repair::ChangeSet> changes;
  std::optional<std::string> failure;       // cannot_repair, conflict: why nothing was written
  std::optional<std::pair<int, int>> after; // doctor after applying: errors, warnings
  std::vector<doctor::KernelReport> kernels; // the env's Jupyter kernels, judged after applying
  // Each known launch that still fails after applying, with its fix (the
  // not-activated launch of a conda env repaired without pins, a kernel).
  struct StillFailing {
    std::string what, fix; // the finding's title and fix
  };
  std::vector<StillFailing> still_failing;
  // The line to type in this shell for the repair to take effect ("" when
  // nothing is needed): its activation ran before the hook existed (conda),
  // or nothing activates the env's libraries (a venv: `condacuda run`).
  std::string next_step;
  RepairStatus status = RepairStatus::error;
  std::optional<Error> error; // status error: said once, nothing else to show
  std::vector<std::string> warnings; // what reading the env skipped (unreadable records, ...)
  std::vector<std::string> notes;    // what the user should know (why it pins, ...)
};


RepairOutcome repair(const RepairOptions& options);

// What a post-link did: the repair of the env, or none when `prefix` is not one.
struct PostLinkOutcome {
  std::string prefix; // as conda gave it
  std::optional<RepairOutcome> repair;
};
// What a conda user must know after it (report::post_link_message), "" when all is well.
using PostLinkMessage = std::function<std::string(const PostLinkOutcome&)>;

// --post-link, as conda runs it (env activated, nothing on the terminal): a
// failing post-link makes conda roll the whole install back, so this never
// fails. It repairs the env `prefix` names when it could be selected and the
// shells parsed, and appends `message` of what happened to
// $PREFIX/.messages.txt (conda prints and deletes it).
void post_link(const std::string& prefix, const std::optional<env::EnvRecord>& env,
               const Result<std::vector<repair::Shell>>& shells, const PostLinkMessage& message);

} // namespace condacuda::app
