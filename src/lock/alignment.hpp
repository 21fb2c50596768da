#pragma once
// The alignment rules: do the env's CUDA libraries belong together? One source
// of truth for `condacuda lock` (the verdict in the lockfile) and `condacuda
// doctor` (misaligned / driver-too-old findings, doctor/alignment_findings).
//
//   symbols     every versioned symbol an env library needs from another env
//               library is defined there (the highest __nvJitLink*_X_Y a
//               library references is the nvJitLink release it needs). Needs
//               no table: it reads the libraries' own symbol tables.
//   same-major  all toolkit libraries come from one CUDA major (from wheel
//               names, the cu13 folder, package versions: inventory's evidence;
//               the release table when that is silent). Not the soname:
//               libcusparse.so.12 ships in CUDA 12 and 13. The env's major is
//               its consumers' (torch, jax, cupy: consumers_major) when they
//               say, else the one most toolkit libraries agree on; libraries of
//               another major are the strays, named with the env's own copy of
//               the component when it has one (the fix removes the stray).
//   releases    each toolkit component's release, from the table (unknown
//               versions stay unknown); nvJitLink's release >= the release of
//               every env library that needs it.
//   driver      when a driver is visible: its branch >= the minimum of the
//               env's CUDA major (525 for 12.x, 580 for 13.x).
//   requirements  (only in an env whose packages require versions of its
//               components: inventory/package_requirements.hpp) the env's own
//               copy of each required component satisfies what the packages
//               require (torch's nvidia-cudnn-cu12==9.10.2.21). Which copy a
//               launch loads is doctor's requirement-mismatch.
//
// Pure: the ELF files come through loader::FileSystemView.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/consumers_major.hpp"
#include "inventory/inventory.hpp"
#include "loader/file_system_view.hpp"
#include "lock/driver.hpp"
#include "lock/release_table.hpp"

namespace condacuda::lock {

enum class RuleResult {
  pass,
  fail,
  unknown, // nothing the rule could judge (no table entry, unreadable symbols)
  skipped, // the rule does not apply here (no driver visible)
};
const char* to_string(RuleResult r);
std::optional<RuleResult> parse_rule_result(std::string_view s);

namespace rule {
inline constexpr const char* symbols = "symbols";
inline constexpr const char* same_major = "same-major";
inline constexpr const char* releases = "releases";
inline constexpr const char* driver = "driver";
inline constexpr const char* requirements = "requirements";
} // namespace rule

// One failure of a rule, with what a finding needs to say who needs what.
struct RuleFailure {
  std::string consumer;        // the env library that needs something (prefix-relative); "" for the driver rule
  std::string consumer_soname;
  std::string provider;        // the env library (prefix-relative) that lacks it / is too old
  std::string provider_soname;
  std::string provider_package; // "nvidia-nvjitlink-cu12 12.1.105"
  std::string provider_manager; // "pip", "conda", "" (what installs the fix)
  std::string provider_component; // "nvjitlink": what to upgrade
  int provider_major = -1;
  std::vector<std::string> symbols; // symbols: the missing ones (first few)
  std::string version;              // symbols: their version node
  std::string needed_release;       // "12.4": what the consumer needs
  std::string message;              // one line for people
  // same-major: why the env's major is needed_release ("the env's consumers need
  // CUDA 12: lib/.../_C.so needs libcudart.so.12"), and the env's copy of the same
  // component in that major ("nvidia-cusparse-cu12 12.1.0.106"), "" when it has none.
  std::string reason;
  std::string replacement;
};

struct RuleOutcome {
  std::string rule;
  RuleResult result = RuleResult::unknown;
  std::string min_release;           // symbols: the release the highest __nvJitLink*_X_Y implies
  std::vector<std::string> evidence; // why, for people and the lockfile (no absolute paths)
  std::vector<RuleFailure> failures; // empty unless result == fail
};


struct Alignment {
  std::string series; // "12.1": the newest release series of the env's toolkit components of
                      // its consumers' CUDA major (of all of them when the consumers do not
                      // say); "13" when only the major is known; "unknown"
  bool aligned = true; // no rule failed
  std::vector<RuleOutcome> rules; // symbols, same-major, releases, driver: always all four, in this order
  std::map<std::string, ReleaseMatch> releases; // by library file (prefix-relative)

  const RuleOutcome* find(std::string_view rule_name) const;
};

struct AlignmentInputs {
  const inventory::Inventory* inventory = nullptr;
  const ReleaseTable* table = nullptr;
  loader::FileSystemView* files = nullptr; // probes of prefix + "/" + file, with symbols
  std::optional<DriverVersion> driver;
};

Alignment evaluate_alignment(const AlignmentInputs& in);

// The rules one by one (alignment.cpp, symbol_rule.cpp); evaluate_alignment
// calls them in order.
RuleOutcome symbol_rule(const AlignmentInputs& in);
RuleOutcome same_major_rule(const AlignmentInputs& in, const std::map<std::string, ReleaseMatch>& releases,
                            const inventory::ConsumersMajor& consumers = {});
RuleOutcome release_rule(const AlignmentInputs& in, const std::map<std::string, ReleaseMatch>& releases);
RuleOutcome driver_rule(const AlignmentInputs& in, const std::string& series);

// "pip nvidia-cusparse-cu12 12.1.0.106" (or "no package").
std::string package_label(const inventory::Library& lib);

} // namespace condacuda::lock
