#pragma once
// The check as a value: the plan, what the probe reported, how it compares
// with the prediction, warnings, and the outcome with its one-line reason.
// report/check_report renders it; cli/cmd_check maps the outcome to an exit
// code. Pure.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/gpu_prediction.hpp"
#include "check/model.hpp"
#include "check/prediction.hpp"
#include "check/python_frameworks.hpp"
#include "launch/launch.hpp"
#include "doctor/findings.hpp"
#include "env/discovery.hpp"
#include "util/child_outcome.hpp"

namespace condacuda::check {

// How a child (the probe, or python for --python) ended: "exited with 1",
// "was killed by signal 11 (SIGSEGV)", "was killed after the 60 s timeout".
std::string describe(const util::ChildOutcome& c, double timeout_s);

struct CheckWarning {
  std::string code;    // "persistence-off", "tf32-override", "prediction-mismatch", ...
  std::string message;
};

enum class Outcome { pass, fail, no_gpu };
const char* to_string(Outcome o);

struct CheckReport {
  env::EnvRecord env;
  std::optional<std::string> ld_library_path; // the probe's (the activated value)
  bool hook_applied = false;
  // Where the probe's LD_LIBRARY_PATH comes from (plan: as `condacuda run` gives it).
  launch::ActivatedSource ld_library_path_source = launch::ActivatedSource::as_is;
  std::vector<std::string> planned_folders; // prefix-relative, when the source is "plan"
  std::string sizes_name = "full";            // "full" or "quick"
  std::string link_only_arch;                 // --link-only: the verdict is the PTX link's, no driver step ran
  double timeout_s = 0;
  ProbePlan plan;
  ProbeResult probe;
  util::ChildOutcome child;
  std::vector<LibraryComparison> library_comparisons;
  ObjectsComparison objects;
  // The GPU coverage predicted from the loaded libraries' fatbins for the
  // device, next to what the device did (check/gpu_prediction.hpp).
  std::vector<CoverageComparison> coverage;
  std::vector<std::string> stub_folders; // LD_LIBRARY_PATH entries that hold the toolkit's stub libcuda.so
  std::vector<CheckWarning> warnings;
  std::vector<doctor::Finding> findings; // doctor's findings that explain a load failure seen here
  bool python_requested = false;
  std::vector<PythonResult> python;
  util::ChildOutcome python_child;
  Outcome outcome = Outcome::fail;
  std::string reason;
  double wall_ms = 0;
};

// Variables in the probe's environment that change what the check measures
// (docs/gpu-check.md step 5: TF32 override variables), in the given order.
std::vector<CheckWarning> environment_warnings(const std::vector<std::pair<std::string, std::string>>& environment);

// Warnings from the probe's report: persistence mode off, skipped steps,
// predictions that differ from what loaded.
std::vector<CheckWarning> probe_warnings(const CheckReport& r);

// The folders the loader searched for `planned` (hwcaps subfolders folded
// into their folder), in order.
std::vector<std::string> searched_folders(const PlannedLibrary& planned);

// A step's rate and how it compares: TFLOP/s against the device's peak for
// its precision (check/performance.hpp), GB/s against the memory bus peak
// and, for steps other than the copy, against the measured copy bandwidth.
struct StepRates {
  std::optional<double> rate;
  std::string unit; // "TFLOP/s" or "GB/s"
  std::optional<double> peak;
  std::optional<double> of_peak;
  std::optional<double> of_copy;
};
StepRates step_rates(const StepResult& step, const ProbeResult& probe);

// Sets outcome and reason: no_gpu when no driver, a stub, a cuInit failure,
// or no device; fail when a library did not load, a step failed, the probe
// died or hung, or (--python) a framework failed; pass otherwise.
void decide(CheckReport& r);

} // namespace condacuda::check
