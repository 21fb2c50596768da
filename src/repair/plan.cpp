#include "repair/plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "elf/pin.hpp"
#include "loader/path_list.hpp"
#include "loader/versions.hpp"
#include "inventory/consumers_major.hpp"
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
  std::vector<const inventory::Library*> copies;
  for (const auto& lib : inv.libraries)
    if (lib.soname == soname) copies.push_back(&lib);
  for (const auto& lib : inv.libraries)
    if (lib.soname != soname && fs::path(lib.file).filename() == soname) copies.push_back(&lib);
  for (const auto* lib : copies)
    if (satisfies(files, prefix, requester, *lib, soname)) return lib;
  return copies.empty() ? nullptr : copies.front();
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
      std::string requester = normal(root.report.objects[static_cast<std::size_t>(e.object)].name);
      if (requester.rfind(prefix + "/", 0) != 0) continue;
      const auto* lib = provider_for(report.inputs.inventory, e.objname, requester, files, prefix);
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

// The file at `path` (prefix-relative) as the overlay shows it with the
// d_tags at `offsets` changed from `from` to `to`; unchanged when they are not `from`.
void show_retagged(OverlayFileView& overlay, const std::string& prefix, const std::string& path,
                   const std::vector<std::uint64_t>& offsets, std::int64_t from, std::int64_t to) {
  const auto& opened = overlay.open_verify(prefix + "/" + path);
  if (!opened.elf) return;
  const auto& data = opened.elf->bytes().data;
  auto retagged = elf::retag(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), offsets, from, to);
  if (retagged) overlay.replace_content(prefix + "/" + path, elf::bytes_from_string(*retagged));
}

// Each previous pin seen as the original file (its RPATH tags back to RUNPATH).
void show_originals(OverlayFileView& overlay, const std::string& prefix, const std::vector<PinnedNow>& pinned) {
  for (const auto& p : pinned) show_retagged(overlay, prefix, p.path, p.offsets, elf::rpath_tag, elf::runpath_tag);
}

// The file pinned, as the overlay will show it once written.
void show_pinned(OverlayFileView& overlay, const std::string& prefix, const PlannedPin& pin) {
  show_retagged(overlay, prefix, pin.path, pin.offsets, elf::runpath_tag, elf::rpath_tag);
}

// The env's ELF files (libraries and consumers, real files) by identity: a
// loaded object reached through a symlink is pinned at its real file. A
// library that is a symlink leading out of the env maps to "" (not pinnable:
// the file is not the env's to change).
std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> env_files(const doctor::DoctorInputs& in,
                                                                          loader::FileSystemView& files) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> out;
  std::string prefix = prefix_of(in);
  auto add = [&](const std::string& rel, bool links_out) {
    const auto& f = files.open_verify(prefix + "/" + rel);
    if (f.opened() && f.elf) out.emplace(std::make_pair(f.dev, f.ino), links_out ? "" : rel);
  };
  for (const auto& l : in.inventory.libraries) add(l.file, l.links_out);
  for (const auto& c : in.inventory.consumers) add(c.file, false);
  return out;
}

// One round: the env files whose DT_NEEDED LD_LIBRARY_PATH answered with a
// copy from outside the env although the env has its own, in the roots that
// fail. Those with DT_RUNPATH are pinned; a failing root none of whose wrong
// edges can be pinned is unpinnable.
struct PinRound {
  std::vector<PlannedPin> pins;
  std::vector<UnpinnableRoot> unpinnable;
};

