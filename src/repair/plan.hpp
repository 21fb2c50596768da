#pragma once
// Repair as a value: which env folders go first on LD_LIBRARY_PATH when the
// env is activated (in order), and which symlinks let RUNPATH alone find a
// dependency without activation. Computed with the loader model, then
// verified by simulating every root with the plan applied virtually, before
// anything is written (app/repair_apply.cpp writes it).
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

struct RepairPlan {
  std::vector<PlannedFolder> folders; // first on LD_LIBRARY_PATH, in this order
  std::vector<PlannedLink> links;

  bool empty() const { return folders.empty() && links.empty(); }
  std::vector<std::string> folder_paths() const;
};

// Plans from the env as doctor sees it (inputs.config.ld_library_path is
// ignored: planning simulates the env without LD_LIBRARY_PATH and without any
// hook, which is what its own search paths achieve).
// `own_links` are the symlinks a previous repair made (absolute): planning
// sees the env without them, so a repaired env plans the same links again.
RepairPlan plan_repair(const doctor::DoctorInputs& inputs, loader::FileSystemView& files,
                       const std::vector<std::string>& own_links = {});

// One simulated situation the plan must survive.
struct Scenario {
  std::string name;        // "this shell", "system CUDA first", "not activated"
  std::string description; // what LD_LIBRARY_PATH it assumes
  bool required = true;    // must be healthy for the plan to be applied
  doctor::DoctorReport report;
};

struct Verification {
  bool ok = true;
  std::vector<Scenario> scenarios;
};

// Simulates every root with the plan applied: with the caller's base
// LD_LIBRARY_PATH plus the hook, with the machine's system CUDA folders plus
// the hook (both required), and unactivated with only the symlinks (reported).
Verification verify_plan(const RepairPlan& plan, const doctor::DoctorInputs& inputs,
                         const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files);

} // namespace condacuda::repair
