#include "repair/pins.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "elf/pin.hpp"
#include "repair/copies.hpp"
#include "repair/plan_simulation.hpp"

namespace condacuda::repair {

namespace {
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
        cannot_pin(file.path, "it has no search path of its own to pin");
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
} // namespace

void show_originals(OverlayFileView& overlay, const std::string& prefix, const std::vector<PinnedNow>& pinned) {
  for (const auto& p : pinned) show_retagged(overlay, prefix, p.path, p.offsets, elf::rpath_tag, elf::runpath_tag);
}

void show_pinned(OverlayFileView& overlay, const std::string& prefix, const PlannedPin& pin) {
  show_retagged(overlay, prefix, pin.path, pin.offsets, elf::runpath_tag, elf::rpath_tag);
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

namespace {
// One exposure round: the requesters whose DT_RUNPATH finds an env CUDA
// library on some root's chain, not pinned yet (an unpinnable one stays
// exposed: doctor's kernel-exposed finding names its soname after the repair).
std::vector<PlannedPin> exposure_round(const doctor::DoctorReport& report, loader::FileSystemView& files,
                                       const std::map<std::pair<std::uint64_t, std::uint64_t>, EnvFile>& env,
                                       std::set<std::string>& pinned) {
  std::vector<PlannedPin> out;
  const std::string prefix = prefix_of(report.inputs);
  for (const auto& root : report.roots) {
    const auto& objs = root.report.objects;
    for (const auto& edge : root.report.edges) {
      if (edge.via != loader::FoundVia::runpath || edge.from < 0 || edge.to < 0) continue;
      const std::string target = normal(objs[static_cast<std::size_t>(edge.to)].name);
      if (target.rfind(prefix + "/", 0) != 0 || !provider_by_soname(report.inputs.inventory, edge.needed)) continue;
      const auto& from = files.open_verify(normal(objs[static_cast<std::size_t>(edge.from)].name));
      auto it = env.find({from.dev, from.ino});
      if (it == env.end() || !from.elf || pinned.count(it->second.path)) continue;
      auto offsets = elf::runpath_tag_offsets(*from.elf);
      if (offsets.empty() || elf::pin_refusal(*from.elf)) continue;
      const EnvFile& file = it->second;
      pinned.insert(file.path);
      PlannedPin pin{file.path, std::string(from.elf->dynamic().runpath.value_or("")), offsets,
                     edge.needed + ": its own search path finds the env's copy after LD_LIBRARY_PATH, so a Jupyter "
                                   "server's LD_LIBRARY_PATH could replace it",
                     file.links_out};
      if (file.links_out) pin.reason += "; a symlink out of the env: a private copy replaces it (undo puts the link back)";
      out.push_back(std::move(pin));
    }
  }
  return out;
}
} // namespace

void plan_exposure_pins(RepairPlan& plan, const doctor::DoctorInputs& bare_inputs, OverlayFileView& overlay) {
  auto env = env_files(bare_inputs, overlay);
  std::set<std::string> pinned;
  for (const auto& p : plan.pins) pinned.insert(p.path);
  for (int round = 0; round < 16; ++round) {
    auto more = exposure_round(doctor::run_doctor(bare_inputs, overlay), overlay, env, pinned);
    if (more.empty()) break;
    for (auto& p : more) {
      show_pinned(overlay, prefix_of(bare_inputs), p);
      plan.pins.push_back(std::move(p));
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

} // namespace condacuda::repair
