#include "lock/alignment.hpp"

#include <algorithm>
#include <set>

#include "inventory/components.hpp"
#include "util/strings.hpp"

namespace condacuda::lock {

using inventory::Library;

const char* to_string(RuleResult r) {
  switch (r) {
  case RuleResult::pass: return "pass";
  case RuleResult::fail: return "fail";
  case RuleResult::unknown: return "unknown";
  case RuleResult::skipped: return "skipped";
  }
  return "unknown";
}

std::optional<RuleResult> parse_rule_result(std::string_view s) {
  for (RuleResult r : {RuleResult::pass, RuleResult::fail, RuleResult::unknown, RuleResult::skipped})
    if (s == to_string(r)) return r;
  return std::nullopt;
}

const RuleOutcome* Alignment::find(std::string_view rule_name) const {
  for (const auto& r : rules)
    if (r.rule == rule_name) return &r;
  return nullptr;
}

std::string package_label(const Library& lib) {
  if (lib.package.empty()) return "no package";
  std::string s = lib.manager + " " + lib.package + " " + lib.version;
  if (!lib.build.empty()) s += " " + lib.build;
  return s;
}

namespace {
std::string newest(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return util::compare_versions(a, b) >= 0 ? a : b;
}

// The CUDA major of a toolkit library: the inventory's evidence (wheel name,
// cu13 folder, package version, needs), else the release its version matches.
std::pair<int, std::string> major_of(const Library& lib, const std::map<std::string, ReleaseMatch>& releases) {
  if (lib.cuda_major > 0) return {lib.cuda_major, lib.cuda_major_source};
  auto it = releases.find(lib.file);
  if (it != releases.end() && it->second.known()) return {util::leading_number(it->second.series), "release table"};
  return {-1, ""};
}

std::string package_or_file(const Library& lib) {
  return lib.package.empty() ? lib.soname : lib.package + " " + lib.version;
}
} // namespace

RuleOutcome same_major_rule(const AlignmentInputs& in, const std::map<std::string, ReleaseMatch>& releases,
                            const inventory::ConsumersMajor& consumers) {
  RuleOutcome out;
  out.rule = rule::same_major;
  struct Group {
    std::set<std::string> packages, sources;
    std::vector<const Library*> libs;
  };
  std::map<int, Group> groups; // -1: unknown
  for (const auto& lib : in.inventory->libraries) {
    if (!lib.toolkit) continue;
    auto [major, source] = major_of(lib, releases);
    Group& g = groups[major];
    g.packages.insert(package_or_file(lib));
    if (!source.empty()) g.sources.insert(source);
    g.libs.push_back(&lib);
  }
  int dominant = -1;
  std::size_t known = 0;
  for (const auto& [major, g] : groups) {
    if (major < 0) {
      out.evidence.push_back("CUDA major unknown: " + util::join({g.packages.begin(), g.packages.end()}, ", "));
      continue;
    }
    ++known;
    out.evidence.push_back("CUDA " + std::to_string(major) + ": " + util::join({g.packages.begin(), g.packages.end()}, ", ") +
                           " (from " + util::join({g.sources.begin(), g.sources.end()}, ", ") + ")");
    // The major most libraries agree on (ties: the newer) is the env's; the others are the misfits.
    if (dominant < 0 || g.libs.size() >= groups[dominant].libs.size()) dominant = major;
  }
  if (known == 0) {
    out.result = RuleResult::unknown;
    out.evidence.insert(out.evidence.begin(), "no toolkit library with a known CUDA major");
    return out;
  }
  std::string reason = "the env's other toolkit libraries are CUDA " + std::to_string(dominant);
  if (consumers.major > 0) {
    dominant = consumers.major; // torch built for CUDA 12 needs CUDA 12 libraries, however many 13s came along
    reason = "the env's consumers need CUDA " + std::to_string(dominant) + ": " + consumers.evidence;
    out.evidence.push_back(reason);
  }
  out.result = known == 1 && groups.count(dominant) ? RuleResult::pass : RuleResult::fail;
  if (known == 1 && !groups.count(dominant)) reason += "; the env has no CUDA " + std::to_string(dominant) + " toolkit library";
  // The env's copy of a component in its major: what stays when a stray goes.
  auto replacement = [&](const Library& stray) -> std::string {
    auto it = groups.find(dominant);
    if (it == groups.end()) return "";
    for (const Library* lib : it->second.libs)
      if (lib->component == stray.component) return package_or_file(*lib);
    return "";
  };
  for (const auto& [major, g] : groups) {
    if (major < 0 || major == dominant) continue;
    for (const Library* lib : g.libs) {
      RuleFailure f;
      f.provider = lib->file;
      f.provider_soname = lib->soname;
      f.provider_package = lib->package.empty() ? "" : lib->package + " " + lib->version;
      f.provider_component = lib->component;
      f.provider_manager = lib->manager;
      f.provider_major = major;
      f.needed_release = std::to_string(dominant);
      f.reason = reason;
      f.replacement = replacement(*lib);
      f.message = lib->soname + " (" + package_label(*lib) + ") is CUDA " + std::to_string(major) + "; " + reason;
      out.failures.push_back(std::move(f));
    }
  }
  return out;
}

namespace {
// One evidence line per component and package: "cusparse: pip nvidia-cusparse 12.6.3.3 -> 13.0 (13.0.2)".
void list_releases(const AlignmentInputs& in, const std::map<std::string, ReleaseMatch>& releases, RuleOutcome& out) {
  std::set<std::string> seen;
  for (const auto& lib : in.inventory->libraries) {
    if (!lib.toolkit) continue;
    std::string line = lib.component + ": " + package_label(lib) + " -> ";
    auto it = releases.find(lib.file);
    if (it != releases.end() && it->second.known())
      line += it->second.series + " (" + util::join(it->second.releases, ", ") + ")";
    else line += lib.version.empty() ? "unknown (no package version)" : "unknown (not in the release table)";
    if (seen.insert(line).second) out.evidence.push_back(line);
  }
}
} // namespace

RuleOutcome release_rule(const AlignmentInputs& in, const std::map<std::string, ReleaseMatch>& releases) {
  RuleOutcome out;
  out.rule = rule::releases;
  list_releases(in, releases, out);
  bool any_known = false, compared = false;
  for (const auto& [file, m] : releases) any_known = any_known || m.known();
  for (const auto& user : in.inventory->libraries) {
    for (const auto& jit : in.inventory->libraries) {
      if (jit.component != "nvjitlink" || &jit == &user) continue;
      if (std::find(user.needed.begin(), user.needed.end(), jit.soname) == user.needed.end()) continue;
      const ReleaseMatch& need = releases.count(user.file) ? releases.at(user.file) : ReleaseMatch{};
      const ReleaseMatch& have = releases.count(jit.file) ? releases.at(jit.file) : ReleaseMatch{};
      std::string pair = jit.soname + " (" + package_label(jit) + ") for " + user.soname + " (" + package_label(user) + ")";
      if (!need.known() || !have.known()) {
        out.evidence.push_back("cannot compare " + pair + ": release unknown");
        continue;
      }
      compared = true;
      if (util::compare_versions(have.series, need.series) >= 0) {
        out.evidence.push_back("nvJitLink " + have.series + " >= " + need.series + ": " + pair);
        continue;
      }
      RuleFailure f;
      f.consumer = user.file;
      f.consumer_soname = user.soname;
      f.provider = jit.file;
      f.provider_soname = jit.soname;
      f.provider_package = jit.package.empty() ? "" : jit.package + " " + jit.version;
      f.provider_component = jit.component;
      f.provider_manager = jit.manager;
      f.provider_major = jit.cuda_major;
      f.needed_release = need.series;
      f.message = "nvJitLink " + jit.version + " is from CUDA " + have.series + ", older than " + user.soname + " (" +
                  user.package + " " + user.version + ", CUDA " + need.series + ") that needs it";
      out.evidence.push_back("nvJitLink " + have.series + " < " + need.series + ": " + pair);
      out.failures.push_back(std::move(f));
    }
  }
  if (!out.failures.empty()) out.result = RuleResult::fail;
  else out.result = (compared || any_known) ? RuleResult::pass : RuleResult::unknown;
  return out;
}

RuleOutcome requirements_rule(const AlignmentInputs& in) {
  RuleOutcome out;
  out.rule = rule::requirements;
  out.result = RuleResult::pass;
  for (const auto& r : in.inventory->requirements) {
    const std::string asked = r.package + " " + r.version + " requires " + r.requirement.name +
                              (r.requirement.kind == inventory::Requirement::Kind::conda ? " " : "") + r.requirement.specifiers;
    const inventory::Library* met = nullptr;
    const inventory::Library* known = nullptr;
    bool unknown = false;
    for (const auto& lib : in.inventory->libraries) {
      if (lib.component != r.component) continue;
      auto ok = lib.version.empty() ? std::nullopt : inventory::satisfies(r.requirement, lib.version);
      if (ok == true) met = met ? met : &lib;
      else if (ok == false) known = known ? known : &lib;
      else unknown = true;
    }
    if (met) {
      out.evidence.push_back(asked + ": met by " + met->package + " " + met->version);
    } else if (known) {
      out.result = RuleResult::fail;
      out.evidence.push_back(asked + ": not met by " + known->package + " " + known->version);
      RuleFailure f;
      f.consumer_soname = r.package;
      f.provider = known->file;
      f.provider_soname = known->soname;
      f.provider_package = known->package + " " + known->version;
      f.provider_manager = known->manager;
      f.provider_component = r.component;
      f.needed_release = r.requirement.specifiers;
      f.message = out.evidence.back();
      f.reason = r.requirement.name + (r.requirement.kind == inventory::Requirement::Kind::conda ? " " : "") +
                 r.requirement.specifiers;
      out.failures.push_back(std::move(f));
    } else {
      if (out.result == RuleResult::pass) out.result = RuleResult::unknown;
      out.evidence.push_back(asked + (unknown ? ": the env's copy has no known version" : ": the env has no copy"));
    }
  }
  return out;
}

RuleOutcome driver_rule(const AlignmentInputs& in, const std::string& series) {
  RuleOutcome out;
  out.rule = rule::driver;
  out.result = RuleResult::skipped;
  if (!in.driver) {
    out.evidence.push_back("no NVIDIA driver visible");
    return out;
  }
  int major = util::leading_number(series);
  if (major <= 0) {
    out.evidence.push_back("driver " + in.driver->version + " seen, but the env's CUDA major is unknown");
    return out;
  }
  auto minimum = in.table->min_driver_branch(major);
  if (!minimum) {
    out.result = RuleResult::unknown;
    out.evidence.push_back("the release table has no minimum driver for CUDA " + std::to_string(major) + ".x");
    return out;
  }
  const std::string seen = "driver " + in.driver->version + " (branch " + std::to_string(in.driver->branch) + ", from " +
                           in.driver->source + ")";
  const std::string needed = std::to_string(*minimum) + ", the minimum for CUDA " + std::to_string(major) + ".x";
  if (in.driver->branch >= *minimum) {
    out.result = RuleResult::pass;
    out.evidence.push_back(seen + " >= " + needed);
  } else {
    out.result = RuleResult::fail;
    out.evidence.push_back(seen + " < " + needed);
    RuleFailure f;
    f.provider_component = "driver";
    f.provider_package = in.driver->version;
    f.provider_major = major;
    f.needed_release = std::to_string(*minimum);
    f.message = "NVIDIA driver " + in.driver->version + " is older than CUDA " + std::to_string(major) +
                ".x needs (branch >= " + std::to_string(*minimum) + ")";
    out.failures.push_back(std::move(f));
  }
  if (const ReleaseRow* row = in.table->installer_row(series))
    out.evidence.push_back("the CUDA " + row->release + " installer bundles driver " + row->installer_driver);
  return out;
}

Alignment evaluate_alignment(const AlignmentInputs& in) {
  Alignment a;
  for (const auto& lib : in.inventory->libraries)
    if (lib.toolkit) a.releases.emplace(lib.file, in.table->match(lib.component, lib.version));
  // The series is the consumers' major's when they say (a CUDA 12 torch env with a
  // stray CUDA 13 wheel is a 12.x env), else the newest of all.
  const inventory::ConsumersMajor consumers = inventory::consumers_major(*in.inventory);
  std::string series;
  int major = -1;
  for (const auto& lib : in.inventory->libraries) {
    if (!lib.toolkit) continue;
    const int lib_major = major_of(lib, a.releases).first;
    if (consumers.major > 0 && lib_major != consumers.major) continue;
    if (const ReleaseMatch& m = a.releases.at(lib.file); m.known()) series = newest(series, m.series);
    major = std::max(major, lib_major);
  }
  // Without a table match, the major alone (inventory's evidence) still names the series.
  if (series.empty() && major > 0) series = std::to_string(major);
  if (series.empty() && consumers.major > 0) series = std::to_string(consumers.major);
  a.series = series.empty() ? "unknown" : series;
  a.rules.push_back(symbol_rule(in));
  a.rules.push_back(same_major_rule(in, a.releases, consumers));
  a.rules.push_back(release_rule(in, a.releases));
  a.rules.push_back(driver_rule(in, a.series));
  if (!in.inventory->requirements.empty()) a.rules.push_back(requirements_rule(in));
  for (const auto& r : a.rules) a.aligned = a.aligned && r.result != RuleResult::fail;
  return a;
}

} // namespace condacuda::lock
