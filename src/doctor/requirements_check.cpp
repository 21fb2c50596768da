#include "doctor/requirements_check.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "doctor/wording.hpp"
#include "inventory/components.hpp"
#include "inventory/records.hpp"
#include "inventory/version_evidence.hpp"
#include "util/strings.hpp"

namespace condacuda::doctor {

namespace {
namespace fs = std::filesystem;

std::string normal(const std::string& p) { return fs::path(p).lexically_normal().string(); }

// The package that owns a root, as its record names it; "" when none.
std::string package_of(const RootResult& root, const inventory::Inventory& inv) {
  for (const auto& c : inv.consumers)
    if (c.file == root.file) return c.package;
  for (const auto& l : inv.libraries)
    if (l.file == root.file) return l.package;
  return "";
}

// The component a loaded object belongs to, from its soname or file name.
std::string component_of(const loader::ObjectSummary& o) {
  auto kind = o.soname ? inventory::classify_library(*o.soname) : std::nullopt;
  if (!kind) kind = inventory::classify_library(fs::path(o.name).filename().string());
  return kind ? std::string(kind->id) : std::string();
}

// The requirement as people write it, without its marker:
// "nvidia-cudnn-cu12==9.10.2.21", "cudnn >=9.1,<10.0a0".
std::string shown(const inventory::Requirement& r) {
  return r.name + (r.kind == inventory::Requirement::Kind::conda ? " " : "") + r.specifiers;
}

// An env library by its path, or a name of it.
const inventory::Library* env_library(const std::string& path, const DoctorInputs& in) {
  const std::string prefix = normal(in.env.prefix) + "/";
  if (path.rfind(prefix, 0) != 0) return nullptr;
  const std::string rel = path.substr(prefix.size());
  for (const auto& l : in.inventory.libraries)
    if (l.file == rel || std::find(l.names.begin(), l.names.end(), rel) != l.names.end()) return &l;
  return nullptr;
}

// The version of the copy at `path` with its evidence: the package that owns
// it, else what the file says (inventory/version_evidence.hpp); the
// soname's major alone is no evidence a requirement could be judged by.
std::optional<inventory::VersionEvidence> version_of(const std::string& path, const loader::ObjectSummary& o,
                                                     const std::string& component, const DoctorInputs& in,
                                                     loader::FileSystemView& files) {
  if (const auto* lib = env_library(path, in); lib && !lib->manager.empty() && !lib->version.empty())
    return inventory::package_version(lib->package, lib->version,
                                      lib->manager == "pip" ? "dist-info RECORD" : "conda-meta record");
  const auto& opened = files.open_verify(path);
  if (!opened.elf) return std::nullopt;
  const std::string real = fs::path(files.real_path(path)).filename().string();
  auto found = inventory::file_version(component, o.soname.value_or(""), real, *opened.elf);
  if (!found || found->is_major_only()) return std::nullopt;
  return found;
}

// Whether the copy is known not to satisfy `r`: its version fails the
// specifiers, and no exact version the requirement names agrees with the
// evidence at its precision (a file name libcudnn.so.9.1.0 may be
// 9.1.0.70, which ==9.1.0.70 asks for).
bool known_mismatch(const inventory::Requirement& r, const inventory::VersionEvidence& v) {
  if (inventory::satisfies(r, v.version) != false) return false;
  if (v.kind == inventory::VersionEvidence::Kind::package) return true;
  for (const auto& clause : util::split(r.specifiers, ",|")) {
    std::string_view c = util::trim(clause);
    const bool exact = c.starts_with("==") || (!c.empty() && std::isdigit(static_cast<unsigned char>(c.front())));
    while (!c.empty() && (c.front() == '=' || c.front() == ' ')) c.remove_prefix(1);
    if (exact && inventory::version_agrees(v, c)) return false;
  }
  return true;
}

// The env's copies of `component` that satisfy `r`, prefix-relative.
std::vector<std::string> satisfying_copies(const inventory::ComponentRequirement& r, const inventory::Inventory& inv) {
  std::vector<std::string> out;
  for (const auto& l : inv.libraries)
    if (l.component == r.component && !l.version.empty() && inventory::satisfies(r.requirement, l.version) == true)
      out.push_back(l.file);
  return out;
}

Finding mismatch_finding(const inventory::ComponentRequirement& r, const std::string& path,
                         const inventory::VersionEvidence& v, const loader::ObjectSummary& o, const DoctorInputs& in) {
  Finding f;
  f.code = code::requirement_mismatch;
  f.severity = Severity::error;
  f.resolved = path;
  f.library = fs::path(path).filename().string();
  f.title = r.package + " requires " + shown(r.requirement) + ", but the " + r.component + " that loads is " + v.version;
  f.evidence = {path + " is " + r.component + " " + v.version + " (" + v.source + ")",
                r.package + " " + r.version + " requires " + shown(r.requirement) + " (" +
                    (r.manager == "pip" ? "Requires-Dist in its METADATA" : "depends in its conda-meta record") + ")"};
  if (o.via != loader::FoundVia::not_found) {
    f.via = loader::to_string(o.via);
    f.via_entry = o.via_element;
    f.evidence.push_back(found_through(o.via, o.via_element));
  }
  const auto good = satisfying_copies(r, in.inventory);
  if (!good.empty()) {
    f.expected = good.front();
    for (const auto& l : in.inventory.libraries)
      if (l.file == good.front()) f.expected_package = l.package + " " + l.version;
    f.expected_satisfies = true;
    f.evidence.push_back("the env's " + good.front() + " (" + f.expected_package + ") satisfies it");
  }
  const std::string prefix = normal(in.env.prefix);
  if (o.via == loader::FoundVia::ld_library_path && !good.empty())
    f.fix = "take '" + o.via_element + "' off LD_LIBRARY_PATH, or run `condacuda repair -p '" + prefix +
            "'` (activated, the env's copy goes first; `--pin` for launches without activation)";
  else if (!good.empty())
    f.fix = "run `condacuda repair -p '" + prefix + "'` so that the env's copy loads";
  else
    f.fix = r.manager == "pip" ? "install what " + r.package + " requires: pip install '" + shown(r.requirement) + "'"
                               : "install what " + r.package + " requires: conda install '" + shown(r.requirement) + "'";
  return f;
}
} // namespace

std::vector<Finding> check_requirements(DoctorReport& report, loader::FileSystemView& files) {
  const DoctorInputs& in = report.inputs;
  std::vector<Finding> findings;
  if (in.inventory.requirements.empty()) return findings;
  std::map<std::string, std::size_t> by_cause; // requirement text + path -> finding
  for (auto& root : report.roots) {
    if (!root.loads) continue;
    const std::string package = inventory::normalize_package_name(package_of(root, in.inventory));
    if (package.empty()) continue;
    const auto& objects = root.report.objects;
    for (const auto& r : in.inventory.requirements) {
      if (inventory::normalize_package_name(r.package) != package) continue;
      for (const auto& o : objects) {
        if (o.name.empty() || o.faked || component_of(o) != r.component) continue;
        const std::string path = normal(o.name);
        const auto v = version_of(path, o, r.component, in, files);
        if (!v || !known_mismatch(r.requirement, *v)) continue;
        const std::string error = package_of(root, in.inventory) + " requires " + shown(r.requirement) + ", but the " +
                                  r.component + " that loads is " + path + " (" + v->version + ", " + v->source + ")";
        if (root.loads) {
          root.loads = false;
          root.first_error = error;
          root.requirement = shown(r.requirement);
        }
        auto [it, added] = by_cause.emplace(shown(r.requirement) + "\n" + path, findings.size());
        if (added) {
          findings.push_back(mismatch_finding(r, path, *v, o, in));
          findings.back().first_error = error;
        }
        auto& affects = findings[it->second].affects;
        if (std::find(affects.begin(), affects.end(), root.file) == affects.end()) affects.push_back(root.file);
      }
    }
  }
  return findings;
}

} // namespace condacuda::doctor
