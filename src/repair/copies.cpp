#include "repair/copies.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "inventory/consumers_major.hpp"
#include "loader/path_list.hpp"
#include "loader/versions.hpp"
#include "repair/plan_simulation.hpp"

namespace condacuda::repair {

namespace {
namespace fs = std::filesystem;

// Whether the env's `lib` defines every versioned symbol `requester`
// (absolute) references from `soname`.
bool satisfies(loader::FileSystemView& files, const std::string& prefix, const std::string& requester,
               const inventory::Library& lib, const std::string& soname) {
  const auto& from = files.open_verify(requester);
  const auto& to = files.open_verify(prefix + "/" + lib.file);
  return from.elf && to.elf && loader::satisfies_versioned_references(*from.elf, *to.elf, soname);
}

// The env's copy of `soname` for `requester` (absolute): with several copies
// (conda's lib/, targets/*/lib, wheel folders), the first, in inventory
// order, that defines every versioned symbol the requester needs from it;
// the first copy when none does (verification then says why).
const inventory::Library* provider_for(const inventory::Inventory& inv, const std::string& soname,
                                       const std::string& requester, loader::FileSystemView& files,
                                       const std::string& prefix) {
  auto copies = copies_of(inv, soname);
  for (const auto* lib : copies)
    if (satisfies(files, prefix, requester, *lib, soname)) return lib;
  return copies.empty() ? nullptr : copies.front();
}

// The env library a loaded object is, by identity (a link reaching it counts as it).
class EnvLibraries {
public:
  EnvLibraries(const inventory::Inventory& inv, loader::FileSystemView& files, const std::string& prefix) : files_(files) {
    for (const auto& l : inv.libraries) {
      const auto& f = files.open_verify(prefix + "/" + l.file);
      if (f.opened()) by_identity_.emplace(std::make_pair(f.dev, f.ino), &l);
    }
  }
  const inventory::Library* at(const std::string& path) const {
    const auto& f = files_.open_verify(path);
    auto it = by_identity_.find({f.dev, f.ino});
    return f.opened() && it != by_identity_.end() ? it->second : nullptr;
  }

private:
  loader::FileSystemView& files_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, const inventory::Library*> by_identity_;
};

// The toolkit libraries of another CUDA major than the one the env's
// consumers need (a CUDA 13 wheel in a CUDA 12 torch env): the env's hook
// never puts their folders first for their own sake; doctor names them.
std::set<std::string> stray_major_files(const inventory::Inventory& inv) {
  std::set<std::string> out;
  const int major = inventory::consumers_major(inv).major;
  if (major <= 0) return out;
  for (const auto& lib : inv.libraries)
    if (lib.toolkit && lib.cuda_major > 0 && lib.cuda_major != major) out.insert(lib.file);
  return out;
}

// The requester's own folder, when its RUNPATH (or RPATH) searches it
// ($ORIGIN): a link placed there is found without LD_LIBRARY_PATH.
std::optional<std::string> origin_folder(loader::FileSystemView& files, const std::string& requester) {
  const auto& opened = files.open_verify(requester);
  if (!opened.elf) return std::nullopt;
  const auto& dyn = opened.elf->dynamic();
  auto value = dyn.runpath ? dyn.runpath : dyn.rpath;
  if (!value) return std::nullopt;
  std::string dir = fs::path(requester).parent_path().string();
  loader::DstValues v;
  v.origin = dir;
  v.lib = "lib";
  v.platform = "x86_64";
  for (const auto& d : loader::decompose_path_list(*value, loader::PathListKind::runpath, v))
    if (normal(d.dir) == normal(dir + "/")) return dir;
  return std::nullopt;
}
} // namespace

// The env's copies of `soname`: by DT_SONAME, then by file name, each in
// inventory order.
std::vector<const inventory::Library*> copies_of(const inventory::Inventory& inv, const std::string& soname) {
  std::vector<const inventory::Library*> copies;
  for (const auto& lib : inv.libraries)
    if (lib.soname == soname) copies.push_back(&lib);
  for (const auto& lib : inv.libraries)
    if (lib.soname != soname && fs::path(lib.file).filename() == soname) copies.push_back(&lib);
  return copies;
}

// The env's first copy of `soname`, if it has one.
const inventory::Library* provider_by_soname(const inventory::Inventory& inv, const std::string& soname) {
  auto copies = copies_of(inv, soname);
  return copies.empty() ? nullptr : copies.front();
}

Needs needs_of(const doctor::DoctorReport& report, loader::FileSystemView& files) {
  Needs out;
  std::string prefix = prefix_of(report.inputs);
  const std::set<std::string> strays = stray_major_files(report.inputs.inventory);
  EnvLibraries env(report.inputs.inventory, files, prefix);
  for (const auto& root : report.roots) {
    if (strays.count(root.file)) continue;
    const auto& objs = root.report.objects;
    for (const auto& edge : root.report.edges) {
      if (edge.needed.find('/') != std::string::npos || edge.from < 0) continue;
      Need n{normal(objs[static_cast<std::size_t>(edge.from)].name), "", edge.via};
      if (edge.to >= 0)
        if (const auto* lib = env.at(normal(objs[static_cast<std::size_t>(edge.to)].name))) n.found = lib->file;
      out[edge.needed].push_back(std::move(n));
    }
  }
  return out;
}

// One copy per soname for the whole env (issue 17: a process keeps one copy
// of a soname, so every import order works only when every consumer can bind
// to the same one): among the copies that define every versioned symbol each
// requester needs, the one most requesters' own search already finds, else
// the first in inventory order. A soname no copy serves alone is absent.
std::map<std::string, const inventory::Library*> one_copy_per_soname(const Needs& needs, const inventory::Inventory& inv,
                                                                      loader::FileSystemView& files, const std::string& prefix) {
  std::map<std::string, const inventory::Library*> out;
  for (const auto& [soname, list] : needs) {
    const inventory::Library* best = nullptr;
    long best_found = -1;
    for (const auto* copy : copies_of(inv, soname)) {
      bool serves_all = std::all_of(list.begin(), list.end(), [&](const Need& n) {
        return satisfies(files, prefix, n.requester, *copy, soname);
      });
      if (!serves_all) continue;
      long found = std::count_if(list.begin(), list.end(), [&](const Need& n) { return n.found == copy->file; });
      if (found > best_found) best = copy, best_found = found;
    }
    if (best) out.emplace(soname, best);
  }
  return out;
}

// Links that make a not-found dependency findable through $ORIGIN.
std::vector<PlannedLink> links_for(const doctor::DoctorReport& report, loader::FileSystemView& files,
                                   const std::set<std::string>& planned) {
  std::vector<PlannedLink> out;
  std::string prefix = prefix_of(report.inputs);
  std::set<std::string> seen = planned;
  const auto one_copy = one_copy_per_soname(needs_of(report, files), report.inputs.inventory, files, prefix);
  for (const auto& root : report.roots) {
    for (const auto& e : root.report.errors) {
      if (e.kind != loader::ErrorKind::not_found || e.objname.find('/') != std::string::npos) continue;
      if (e.object < 0 || e.object >= static_cast<int>(root.report.objects.size())) continue;
      std::string requester = normal(root.report.objects[static_cast<std::size_t>(e.object)].name);
      if (requester.rfind(prefix + "/", 0) != 0) continue;
      auto chosen = one_copy.find(e.objname);
      const auto* lib = chosen != one_copy.end() ? chosen->second
                                                 : provider_for(report.inputs.inventory, e.objname, requester, files, prefix);
      if (!lib) continue;
      auto dir = origin_folder(files, requester);
      if (!dir) continue;
      std::string link = *dir + "/" + e.objname;
      if (seen.count(link) || files.open_verify(link).opened()) continue;
      seen.insert(link);
      std::string target = fs::path(prefix + "/" + lib->file).lexically_relative(*dir).string();
      out.push_back({link.substr(prefix.size() + 1), target, e.objname, requester.substr(prefix.size() + 1)});
    }
  }
  return out;
}

void add_links(OverlayFileView& overlay, const std::string& prefix, const std::vector<PlannedLink>& links) {
  for (const auto& l : links) {
    std::string abs = prefix + "/" + l.path;
    overlay.add_symlink(abs, normal(fs::path(abs).parent_path().string() + "/" + l.target));
  }
}

// Folders that provide what the roots need, ordered so that a folder whose
// copy of a soname is the chosen one comes before any other folder holding
// that soname; ties in path order (deterministic).
std::vector<PlannedFolder> order_folders(const std::map<std::string, std::set<std::string>>& chosen,
                                         const inventory::Inventory& inv) {
  std::map<std::string, std::set<std::string>> after; // folder -> folders that must come after it
  std::map<std::string, int> blockers;
  for (const auto& [folder, sonames] : chosen) blockers[folder];
  for (const auto& [folder, sonames] : chosen)
    for (const auto& soname : sonames)
      for (const auto& lib : inv.libraries)
        if (lib.soname == soname && lib.folder != folder && chosen.count(lib.folder) && after[folder].insert(lib.folder).second)
          ++blockers[lib.folder];
  std::vector<PlannedFolder> out;
  std::set<std::string> ready;
  for (const auto& [f, n] : blockers)
    if (n == 0) ready.insert(f);
  while (!ready.empty()) {
    std::string f = *ready.begin();
    ready.erase(ready.begin());
    out.push_back({f, {chosen.at(f).begin(), chosen.at(f).end()}});
    for (const auto& g : after[f])
      if (--blockers[g] == 0) ready.insert(g);
  }
  // A cycle (each folder shadows the other for some soname): keep path order.
  for (const auto& [f, n] : blockers)
    if (n > 0) out.push_back({f, {chosen.at(f).begin(), chosen.at(f).end()}});
  return out;
}

// For every DT_NEEDED by soname of the roots (but the stray-major libraries),
// the env folder whose copy should answer: the env's one copy of it when one
// serves every requester; else, per requester, the copy its own search found
// (a planned link counts as its target) when it has what the requester
// needs, else a copy that has.
std::map<std::string, std::set<std::string>> needed_folders(const Needs& needs,
                                                            const std::map<std::string, const inventory::Library*>& one_copy,
                                                            const doctor::DoctorInputs& in, loader::FileSystemView& files) {
  std::map<std::string, std::set<std::string>> chosen; // folder -> sonames it provides
  std::string prefix = prefix_of(in);
  for (const auto& [soname, list] : needs) {
    if (auto it = one_copy.find(soname); it != one_copy.end()) {
      chosen[it->second->folder].insert(soname);
      continue;
    }
    for (const auto& n : list) {
      const inventory::Library* lib = nullptr;
      for (const auto& l : in.inventory.libraries)
        if (!n.found.empty() && l.file == n.found) lib = &l;
      if (lib && !satisfies(files, prefix, n.requester, *lib, soname)) lib = nullptr;
      if (!lib) lib = provider_for(in.inventory, soname, n.requester, files, prefix);
      if (lib) chosen[lib->folder].insert(soname);
    }
  }
  return chosen;
}

} // namespace condacuda::repair
