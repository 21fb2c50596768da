#pragma once
// `condacuda lock --check`: what differs between a lockfile and the lock of
// the env as it is now, and whether the env loads here ("matches and loads
// here"). Pure: two Lockfile values (and the loader's failures, found by
// doctor's model in app/lock.cpp) in, a diff and an outcome out; rendering to
// text or JSON is separate.
#include <optional>
#include <string>
#include <vector>

#include "lock/lockfile.hpp"

namespace condacuda::lock {

enum class ChangeKind {
  added,    // a library the lock does not have
  removed,  // a locked library that is gone
  version,  // same path, another package, version or build (the file differs too)
  sha256,   // same path and package version, other bytes
  identity, // same path and bytes, another soname or component (condacuda's rules changed)
  verdict,  // the alignment verdict: series, a rule's result, aligned
};
const char* to_string(ChangeKind k);

struct Change {
  ChangeKind kind;
  std::string what;   // "cusparse lib/.../libcusparse.so.12", "rule symbols", "series", "aligned"
  std::string locked; // the locked value ("-" when absent)
  std::string now;    // the env's value ("-" when absent)
  std::vector<std::string> why; // verdict changes: the current failures
};

// A rule that fails on this machine: the driver rule (the machine's driver or
// --driver), which judges where the env runs, not what it holds.
struct RuleHere {
  std::string rule;             // "driver"
  std::string locked;           // its result when locked: "pass", "skipped", "fail", "-"
  std::vector<std::string> why; // the failing evidence here
};

struct LockDiff {
  std::vector<Change> changes;   // drift: any entry means exit 1
  std::vector<RuleHere> rules_here; // rules that fail here (exit 1, not drift: the env did not change)
  std::vector<std::string> notes; // differences that are not drift (env name, release table, a skipped driver rule)
  std::size_t components = 0;    // in the env now
  std::string series;            // the env's now
  bool aligned = true;           // the env's now
  bool matches() const { return changes.empty(); }
};

// Components are compared by path; the verdict rule by rule. A rule that is
// "skipped" on either side (the driver rule where no driver is visible) is a
// note, not drift: a lock made on a GPU node must check clean in CI. The
// driver rule is the machine's, never drift: when it fails here (whatever it
// was when locked) it is in rules_here; any other change of it is a note, and
// so is `aligned` changing because of it alone.
LockDiff diff_locks(const Lockfile& locked, const Lockfile& now);

// A locked library that does not load with this shell's LD_LIBRARY_PATH, as
// doctor's loader model finds it (not-found, undefined-symbol, ...).
struct LoadFailure {
  std::string library;     // prefix-relative path, as locked
  std::string component;   // "cusparse"
  std::string code;        // doctor's finding code: "undefined-symbol"
  std::string first_error; // the loader's first error for it
  std::string fix;         // doctor's fix for that finding
};

struct LoadsHere {
  std::optional<std::string> ld_library_path; // this shell's, before the env's hook (nullopt: unset)
  std::vector<LoadFailure> failures;          // one per locked library that does not load, in lock order
  bool loads() const { return failures.empty(); }
};

// The failures of libraries the lock lists (by path), one per library (the
// first given wins), in the lock's order; failures of other files (consumers,
// libraries the lock does not have) are left out: added ones are drift already.
std::vector<LoadFailure> locked_load_failures(const Lockfile& locked, const std::vector<LoadFailure>& found);

// `lock --check`'s verdict: drift (the env differs from the lock) before
// does-not-load (it matches, but a locked library does not load here or a
// rule fails here) before matches. Exit 1 for both failures.
enum class CheckOutcome { matches, drift, does_not_load };
const char* to_string(CheckOutcome o); // "matches", "drift", "does-not-load"
CheckOutcome check_outcome(const LockDiff& diff, const LoadsHere& loads);

} // namespace condacuda::lock
