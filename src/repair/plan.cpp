#include "repair/plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "elf/pin.hpp"
#include "loader/path_list.hpp"
#include "loader/versions.hpp"
#include "inventory/consumers_major.hpp"
#include "launch/hook_model.hpp"
#include "launch/launch.hpp"
#include "repair/overlay_view.hpp"
#include "util/strings.hpp"

namespace condacuda::repair {
using launch::activate_ld_library_path;
using launch::not_activated_value;

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

// A DT_NEEDED by soname on a root's loading chain: who needs it, the env copy
// its search found (null: none, or not the env's), and how.
struct Need {
  std::string requester; // absolute
  std::string found;     // the env library's file (prefix-relative), "" : none or not the env's
  loader::FoundVia via = loader::FoundVia::not_found;
};
using Needs = std::map<std::string, std::vector<Need>>; // soname -> every need of it

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

// The file at `path` (prefix-relative) as the overlay shows it with the
// d_tags at `offsets` changed from `from` to `to`; unchanged when they are not `from`.
void show_retagged(OverlayFileView& overlay, const std::string& prefix, const std::string& path,
                   const std::vector<std::uint64_t>& offsets, std::int64_t from, std::int64_t to) {
  const auto& opened = overlay.open_verify(prefix + "/" + path);
  if (!opened.elf) return;
  const auto& data = opened.elf->bytes().data;
  auto patches = elf::retag_patches(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()),
                                    {offsets, from, to});
  if (patches) overlay.replace_patched(prefix + "/" + path, *patches);
}

// Each previous pin seen as the original file (its RPATH tags back to RUNPATH).
void show_originals(OverlayFileView& overlay, const std::string& prefix, const std::vector<PinnedNow>& pinned) {
  for (const auto& p : pinned) show_retagged(overlay, prefix, p.path, p.offsets, elf::rpath_tag, elf::runpath_tag);
}

// The file pinned, as the overlay will show it once written.
void show_pinned(OverlayFileView& overlay, const std::string& prefix, const PlannedPin& pin) {
  show_retagged(overlay, prefix, pin.path, pin.offsets, elf::runpath_tag, elf::rpath_tag);
}

// An env file a pin can change: its path (prefix-relative), and whether it
// is a symlink leading out of the env (uv's symlink link mode), pinned as a
// private copy that replaces the link (the file outside is not the env's to
// change).
struct EnvFile {
  std::string path;
  bool links_out = false;
};

// The env's ELF files (libraries and consumers) by identity: a loaded object
// reached through a symlink inside the env is pinned at its real file.
std::map<std::pair<std::uint64_t, std::uint64_t>, EnvFile> env_files(const doctor::DoctorInputs& in,
                                                                      loader::FileSystemView& files) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, EnvFile> out;
  std::string prefix = prefix_of(in);
  auto add = [&](const std::string& rel, bool links_out) {
    const auto& f = files.open_verify(prefix + "/" + rel);
    if (f.opened() && f.elf) out.emplace(std::make_pair(f.dev, f.ino), EnvFile{rel, links_out});
  };
  for (const auto& l : in.inventory.libraries) add(l.file, l.links_out);
  for (const auto& c : in.inventory.consumers) add(c.file, false);
  return out;
}

// One round: the env files whose DT_NEEDED LD_LIBRARY_PATH answered with a
// copy from outside the env although the env has its own, in the roots that
// fail or that an import-order error names. Those with DT_RUNPATH are
// pinned; a failing root none of whose wrong edges can be pinned is unpinnable.
struct PinRound {
  std::vector<PlannedPin> pins;
  std::vector<UnpinnableRoot> unpinnable;
  std::vector<OrderLimit> limits; // edges of roots that load alone that no pin changes
};

