#include "lock/diff.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace condacuda::lock {

const char* to_string(ChangeKind k) {
  switch (k) {
  case ChangeKind::added: return "added";
  case ChangeKind::removed: return "removed";
  case ChangeKind::version: return "version";
  case ChangeKind::sha256: return "sha256";
  case ChangeKind::identity: return "identity";
  case ChangeKind::verdict: return "verdict";
  }
  return "changed";
}

namespace {
std::string package_of(const LockedComponent& c) {
  if (c.package.empty()) return "no package";
  return c.manager + " " + c.package + " " + c.version + (c.build.empty() ? "" : " " + c.build);
}

std::string short_hash(const std::string& h) { return h.empty() ? "(unreadable)" : h.substr(0, 16); }

void diff_components(const Lockfile& locked, const Lockfile& now, LockDiff& d) {
  std::map<std::string, const LockedComponent*> before, after;
  for (const auto& c : locked.components) before[c.path] = &c;
  for (const auto& c : now.components) after[c.path] = &c;
  std::set<std::string> paths;
  for (const auto& [p, c] : before) paths.insert(p);
  for (const auto& [p, c] : after) paths.insert(p);
  for (const auto& path : paths) {
    auto b = before.find(path), a = after.find(path);
    const LockedComponent* was = b == before.end() ? nullptr : b->second;
    const LockedComponent* is = a == after.end() ? nullptr : a->second;
    std::string what = (is ? is->component : was->component) + " " + path;
    if (!is) d.changes.push_back({ChangeKind::removed, what, package_of(*was), "-", {}});
    else if (!was) d.changes.push_back({ChangeKind::added, what, "-", package_of(*is), {}});
    else if (was->manager != is->manager || was->package != is->package || was->version != is->version || was->build != is->build)
      d.changes.push_back({ChangeKind::version, what, package_of(*was), package_of(*is), {}});
    else if (was->sha256 != is->sha256)
      d.changes.push_back({ChangeKind::sha256, what, short_hash(was->sha256), short_hash(is->sha256), {}});
    else if (was->soname != is->soname || was->component != is->component)
      d.changes.push_back({ChangeKind::identity, what, was->component + " " + was->soname, is->component + " " + is->soname, {}});
    else if (was->cuda_release != is->cuda_release)
      d.notes.push_back(path + ": CUDA release " + was->cuda_release + " when locked, " + is->cuda_release +
                        " now (same file; the release table differs)");
  }
}

std::vector<std::string> failing_evidence(const LockedRule& r) {
  // Evidence is kept as lines; the symbol, release and driver rules mark a
  // failing line with "missing" or " < ". same-major's lines ("CUDA 12: ...")
  // are the story as a whole.
  std::vector<std::string> out;
  for (const auto& e : r.evidence)
    if (e.find(" missing: ") != std::string::npos || e.find(" < ") != std::string::npos) out.push_back(e);
  if (out.empty()) out = r.evidence;
  return out;
}

void diff_verdict(const Lockfile& locked, const Lockfile& now, LockDiff& d) {
  const LockedVerdict &was = locked.alignment, &is = now.alignment;
  bool rule_changed = false;
  std::set<std::string> names;
  for (const auto& r : was.rules) names.insert(r.rule);
  for (const auto& r : is.rules) names.insert(r.rule);
  for (const auto& name : names) {
    const LockedRule* b = was.find(name);
    const LockedRule* a = is.find(name);
    std::string from = b ? to_string(b->result) : "-", to = a ? to_string(a->result) : "-";
    if (name == rule::driver) { // the machine's rule: fails here, or a note
      if (a && a->result == RuleResult::fail) d.rules_here.push_back({name, from, failing_evidence(*a)});
      else if (from != to) d.notes.push_back("rule " + name + ": " + from + " when locked, " + to + " here");
      continue;
    }
    if (from == to) continue;
    if (!a || !b || a->result == RuleResult::skipped || b->result == RuleResult::skipped) {
      d.notes.push_back("rule " + name + ": " + from + " when locked, " + to + " here");
      continue;
    }
    rule_changed = true;
    d.changes.push_back({ChangeKind::verdict, "rule " + name, from, to, a->result == RuleResult::fail ? failing_evidence(*a) : std::vector<std::string>{}});
  }
  if (was.series != is.series) d.changes.push_back({ChangeKind::verdict, "series", was.series, is.series, {}});
  if (was.aligned != is.aligned) {
    auto word = [](bool b) { return std::string(b ? "true" : "false"); };
    if (rule_changed) d.changes.push_back({ChangeKind::verdict, "aligned", word(was.aligned), word(is.aligned), {}});
    else d.notes.push_back("aligned: " + word(was.aligned) + " when locked, " + word(is.aligned) +
                           " here, from a rule not judged on both sides or the driver's");
  }
}
} // namespace

LockDiff diff_locks(const Lockfile& locked, const Lockfile& now) {
  LockDiff d;
  d.components = now.components.size();
  d.series = now.alignment.series;
  d.aligned = now.alignment.aligned;
  if (locked.env != now.env) d.notes.push_back("locked from an env named '" + locked.env + "', checking '" + now.env + "'");
  if (locked.release_table != now.release_table || locked.release_table_sha256 != now.release_table_sha256)
    d.notes.push_back("locked with release table " + locked.release_table + ", checked with " + now.release_table);
  diff_components(locked, now, d);
  diff_verdict(locked, now, d);
  return d;
}

std::vector<LoadFailure> locked_load_failures(const Lockfile& locked, const std::vector<LoadFailure>& found) {
  std::vector<LoadFailure> out;
  for (const auto& c : locked.components) {
    auto f = std::find_if(found.begin(), found.end(), [&](const LoadFailure& x) { return x.library == c.path; });
    if (f == found.end()) continue;
    out.push_back(*f);
    if (out.back().component.empty()) out.back().component = c.component;
  }
  return out;
}

const char* to_string(CheckOutcome o) {
  switch (o) {
  case CheckOutcome::matches: return "matches";
  case CheckOutcome::drift: return "drift";
  case CheckOutcome::does_not_load: return "does-not-load";
  }
  return "drift";
}

CheckOutcome check_outcome(const LockDiff& diff, const LoadsHere& loads) {
  if (!diff.matches()) return CheckOutcome::drift;
  if (!loads.loads() || !diff.rules_here.empty()) return CheckOutcome::does_not_load;
  return CheckOutcome::matches;
}

} // namespace condacuda::lock