PinRound pin_round(const doctor::DoctorReport& report, loader::FileSystemView& files,
                   const std::map<std::pair<std::uint64_t, std::uint64_t>, std::string>& env,
                   const std::set<std::string>& pinned) {
  PinRound round;
  std::string prefix = prefix_of(report.inputs);
  std::set<std::string> chosen;
  for (const auto& root : report.roots) {
    if (root.loads) continue;
    const auto& objs = root.report.objects;
    std::string why;
    bool pinnable = false;
    for (const auto& edge : root.report.edges) {
      if (edge.via != loader::FoundVia::ld_library_path || edge.from < 0 || edge.to < 0) continue;
      std::string target = normal(objs[static_cast<std::size_t>(edge.to)].name);
      if (target.rfind(prefix + "/", 0) == 0) continue; // the env's own copy
      if (!provider_by_soname(report.inputs.inventory, edge.needed)) continue;
      const auto& from = files.open_verify(normal(objs[static_cast<std::size_t>(edge.from)].name));
      auto it = env.find({from.dev, from.ino});
      if (it == env.end() || !from.elf) continue;
      std::string reason = edge.needed + ": LD_LIBRARY_PATH gave " + target;
      if (it->second.empty()) {
        if (why.empty())
          why = normal(objs[static_cast<std::size_t>(edge.from)].name) + " needs " + reason +
                ", and it is a symlink that leads out of the env: pinning it would change a file outside";
        continue;
      }
      auto offsets = elf::runpath_tag_offsets(*from.elf);
      if (offsets.empty()) {
        if (why.empty()) why = it->second + " needs " + reason + ", and it has no DT_RUNPATH to pin";
        continue;
      }
      pinnable = true;
      if (pinned.count(it->second) || !chosen.insert(it->second).second) continue;
      round.pins.push_back({it->second, std::string(from.elf->dynamic().runpath.value_or("")), offsets, reason});
    }
    if (!pinnable) {
      if (why.empty()) why = "no library on its loading chain picked up a copy from LD_LIBRARY_PATH that pinning can avoid";
      round.unpinnable.push_back({root.file, root.first_error, why});
    }
  }
  return round;
}

