#pragma once
// Findings: what doctor (and repair's verification) report, with stable codes
// (README "Findings") and the evidence behind each.
#include <string>
#include <vector>

namespace condacuda::doctor {

enum class Severity { error, warning, info };
const char* to_string(Severity s);

// Stable finding codes.
namespace code {
inline constexpr const char* not_found = "not-found";
inline constexpr const char* undefined_symbol = "undefined-symbol";
inline constexpr const char* version_not_found = "version-not-found";
inline constexpr const char* bad_file = "bad-file";
inline constexpr const char* loader_abort = "loader-abort";
inline constexpr const char* shadowed = "shadowed";
inline constexpr const char* empty_path_entry = "empty-path-entry";
inline constexpr const char* stubs_on_path = "stubs-on-path";
inline constexpr const char* foreign_hook = "foreign-hook";
inline constexpr const char* misaligned = "misaligned";
inline constexpr const char* driver_too_old = "driver-too-old";
inline constexpr const char* not_activated = "not-activated";
inline constexpr const char* stale_repair = "stale-repair";
inline constexpr const char* unreadable_repair_record = "unreadable-repair-record";
inline constexpr const char* foreign_cuda_major = "foreign-cuda-major";
inline constexpr const char* dangling_repair_link = "dangling-repair-link";
inline constexpr const char* no_kernel_image = "no-kernel-image";
inline constexpr const char* ptx_jit_only = "ptx-jit-only";
inline constexpr const char* import_order = "import-order";
inline constexpr const char* import_order_skipped = "import-order-skipped";
inline constexpr const char* no_gpu_code = "no-gpu-code";
inline constexpr const char* unverified_launch = "unverified-launch";
inline constexpr const char* requirement_mismatch = "requirement-mismatch";
inline constexpr const char* folders_before_hook = "folders-before-hook";
inline constexpr const char* unusable_prefix = "unusable-prefix";
inline constexpr const char* executable_stack = "executable-stack";
inline constexpr const char* import_fails = "import-fails";
inline constexpr const char* outside_wheel = "outside-wheel";
inline constexpr const char* kernel_fails = "kernel-fails";
inline constexpr const char* kernel_exposed = "kernel-exposed";
inline constexpr const char* bad_kernelspec = "bad-kernelspec";
} // namespace code

// Findings about the env's packages or the machine's driver (misaligned,
// driver-too-old, the GPU coverage ones): no LD_LIBRARY_PATH, symlink or pin
// changes them, so a repair's verification does not wait for them; it names
// them as left to do. (import-order is not one: repair gives each soname one
// copy, and its verification excuses only what its plan explains: its
// limits, repair::OrderLimit, and sonames no CUDA library of the env has.)
inline bool is_package_finding(const std::string& finding_code) {
  return finding_code == code::misaligned || finding_code == code::driver_too_old ||
         finding_code == code::no_kernel_image || finding_code == code::ptx_jit_only;
}

// A fix as a step a program can take (`actions` in --json, issue 51): what
// a script or the convergence harness runs, in order.
struct FixAction {
  std::string kind;              // "pip-uninstall", "pip-install", "repair", "remove-path-entry", "activate"
  std::vector<std::string> args; // pip: the words after `pip`; repair: the prefix, then its options (--pin);
                                 // remove-path-entry: the variable, the entry; activate: the prefix
  bool operator==(const FixAction&) const = default;
};

// The command a user types for `action`: "pip install --upgrade 'x>=12.4'",
// "condacuda repair -p '/env' --pin"; empty for one that is no single
// command (remove-path-entry). Fix texts name their steps with these words,
// so the line the text view shows is the step --json gives (one source).
std::string command_line(const FixAction& action);

struct Finding {
  std::string code;
  Severity severity = Severity::error;
  std::string title;       // one line: what is wrong
  std::string library;     // the soname concerned
  std::string symbols;     // missing symbols, comma-separated (undefined-symbol)
  std::string version;     // the version node
  std::string resolved;    // the file the loader chose (absolute)
  std::string via;         // the search step that chose it (loader::FoundVia name)
  std::string via_entry;   // the list element (e.g. the LD_LIBRARY_PATH entry)
  std::string expected;    // the env's own file for that soname (prefix-relative), if any
  std::string expected_package; // its package and version
  bool expected_satisfies = false; // the env's file defines what was missing
  std::string min_release; // the release implied by versioned entry points (__nvJitLink*_12_4 -> 12.4)
  std::vector<std::string> evidence; // "why" lines, for people
  std::vector<std::string> affects;  // roots that fail or are affected (prefix-relative)
  std::string first_error;           // the loader's text for the first affected root
  std::string fix;
  std::vector<FixAction> actions; // the fix as steps, when it is one condacuda can name (else empty)
  // The findings this one stands for when several have one cause
  // (doctor/grouping.hpp); empty when it stands alone.
  std::vector<Finding> parts;
};

} // namespace condacuda::doctor