PinRound pin_round(const doctor::DoctorReport& report, loader::FileSystemView& files,
                   const std::map<std::pair<std::uint64_t, std::uint64_t>, EnvFile>& env,
                   const std::set<std::string>& pinned) {
  PinRound round;
  std::string prefix = prefix_of(report.inputs);
  std::set<std::string> chosen;
  // Roots that load alone but not in some import order, with the sonames
  // concerned: their outside copies are pinned away too (one copy per
  // soname, the env's).
  std::map<std::string, std::set<std::string>> in_order_errors;
  for (const auto& f : report.findings)
    if (f.code == doctor::code::import_order && f.severity == doctor::Severity::error)
      for (const auto& root : f.affects) in_order_errors[root].insert(f.library);
  auto rel = [&](const std::string& path) { return path.rfind(prefix + "/", 0) == 0 ? path.substr(prefix.size() + 1) : path; };
  for (const auto& root : report.roots) {
    if (root.loads && !in_order_errors.count(root.file)) continue;
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
      const std::string requester = normal(objs[static_cast<std::size_t>(edge.from)].name);
      // An edge no pin can change: the root fails for it, or (loading alone)
      // an import order that loads this copy first may fail.
      auto cannot_pin = [&](const std::string& who, const std::string& because) {
        if (why.empty()) why = who + " needs " + reason + ", and " + because;
        if (root.loads && in_order_errors[root.file].count(edge.needed))
          round.limits.push_back({false, edge.needed, target, rel(requester),
                                  "LD_LIBRARY_PATH gives it that copy without activation, and " + because});
      };
      const EnvFile& file = it->second;
      auto offsets = elf::runpath_tag_offsets(*from.elf);
      if (offsets.empty()) {
        cannot_pin(file.path, "it has no DT_RUNPATH to pin");
        continue;
      }
      if (auto refusal = elf::pin_refusal(*from.elf)) {
        cannot_pin(file.path, *refusal);
        continue;
      }
      pinnable = true;
      if (pinned.count(file.path) || !chosen.insert(file.path).second) continue;
      PlannedPin pin{file.path, std::string(from.elf->dynamic().runpath.value_or("")), offsets, reason, file.links_out};
      if (file.links_out) pin.reason += "; a symlink out of the env: a private copy replaces it (undo puts the link back)";
      round.pins.push_back(std::move(pin));
    }
    if (!pinnable && !root.loads) {
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
    for (auto& l : last.limits) {
      const bool known = std::any_of(plan.order_limits.begin(), plan.order_limits.end(), [&](const OrderLimit& o) {
        return o.soname == l.soname && o.copy == l.copy && o.requester == l.requester;
      });
      if (!known) plan.order_limits.push_back(std::move(l));
    }
  }
  std::sort(plan.pins.begin(), plan.pins.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
}

// A pin belongs to the env, not to the shell that planned it: the pins a
// previous repair made and no launch of this one asks for stay, while the
// file still has the DT_RUNPATH tags they change (issue 24: a repair from a
// clean shell must not take away what a module shell needs).
void keep_pins(RepairPlan& plan, const std::vector<PinnedNow>& pinned_now, const std::string& prefix,
               OverlayFileView& overlay) {
  for (const auto& p : pinned_now) {
    if (std::any_of(plan.pins.begin(), plan.pins.end(), [&](const PlannedPin& x) { return x.path == p.path; })) continue;
    const auto& opened = overlay.open_verify(prefix + "/" + p.path);
    if (!opened.elf || elf::runpath_tag_offsets(*opened.elf) != p.offsets) continue;
    PlannedPin kept{p.path, std::string(opened.elf->dynamic().runpath.value_or("")), p.offsets,
                    "kept: an earlier repair pinned it (`repair --no-pin` or `undo` removes it)"};
    show_pinned(overlay, prefix, kept);
    plan.pins.push_back(std::move(kept));
  }
  std::sort(plan.pins.begin(), plan.pins.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
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

// Where the plan cannot give a soname one copy: a requester whose own search
// reaches another env copy before anything repair controls (DT_RPATH, or
// without activation DT_RUNPATH, whose folder holds a package's real file),
// or no copy serves every requester. `needs` are those of a simulation of
// the launch with the plan applied.
void add_order_limits(std::vector<OrderLimit>& out, bool activated, const Needs& needs,
                      const std::map<std::string, const inventory::Library*>& one_copy, const std::string& prefix) {
  auto rel = [&](const std::string& path) { return path.rfind(prefix + "/", 0) == 0 ? path.substr(prefix.size() + 1) : path; };
  for (const auto& [soname, list] : needs) {
    auto chosen = one_copy.find(soname);
    if (chosen == one_copy.end()) {
      std::set<std::string> copies;
      for (const auto& n : list)
        if (!n.found.empty()) copies.insert(n.found);
      if (copies.size() < 2) continue;
      const Need& first = *std::find_if(list.begin(), list.end(), [](const Need& n) { return !n.found.empty(); });
      OrderLimit l{activated, soname, first.found, rel(first.requester),
                   "no copy of " + soname + " in the env defines every versioned symbol its consumers need"};
      l.no_single_copy = true;
      out.push_back(std::move(l));
      continue;
    }
    for (const auto& n : list) {
      if (n.found.empty() || n.found == chosen->second->file) continue;
      const bool own_search = n.via == loader::FoundVia::rpath || n.via == loader::FoundVia::exe_rpath ||
                              (!activated && n.via == loader::FoundVia::runpath);
      // Activated, the hook's folders lead to another copy only when they hold
      // each other's chosen copies (order_folders keeps path order in a cycle).
      const bool folder_cycle = activated && n.via == loader::FoundVia::ld_library_path;
      if (!own_search && !folder_cycle) continue;
      const bool known = std::any_of(out.begin(), out.end(), [&](const OrderLimit& l) {
        return l.activated == activated && l.soname == soname && l.copy == n.found;
      });
      if (known) continue;
      const std::string how = folder_cycle ? "the hook's folders find that copy first: two of them each hold the "
                                             "other's chosen copy of some soname, and no order puts both first"
                              : std::string("its own ") + (n.via == loader::FoundVia::runpath ? "DT_RUNPATH" : "DT_RPATH") +
                                    " finds that copy first" + (activated ? ", before LD_LIBRARY_PATH" : "");
      out.push_back({activated, soname, n.found, rel(n.requester), how + "; the env's one copy is " + chosen->second->file});
    }
  }
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
  const Needs needs = needs_of(final_report, overlay);
  const auto one_copy = one_copy_per_soname(needs, inputs.inventory, overlay, prefix);
  for (const auto& [soname, lib] : one_copy)
    if (copies_of(inputs.inventory, soname).size() > 1) plan.copies.push_back({soname, lib->file});
  plan.folders = order_folders(needed_folders(needs, one_copy, inputs, overlay), inputs.inventory);
  plan.pin = request.pin;
  plan.not_activated_values = request.not_activated_values;
  plan.launches = request.launches;
  plan.activation = request.activation;
  if (request.pin) {
    plan_pins(plan, b, overlay);
    keep_pins(plan, request.pinned_now, prefix, overlay);
  }
  // What no search path can change, in each launch: activated with the
  // hook's folders, and not activated with the links (and pins).
  doctor::DoctorInputs activated = b;
  for (const auto& f : plan.folders) activated.hook_folders.push_back(prefix + "/" + f.path);
  activated.hook_present = true;
  if (!activated.hook_folders.empty()) activated.config.ld_library_path = util::join(activated.hook_folders, ":");
  add_order_limits(plan.order_limits, true, needs_of(doctor::run_doctor(activated, overlay), overlay), one_copy, prefix);
  const Needs unactivated = plan.pins.empty() ? needs : needs_of(doctor::run_doctor(b, overlay), overlay); // pins change it
  add_order_limits(plan.order_limits, false, unactivated, one_copy, prefix);
  return plan;
}

namespace {
// Whether an import-order error is one the plan explains: a soname repair
// does not manage (no env copy: libstdc++ between a conda and a pip
// package, say), or a limit of the plan in this launch, for this soname and
// the copy that was loaded first (by identity).
bool order_explained(const doctor::Finding& f, const RepairPlan& plan, bool activated, const inventory::Inventory& inv,
                     const std::string& prefix, loader::FileSystemView& files) {
  if (!provider_by_soname(inv, f.library)) return true;
  const auto& loaded = files.open_verify(normal(f.resolved));
  for (const auto& l : plan.order_limits) {
    if (l.activated != activated || l.soname != f.library) continue;
    if (l.no_single_copy) return true;
    const auto& copy = files.open_verify(l.copy.rfind('/', 0) == 0 ? l.copy : prefix + "/" + l.copy);
    if (copy.opened() && loaded.opened() && copy.dev == loaded.dev && copy.ino == loaded.ino) return true;
  }
  return false;
}
} // namespace

bool Scenario::blocks(const doctor::Finding& f) const {
  if (f.severity != doctor::Severity::error) return false;
  if (f.code == doctor::code::import_order)
    return std::find(excused_orders.begin(), excused_orders.end(), f.title) == excused_orders.end();
  return !doctor::is_package_finding(f.code);
}

bool Scenario::passes() const {
  const auto& findings = report.findings;
  const bool roots_load =
      std::all_of(report.roots.begin(), report.roots.end(), [](const doctor::RootResult& r) { return r.loads; });
  return roots_load && std::none_of(findings.begin(), findings.end(), [&](const auto& f) { return blocks(f); });
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
    Scenario s{std::move(name), std::move(description), required, {}, doctor::run_doctor(std::move(in), overlay)};
    for (const auto& f : s.report.findings)
      if (f.code == doctor::code::import_order && f.severity == doctor::Severity::error &&
          order_explained(f, plan, activated, s.report.inputs.inventory, prefix, overlay))
        s.excused_orders.push_back(f.title);
    if (required && !s.passes()) v.ok = false;
    v.scenarios.push_back(std::move(s));
  };
  using launch::describe;
  auto shell = not_activated_value(inputs.base_ld_library_path, inputs.active_hook_entries);
  if (plan.activation) {
    scenario("this shell", "this shell's LD_LIBRARY_PATH " + describe(inputs.base_ld_library_path) + ", env activated",
             inputs.base_ld_library_path, true, inputs.active_hook_entries, true);
    for (const auto& recorded : plan.launches)
      if (!launch::same_value(recorded, shell))
        scenario("recorded launch", "LD_LIBRARY_PATH " + describe(recorded) + " (a launch an earlier repair verified), env activated",
                 recorded, true, std::nullopt, true);
    if (!system_cuda_dirs.empty()) {
      std::string hostile = util::join(system_cuda_dirs, ":");
      scenario("system CUDA first", "the system CUDA folders on LD_LIBRARY_PATH ('" + hostile + "'), env activated",
               hostile, true, std::nullopt, true);
    }
  }
  if (!plan.pin) {
    scenario("not activated", "LD_LIBRARY_PATH unset, env not activated (symlinks and RUNPATH only)", std::nullopt,
             false, std::nullopt, !plan.activation);
    return v;
  }
  scenario("not activated", "this shell's LD_LIBRARY_PATH " + describe(shell) + " without the hook, env not activated",
           shell, false, std::nullopt, true);
  for (const auto& value : plan.not_activated_values)
    if (value && !launch::same_value(value, shell))
      scenario(launch::is_recorded(plan.launches, value) ? "not activated, recorded launch" : "not activated, hostile",
               "LD_LIBRARY_PATH " + describe(value) + ", env not activated", value, false, std::nullopt, true);
  scenario("not activated, unset", "LD_LIBRARY_PATH unset, env not activated (pins, symlinks and RUNPATH)",
           std::nullopt, false, std::nullopt, true);
  return v;
}

} // namespace condacuda::repair
