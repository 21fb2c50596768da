#pragma once
// `condacuda info` and `condacuda list`: the env's CUDA inventory; the envs
// found with their CUDA major.
#include <string>
#include <vector>

#include "doctor/kernels.hpp"
#include "env/discovery.hpp"
#include "frameworks/installed.hpp"
#include "inventory/inventory.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct EnvInfo {
  inventory::Inventory inventory;
  // The frameworks the env's python imports (from this shell), each with the
  // recipe doctor judges its import by; none when the env has no python.
  std::vector<frameworks::InstalledFramework> frameworks;
  // NVIDIA libraries in sys.path folders outside the env (the user site, PYTHONPATH).
  std::vector<frameworks::SysPathLibrary> outside;
  // The Jupyter kernelspecs that start the env's python (docs/jupyter.md),
  // found where jupyter_client looks from this shell and each running
  // server, not judged (doctor judges them); and those that cannot be read.
  std::vector<doctor::EnvKernel> kernels;
  std::vector<std::pair<std::string, std::string>> unreadable_kernelspecs; // kernel.json, why
};

// Errors: the prefix cannot be read at all.
Result<EnvInfo> info(const env::EnvRecord& env);

struct ListedEnv {
  env::EnvRecord env;
  std::string cuda;   // "none", "12", "13", "mixed", or "?" when the scan failed
  // Without a doctor, from condacuda's manifest and the mtimes the hooks
  // compare: "-" (no CUDA libraries), "not repaired", "repaired", "stale" (a
  // folder the hook watches changed since the repair), "?" (unreadable manifest).
  std::string repair;
};

struct EnvList {
  std::vector<Error> warnings; // unreadable or broken conda configuration
  std::vector<ListedEnv> envs;
};

// Every env found, scanned for its CUDA major.
EnvList list();
// Only the names, without scanning (shell completion).
std::vector<std::string> list_names();

} // namespace condacuda::app