// Pins, round by round (a pinned library loads more of the env's copies, whose
// own dependencies may then go wrong), for each not-activated value in turn,
// until every root loads with it or nothing more can be pinned.
void plan_pins(RepairPlan& plan, const doctor::DoctorInputs& bare_inputs, OverlayFileView& overlay) {
  auto env = env_files(bare_inputs, overlay);
  std::set<std::string> pinned, unpinnable;
  for (const auto& value : plan.not_activated_values) {
    doctor::DoctorInputs in = bare_inputs;
    in.config.ld_library_path = value;
    in.base_ld_library_path = value;
    PinRound last;
    for (int round = 0; round < 16; ++round) {
      auto report = doctor::run_doctor(in, overlay);
      last = pin_round(report, overlay, env, pinned);
      if (last.pins.empty()) break;
      for (auto& p : last.pins) {
        show_pinned(overlay, prefix_of(in), p);
        pinned.insert(p.path);
        plan.pins.push_back(std::move(p));
      }
    }
    for (auto& u : last.unpinnable)
      if (unpinnable.insert(u.root).second) plan.unpinnable.push_back(std::move(u));
  }
  std::sort(plan.pins.begin(), plan.pins.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
}

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

// For every DT_NEEDED by soname of the roots (but the stray-major libraries),
// the env folder whose copy should answer: the copy the requester's own search
// found (a planned link counts as its target) when it has what the requester
// needs, else a copy that has.
std::map<std::string, std::set<std::string>> needed_folders(const doctor::DoctorReport& report,
                                                            loader::FileSystemView& files) {
  std::map<std::string, std::set<std::string>> chosen; // folder -> sonames it provides
  std::string prefix = prefix_of(report.inputs);
  const auto& inv = report.inputs.inventory;
  const std::set<std::string> strays = stray_major_files(inv);
  std::map<std::pair<std::uint64_t, std::uint64_t>, const inventory::Library*> by_identity;
  for (const auto& l : inv.libraries) {
    const auto& f = files.open_verify(prefix + "/" + l.file);
    if (f.opened()) by_identity.emplace(std::make_pair(f.dev, f.ino), &l);
  }
  for (const auto& root : report.roots) {
    if (strays.count(root.file)) continue;
    const auto& objs = root.report.objects;
    for (const auto& edge : root.report.edges) {
      if (edge.needed.find('/') != std::string::npos || edge.from < 0) continue;
      const std::string requester = normal(objs[static_cast<std::size_t>(edge.from)].name);
      const inventory::Library* lib = nullptr;
      if (edge.to >= 0) {
        const auto& f = files.open_verify(normal(objs[static_cast<std::size_t>(edge.to)].name));
        if (auto it = by_identity.find({f.dev, f.ino}); f.opened() && it != by_identity.end()) lib = it->second;
      }
      if (lib && !satisfies(files, prefix, requester, *lib, edge.needed)) lib = nullptr;
      if (!lib) lib = provider_for(inv, edge.needed, requester, files, prefix);
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
                       const PlanRequest& request) {
  RepairPlan plan;
  doctor::DoctorInputs b = bare(inputs);
  std::string prefix = prefix_of(inputs);
  OverlayFileView overlay(files);
  for (const auto& l : request.own_links) overlay.hide(l);
  show_originals(overlay, prefix, request.pinned_now);
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
  plan.folders = order_folders(needed_folders(final_report, overlay), inputs.inventory);
  plan.pin = request.pin;
  plan.not_activated_values = request.not_activated_values;
  if (request.pin) plan_pins(plan, b, overlay);
  return plan;
}

bool Scenario::passes() const {
  if (excused.empty())
    return std::none_of(report.findings.begin(), report.findings.end(), [](const doctor::Finding& f) {
      return f.severity == doctor::Severity::error && !doctor::is_package_finding(f.code);
    });
  return std::all_of(report.roots.begin(), report.roots.end(), [&](const doctor::RootResult& r) {
    return r.loads || std::find(excused.begin(), excused.end(), r.file) != excused.end();
  });
}

Verification verify_plan(const RepairPlan& plan, const doctor::DoctorInputs& inputs,
                         const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files,
                         const std::vector<PinnedNow>& pinned_now) {
  Verification v;
  std::string prefix = prefix_of(inputs);
  OverlayFileView overlay(files);
  add_links(overlay, prefix, plan.links);
  show_originals(overlay, prefix, pinned_now);
  for (const auto& p : plan.pins) show_pinned(overlay, prefix, p);
  std::vector<std::string> abs;
  for (const auto& f : plan.folders) abs.push_back(prefix + "/" + f.path);
  std::vector<std::string> excused;
  for (const auto& u : plan.unpinnable) excused.push_back(u.root);
  auto scenario = [&](std::string name, std::string description, std::optional<std::string> base, bool activated,
                      std::optional<std::string> active_entries, bool required, bool excuse = false) {
    doctor::DoctorInputs in = bare(inputs);
    in.base_ld_library_path = base;
    in.hook_present = activated;
    if (activated) {
      in.hook_folders = abs;
      in.config.ld_library_path = activate_ld_library_path(base, abs, active_entries);
    } else {
      in.config.ld_library_path = base;
    }
    Scenario s{std::move(name), std::move(description), required, excuse ? excused : std::vector<std::string>{},
               doctor::run_doctor(std::move(in), overlay)};
    if (required && !s.passes()) v.ok = false;
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
  if (!plan.pin) {
    scenario("not activated", "LD_LIBRARY_PATH unset, env not activated (symlinks and RUNPATH only)", std::nullopt,
             false, std::nullopt, false);
    return v;
  }
  auto shell = not_activated_value(inputs.base_ld_library_path, inputs.active_hook_entries);
  scenario("not activated", "this shell's LD_LIBRARY_PATH " + shown(shell) + " without the hook, env not activated",
           shell, false, std::nullopt, true, true);
  for (const auto& value : plan.not_activated_values)
    if (value && value != shell)
      scenario("not activated, hostile", "LD_LIBRARY_PATH " + shown(value) + ", env not activated", value, false,
               std::nullopt, true, true);
  scenario("not activated, unset", "LD_LIBRARY_PATH unset, env not activated (pins, symlinks and RUNPATH)",
           std::nullopt, false, std::nullopt, true, true);
  return v;
}

} // namespace condacuda::repair
