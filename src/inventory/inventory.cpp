#include "inventory/inventory.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "inventory/components.hpp"
#include "util/strings.hpp"
#include "util/path.hpp"

namespace condacuda::inventory {

namespace {
struct Owner {
  std::string manager, package, version, build;
  std::optional<int> wheel_major; // pip: from the "-cuNN" name suffix
  std::optional<int> pinned_major; // conda: from a cuda-version dependency
};

// Which package owns each file: pip RECORDs (relative to site-packages) and
// conda-meta `files` (relative to the prefix), keyed by prefix-relative path.
std::map<std::string, Owner> ownership(const EnvSnapshot& s) {
  std::map<std::string, Owner> owners;
  for (const auto& pkg : s.conda_packages) {
    Owner o{"conda", pkg.name, pkg.version, pkg.build, std::nullopt, conda_cuda_version_pin(pkg.depends)};
    for (const auto& f : pkg.files) {
      if (looks_like_shared_library(util::base_name(f))) owners.emplace(f, o);
    }
  }
  for (const auto& dist : s.distributions) {
    std::string normalized = normalize_package_name(dist.name);
    Owner o{"pip", normalized, dist.version, "", wheel_cuda_suffix(normalized), std::nullopt};
    for (const auto& f : dist.files) {
      // Only shared objects are looked up; skip headers and Python files early.
      if (!looks_like_shared_library(util::base_name(f.path))) continue;
      auto rel = std::filesystem::path(dist.site_packages + "/" + f.path).lexically_normal().generic_string();
      owners[rel] = o; // pip's record wins over a conda record for the same path
    }
  }
  return owners;
}

// 13 for ".../nvidia/cu13/...": the shared folder of CUDA 13 wheels; -1 otherwise.
int cu_folder_major(const std::string& path) {
  for (auto pos = path.find("/nvidia/cu"); pos != std::string::npos; pos = path.find("/nvidia/cu", pos + 1)) {
    std::size_t i = pos + 10, digits = 0;
    while (i + digits < path.size() && path[i + digits] >= '0' && path[i + digits] <= '9') ++digits;
    if (digits > 0 && i + digits < path.size() && path[i + digits] == '/') return util::leading_number(path.substr(i));
  }
  return -1;
}

int major_from_needs(const std::vector<std::string>& needed) {
  for (const auto& n : needed) {
    auto kind = classify_library(n);
    if (kind && kind->soname_is_cuda_major && soname_major(n) > 0) return soname_major(n);
  }
  return -1;
}

// The CUDA major of one library, from the most direct evidence available.
void decide_major(Library& lib, const ComponentKind& kind, const Owner* owner) {
  auto set = [&](int major, const char* source) {
    if (lib.cuda_major < 0 && major > 0) {
      lib.cuda_major = major;
      lib.cuda_major_source = source;
    }
  };
  if (owner && owner->wheel_major) set(*owner->wheel_major, "wheel name");
  set(cu_folder_major("/" + lib.file), "cuNN folder");
  if (owner && kind.version_is_cuda_major) set(util::leading_number(owner->version), "package version");
  if (owner && owner->pinned_major) set(*owner->pinned_major, "cuda-version pin");
  if (kind.soname_is_cuda_major) set(soname_major(lib.soname), "soname");
  set(major_from_needs(lib.needed), "needed libraries");
}

std::string folder_layout(const std::string& folder) {
  if (int major = cu_folder_major("/" + folder + "/"); major > 0) return "wheel-cu" + std::to_string(major);
  if (folder.find("/nvidia/") != std::string::npos) return "wheel";
  if (folder == "lib") return "conda-lib";
  if (folder.rfind("targets/", 0) == 0) return "conda-targets";
  return "other";
}
} // namespace

std::string Inventory::cuda_summary() const {
  if (cuda_majors.empty()) return "none";
  if (cuda_majors.size() > 1) return "mixed";
  return std::to_string(cuda_majors.front());
}

const Library* Inventory::find_by_soname(const std::string& soname) const {
  for (const auto& lib : libraries)
    if (lib.soname == soname) return &lib;
  return nullptr;
}

namespace {
// What build_inventory makes of a file with a dynamic section: the
// component its soname (else its name) says, and the CUDA and driver
// libraries it needs.
std::string soname_of(const ScannedFile& f) {
  return f.elf->dynamic().soname ? std::string(*f.elf->dynamic().soname) : util::base_name(f.path);
}
std::optional<ComponentKind> component_of(const ScannedFile& f, const std::string& soname) {
  auto kind = classify_library(soname);
  return kind ? kind : classify_library(util::base_name(f.path));
}
bool needs_cuda_or_driver(std::string_view needed) { return classify_library(needed) || is_driver_library(needed); }
} // namespace

bool lists_as_library_or_consumer(const ScannedFile& f) {
  if ((f.symlink && !f.resolved.empty()) || !f.elf || !f.elf->has_dynamic()) return false;
  if (component_of(f, soname_of(f))) return true;
  const auto& needed = f.elf->dynamic().needed;
  return std::any_of(needed.begin(), needed.end(), [](auto n) { return needs_cuda_or_driver(n); });
}

Inventory build_inventory(const EnvSnapshot& s) {
  Inventory inv;
  inv.prefix = s.prefix;
  inv.site_packages = s.site_packages;
  inv.warnings = s.warnings;
  auto owners = ownership(s);
  std::map<std::string, std::vector<std::string>> aliases; // real file -> symlinks
  for (const auto& f : s.shared_objects)
    if (f.symlink && !f.resolved.empty()) aliases[f.resolved].push_back(f.path);
  std::set<int> majors;
  std::map<std::string, std::set<std::string>> folder_packages;
  for (const auto& f : s.shared_objects) {
    // A symlink inside the env is a name of its target; one that leads out of
    // the env stands for a library of its own.
    if (f.symlink && !f.resolved.empty()) continue;
    if (!f.elf || !f.elf->has_dynamic()) {
      if (auto kind = classify_library(util::base_name(f.path)); kind && !f.symlink)
        inv.unusable.push_back({f.path, std::string(kind->id)});
      continue;
    }
    std::vector<std::string> needed;
    for (auto n : f.elf->dynamic().needed) needed.emplace_back(n);
    std::string soname = soname_of(f);
    auto it = owners.find(f.path);
    const Owner* owner = it == owners.end() ? nullptr : &it->second;
    if (auto kind = component_of(f, soname)) {
      Library lib;
      lib.file = f.path;
      lib.links_out = f.symlink;
      lib.names = aliases[f.path];
      lib.component = std::string(kind->id);
      lib.toolkit = kind->toolkit;
      lib.soname = soname;
      lib.folder = util::dir_name(f.path);
      lib.needed = needed;
      if (owner) {
        lib.manager = owner->manager;
        lib.package = owner->package;
        lib.version = owner->version;
        lib.build = owner->build;
        folder_packages[lib.folder].insert(owner->package + " " + owner->version);
      } else {
        folder_packages[lib.folder];
      }
      decide_major(lib, *kind, owner);
      if (lib.toolkit && lib.cuda_major > 0) majors.insert(lib.cuda_major);
      inv.libraries.push_back(std::move(lib));
      continue;
    }
    Consumer c;
    for (const auto& n : needed)
      if (needs_cuda_or_driver(n)) c.needs.push_back(n);
    if (c.needs.empty()) continue;
    c.file = f.path;
    if (owner) {
      c.manager = owner->manager;
      c.package = owner->package;
      c.version = owner->version;
      c.build = owner->build;
    }
    inv.consumers.push_back(std::move(c));
  }
  std::sort(inv.libraries.begin(), inv.libraries.end(),
            [](const Library& a, const Library& b) { return std::tie(a.component, a.file) < std::tie(b.component, b.file); });
  std::sort(inv.consumers.begin(), inv.consumers.end(), [](const Consumer& a, const Consumer& b) { return a.file < b.file; });
  for (const auto& [folder, packages] : folder_packages)
    inv.folders.push_back(LibraryFolder{folder, folder_layout(folder), {packages.begin(), packages.end()}});
  inv.cuda_majors.assign(majors.begin(), majors.end());
  inv.requirements = component_requirements(s, inv.libraries, inv.warnings);
  return inv;
}

} // namespace condacuda::inventory
