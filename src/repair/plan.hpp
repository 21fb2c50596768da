#pragma once
// Repair as a value: which env folders go first on LD_LIBRARY_PATH when the
// env is activated (in order), which symlinks let RUNPATH alone find a
// dependency without activation, and (repair --pin) which libraries' RUNPATH
// becomes RPATH so that LD_LIBRARY_PATH cannot shadow the env's copies when
// it is not activated. Computed with the loader model, then
// verified by simulating every root with the plan applied virtually, before
// anything is written (app/repair_apply.cpp writes it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"

namespace condacuda::repair {

struct PlannedLink {
  std::string path;      // the link, relative to the prefix
  std::string target;    // the link text (relative to the link's folder)
  std::string soname;
  std::string needed_by; // the library whose RUNPATH will find it (prefix-relative)
};

struct PlannedFolder {
  std::string path;                 // relative to the prefix
  std::vector<std::string> sonames; // the needed libraries it provides
};

// A library whose DT_RUNPATH becomes DT_RPATH (elf/pin.hpp).
struct PlannedPin {
  std::string path;                   // the real file, relative to the prefix
  std::string runpath;                // the search path it keeps, now searched first
  std::vector<std::uint64_t> offsets; // file offsets of the d_tags changed
  std::string reason;                 // which dependency LD_LIBRARY_PATH took from the env
  // `path` is a symlink out of the env (uv's symlink link mode): the pinned
  // file is a private copy that replaces the link; undo puts the link back.
  bool private_copy = false;
};

// A root that pinning cannot make load without activation, and why.
struct UnpinnableRoot {
  std::string root;  // prefix-relative
  std::string error; // the loader's message when not activated
  std::string why;
};

// A pin a previous repair wrote (from its manifest).
struct PinnedNow {
  std::string path; // relative to the prefix
  std::vector<std::uint64_t> offsets;
};

// A soname the plan cannot give one copy in a launch (issue 17): a consumer's
// own search reaches another env copy before anything repair controls
// (DT_RPATH; without activation DT_RUNPATH, whose folder holds a package's
// file), or no copy defines all its consumers need. An import order that
// loads that copy first may fail; doctor's import-order finding says which
// order works and the package to upgrade or remove.
struct OrderLimit {
  bool activated = false; // the launch: activated, or not
  std::string soname;
  std::string copy;      // the other copy (prefix-relative)
  std::string requester; // who reaches it (prefix-relative)
  std::string why;
  bool no_single_copy = false; // no copy serves every requester: any first copy may fail
};

// The env's one copy of a soname that has several.
struct OneCopy {
  std::string soname;
  std::string file; // prefix-relative
};

struct PlanRequest {
  // Symlinks a previous repair made (absolute): planning sees the env
  // without them, so a repaired env plans the same links again.
  std::vector<std::string> own_links;
  // Files a previous repair pinned: planning sees them as their originals.
  std::vector<PinnedNow> pinned_now;
  bool pin = false; // pins the previous repair made stay (planned again or kept)
  // The LD_LIBRARY_PATH values the pins must withstand, not activated (this
  // shell's without the hook, every recorded launch's, the machine's system
  // CUDA folders first).
  std::vector<std::optional<std::string>> not_activated_values;
  // The launches the plan is verified against and records (launch/launch.hpp):
  // the manifest's, with this shell's (last).
  std::vector<std::optional<std::string>> launches;
  // Whether the env has an activation that sources conda's activate.d (a venv
  // or uv env has not: no hook is written, only launches without one count).
  bool activation = true;
  // The env has Jupyter kernels (doctor/kernels.hpp): a kernel starts in its
  // server's environment, whose LD_LIBRARY_PATH no terminal sees. Besides the
  // pins the values above need, every env library that finds an env CUDA
  // library through its DT_RUNPATH (searched after LD_LIBRARY_PATH) is pinned:
  // the kernel then loads the env's copies whatever that value holds.
  bool hold_any_ld_library_path = false;
};

struct RepairPlan {
  std::vector<PlannedFolder> folders; // first on LD_LIBRARY_PATH, in this order
  std::vector<PlannedLink> links;
  bool pin = false;                   // pins asked for: not-activated launches are verified
  std::vector<PlannedPin> pins;
  std::vector<UnpinnableRoot> unpinnable;
  std::vector<std::optional<std::string>> not_activated_values; // verified, with unset
  std::vector<std::optional<std::string>> launches;             // recorded (PlanRequest::launches)
  bool activation = true;                                       // hooks written, activated launches verified
  bool hold_any_ld_library_path = false;                        // PlanRequest's: exposure pins planned
  // One copy per soname: every consumer is led to it (folders, links), so
  // that every import order binds to the same copy; and where that cannot hold.
  std::vector<OneCopy> copies;
  std::vector<OrderLimit> order_limits;

  bool empty() const { return folders.empty() && links.empty() && pins.empty(); }
  std::vector<std::string> folder_paths() const;
};

// Plans from the env as doctor sees it (inputs.config.ld_library_path is
// ignored: links and folders come from a simulation of the env without
// LD_LIBRARY_PATH and without any hook, which is what its own search paths
// achieve; pins from one, not activated, with the hostile value).
RepairPlan plan_repair(const doctor::DoctorInputs& inputs, loader::FileSystemView& files,
                       const PlanRequest& request = {});

// One simulated situation the plan must survive.
struct Scenario {
  std::string name;        // "this shell", "system CUDA first", "not activated"
  std::string description; // what LD_LIBRARY_PATH it assumes
  bool required = true;    // must be healthy for the plan to be applied
  // Titles of the import-order errors the plan explains in this launch: its
  // order limits (soname and first-loaded copy), or a soname repair does not manage.
  std::vector<std::string> excused_orders;
  doctor::DoctorReport report;
  // An error finding a repair should have fixed: not a package finding
  // (doctor::is_package_finding), nor an import-order one the plan explains.
  bool blocks(const doctor::Finding& f) const;
  // Every root loads and no finding blocks: condacuda never calls a launch
  // it verified ok while a root fails there (an unpinnable one included).
  bool passes() const;
};

struct Verification {
  bool ok = true;
  std::vector<Scenario> scenarios;
};

// Simulates every root with the plan applied: with the caller's base
// LD_LIBRARY_PATH plus the hook, with each recorded launch's plus the hook,
// with the machine's system CUDA folders plus the hook (all required; none in
// an env without activation), and unactivated with only the symlinks
// (reported). A plan with pins is also simulated not activated with each of
// its not-activated values and with LD_LIBRARY_PATH unset (required).
// `pinned_now`: the pins on disk, seen as their originals unless the plan keeps them.
Verification verify_plan(const RepairPlan& plan, const doctor::DoctorInputs& inputs,
                         const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files,
                         const std::vector<PinnedNow>& pinned_now = {});

} // namespace condacuda::repair
