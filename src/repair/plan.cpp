#include "repair/plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "loader/path_list.hpp"
#include "repair/activation.hpp"
#include "repair/overlay_view.hpp"
#include "util/strings.hpp"

namespace condacuda::repair {

namespace {
namespace fs = std::filesystem;

std::string normal(const std::string& p) { return fs::path(p).lexically_normal().string(); }

std::string prefix_of(const doctor::DoctorInputs& in) {
  std::string p = normal(in.env.prefix);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// The inputs of a simulation of the bare env: no LD_LIBRARY_PATH, no hook.
doctor::DoctorInputs bare(const doctor::DoctorInputs& in) {
  doctor::DoctorInputs b = in;
  b.config.ld_library_path.reset();
  b.base_ld_library_path.reset();
  b.hook_folders.clear();
  b.hook_present = false;
  b.active_hook_entries.reset();
  b.foreign_hooks.clear();
  return b;
}

const inventory::Library* provider_by_soname(const inventory::Inventory& inv, const std::string& soname) {
  if (const auto* lib = inv.find_by_soname(soname)) return lib;
  for (const auto& lib : inv.libraries)
    if (fs::path(lib.file).filename() == soname) return &lib;
  return nullptr;
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

// Links that make a not-found dependency findable through $ORIGIN.
std::vector<PlannedLink> links_for(const doctor::DoctorReport& report, loader::FileSystemView& files,
                                   const std::set<std::string>& planned) {
  std::vector<PlannedLink> out;
  std::string prefix = prefix_of(report.inputs);
  std::set<std::string> seen = planned;
  for (const auto& root : report.roots) {
    for (const auto& e : root.report.errors) {
      if (e.kind != loader::ErrorKind::not_found || e.objname.find('/') != std::string::npos) continue;
      if (e.object < 0 || e.object >= static_cast<int>(root.report.objects.size())) continue;
      const auto* lib = provider_by_soname(report.inputs.inventory, e.objname);
      std::string requester = normal(root.report.objects[static_cast<std::size_t>(e.object)].name);
      if (!lib || requester.rfind(prefix + "/", 0) != 0) continue;
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

std::map<std::string, std::set<std::string>> needed_folders(const doctor::DoctorReport& report) {
  std::map<std::string, std::set<std::string>> chosen; // folder -> sonames it provides
  std::string prefix = prefix_of(report.inputs);
  const auto& inv = report.inputs.inventory;
  for (const auto& root : report.roots) {
    const auto& objs = root.report.objects;
    for (const auto& edge : root.report.edges) {
      if (edge.needed.find('/') != std::string::npos || edge.from < 0) continue;
      const inventory::Library* lib = nullptr;
      if (edge.to >= 0) {
        std::string target = normal(objs[static_cast<std::size_t>(edge.to)].name);
        for (const auto& l : inv.libraries)
          if (normal(prefix + "/" + l.file) == target) lib = &l;
      }
      if (!lib) lib = provider_by_soname(inv, edge.needed);
      if (lib) chosen[lib->folder].insert(lib->soname);
    }
  }
  return chosen;
}
} // namespace

std::vector<std::string> RepairPlan::folder_paths() const {
  std::vector<std::string> out;
  for (const auto& f : folders) out.push_back(f.path);
  return out;
}

RepairPlan plan_repair(const doctor::DoctorInputs& inputs, loader::FileSystemView& files,
                       const std::vector<std::string>& own_links) {
  RepairPlan plan;
  doctor::DoctorInputs b = bare(inputs);
  std::string prefix = prefix_of(inputs);
  OverlayFileView overlay(files);
  for (const auto& l : own_links) overlay.hide(l);
  std::set<std::string> planned;
  // A new link can make further dependencies reachable (and missing): repeat
  // until nothing more can be linked.
  for (int round = 0; round < 8; ++round) {
    auto report = doctor::run_doctor(b, overlay);
    auto more = links_for(report, overlay, planned);
    if (more.empty()) break;
    for (const auto& l : more) planned.insert(prefix + "/" + l.path);
    add_links(overlay, prefix, more);
    plan.links.insert(plan.links.end(), more.begin(), more.end());
  }
  auto final_report = doctor::run_doctor(b, overlay);
  plan.folders = order_folders(needed_folders(final_report), inputs.inventory);
  return plan;
}

Verification verify_plan(const RepairPlan& plan, const doctor::DoctorInputs& inputs,
                         const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files) {
  Verification v;
  std::string prefix = prefix_of(inputs);
  OverlayFileView overlay(files);
  add_links(overlay, prefix, plan.links);
  std::vector<std::string> abs;
  for (const auto& f : plan.folders) abs.push_back(prefix + "/" + f.path);
  auto scenario = [&](std::string name, std::string description, std::optional<std::string> base, bool activated,
                      std::optional<std::string> active_entries, bool required) {
    doctor::DoctorInputs in = bare(inputs);
    in.base_ld_library_path = base;
    in.hook_present = activated;
    if (activated) {
      in.hook_folders = abs;
      in.config.ld_library_path = activate_ld_library_path(base, abs, active_entries);
    } else {
      in.config.ld_library_path = base;
    }
    Scenario s{std::move(name), std::move(description), required, doctor::run_doctor(std::move(in), overlay)};
    if (required && !s.report.healthy()) v.ok = false;
    v.scenarios.push_back(std::move(s));
  };
  auto shown = [](const std::optional<std::string>& value) { return value ? "'" + *value + "'" : std::string("(unset)"); };
  scenario("this shell", "this shell's LD_LIBRARY_PATH " + shown(inputs.base_ld_library_path) + ", env activated",
           inputs.base_ld_library_path, true, inputs.active_hook_entries, true);
  if (!system_cuda_dirs.empty()) {
    std::string hostile = util::join(system_cuda_dirs, ":");
    scenario("system CUDA first", "the system CUDA folders on LD_LIBRARY_PATH ('" + hostile + "'), env activated",
             hostile, true, std::nullopt, true);
  }
  scenario("not activated", "LD_LIBRARY_PATH unset, env not activated (symlinks and RUNPATH only)", std::nullopt,
           false, std::nullopt, false);
  return v;
}

} // namespace condacuda::repair
