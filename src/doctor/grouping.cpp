#include "doctor/grouping.hpp"

#include <algorithm>
#include <map>

#include "doctor/wording.hpp"

namespace condacuda::doctor {

namespace {
// Findings whose fix is the env's own copy loading instead of the outside
// one: the cause (the entry that found the outside copy) is what to fix.
bool env_copy_fixes(const Finding& f) {
  if (f.via.empty() || f.via == "not_found") return false;
  if (f.code == code::shadowed) return true;
  if (f.code == code::foreign_cuda_major) return f.severity != Severity::error; // an error: the env lost its copy
  if (f.code == code::undefined_symbol || f.code == code::requirement_mismatch) return f.expected_satisfies;
  return false;
}

// Which part speaks for the group: the most severe, then a failure over a
// version's word over a copy's place.
int rank(const Finding& f) {
  static const char* const order[] = {code::undefined_symbol, code::requirement_mismatch, code::foreign_cuda_major,
                                      code::shadowed};
  int r = 0;
  for (const char* c : order) {
    if (f.code == c) break;
    ++r;
  }
  return static_cast<int>(f.severity) * 8 + r;
}

std::string cause_phrase(const Finding& f) {
  auto via = found_via_named(f.via);
  return via ? search_step(*via, f.via_entry) : f.via + " '" + f.via_entry + "'";
}

void add_unique(std::vector<std::string>& to, const std::string& s) {
  if (!s.empty() && std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

Finding merge(std::vector<Finding> parts) {
  std::stable_sort(parts.begin(), parts.end(), [](const Finding& a, const Finding& b) { return rank(a) < rank(b); });
  Finding g = parts.front();
  std::vector<std::string> libraries;
  for (const auto& p : parts) add_unique(libraries, p.library);
  if (libraries.size() > 1) {
    std::string names;
    for (const auto& l : libraries) names += (names.empty() ? "" : ", ") + l;
    g.title = cause_phrase(g) + " shadows " + std::to_string(libraries.size()) + " of the env's libraries (" + names + ")" +
              (g.severity == Severity::error ? ": " + parts.front().title : "");
  }
  // The evidence: where the cause is, every copy it shadows with both
  // versions, then what each part adds (its own title when the group has
  // several libraries).
  g.evidence.clear();
  for (const auto& p : parts)
    for (const auto& line : p.evidence)
      if (line.rfind("found through", 0) == 0) add_unique(g.evidence, line);
  // A copy's version is said once: a part of one library that names it
  // already ("loaded for X: PATH, version ...") leaves the shadowed line out.
  auto said_elsewhere = [&](const Finding& shadowed, const std::string& line) {
    if (libraries.size() != 1 || line.rfind(shadowed.library + ": " + shadowed.resolved + ", ", 0) != 0) return false;
    return std::any_of(parts.begin(), parts.end(), [&](const Finding& p) {
      return p.code != code::shadowed && std::any_of(p.evidence.begin(), p.evidence.end(), [&](const std::string& e) {
               return e.rfind("loaded for " + shadowed.library + ": " + shadowed.resolved + ", ", 0) == 0;
             });
    });
  };
  for (const auto& p : parts)
    if (p.code == code::shadowed)
      for (const auto& line : p.evidence)
        if (!said_elsewhere(p, line)) add_unique(g.evidence, line);
  for (const auto& p : parts) {
    if (p.code == code::shadowed) continue;
    if (&p != &parts.front()) add_unique(g.evidence, p.code + ": " + p.title);
    for (const auto& line : p.evidence) add_unique(g.evidence, line);
  }
  g.affects.clear();
  for (const auto& p : parts)
    for (const auto& a : p.affects) add_unique(g.affects, a);
  if (g.first_error.empty())
    for (const auto& p : parts)
      if (!p.first_error.empty()) {
        g.first_error = p.first_error;
        break;
      }
  g.parts = std::move(parts);
  return g;
}
} // namespace

std::vector<Finding> group_by_cause(std::vector<Finding> findings) {
  std::map<std::string, std::vector<std::size_t>> by_cause;
  for (std::size_t i = 0; i < findings.size(); ++i)
    if (env_copy_fixes(findings[i])) by_cause[findings[i].via + "\n" + findings[i].via_entry].push_back(i);
  std::vector<Finding> out;
  std::vector<bool> taken(findings.size(), false);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (taken[i]) continue;
    if (!env_copy_fixes(findings[i])) {
      out.push_back(std::move(findings[i]));
      continue;
    }
    const auto& members = by_cause[findings[i].via + "\n" + findings[i].via_entry];
    if (members.size() == 1) {
      out.push_back(std::move(findings[i]));
      continue;
    }
    std::vector<Finding> parts;
    for (auto m : members) {
      taken[m] = true;
      parts.push_back(std::move(findings[m]));
    }
    out.push_back(merge(std::move(parts)));
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return out;
}

void for_each_cause(const std::vector<Finding>& findings, const std::function<void(const Finding&)>& visit) {
  for (const auto& f : findings) {
    if (f.parts.empty()) visit(f);
    for (const auto& p : f.parts) visit(p);
  }
}

} // namespace condacuda::doctor
