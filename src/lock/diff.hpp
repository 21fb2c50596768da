#pragma once
// `condacuda lock --check`: what differs between a lockfile and the lock of
// the env as it is now. Pure: two Lockfile values in, a diff out; rendering to
// text or JSON is separate.
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

struct LockDiff {
  std::vector<Change> changes;   // drift: any entry means exit 1
  std::vector<std::string> notes; // differences that are not drift (env name, release table, a skipped driver rule)
  std::size_t components = 0;    // in the env now
  std::string series;            // the env's now
  bool aligned = true;           // the env's now
  bool matches() const { return changes.empty(); }
};

// Components are compared by path; the verdict rule by rule. A rule that is
// "skipped" on either side (the driver rule where no driver is visible) is a
// note, not drift: a lock made on a GPU node must check clean in CI.
LockDiff diff_locks(const Lockfile& locked, const Lockfile& now);

} // namespace condacuda::lock
