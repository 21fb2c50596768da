#include "app/info.hpp"

#include "sys/env_discovery.hpp"
#include "sys/env_scan.hpp"
#include "sys/gpu_code.hpp"
#include "sys/repair_state.hpp"

namespace condacuda::app {

Result<inventory::Inventory> info(const env::EnvRecord& env) {
  auto snapshot = sys::scan_env(env.prefix);
  if (!snapshot) return snapshot.error();
  auto inv = inventory::build_inventory(*snapshot);
  inv.pinned = sys::pinned_files(env.prefix);
  sys::add_gpu_code(inv, env.prefix);
  return inv;
}

EnvList list() {
  auto context = sys::load_discovery_context();
  EnvList out{context.warnings, {}};
  for (const auto& env : sys::list_envs(context)) {
    ListedEnv row{env, "?", "-"};
    if (auto snapshot = sys::scan_env(env.prefix)) row.cuda = inventory::build_inventory(*snapshot).cuda_summary();
    out.envs.push_back(std::move(row));
  }
  return out;
}

std::vector<std::string> list_names() {
  std::vector<std::string> names;
  for (const auto& env : sys::list_envs(sys::load_discovery_context())) names.push_back(env.name);
  return names;
}

} // namespace condacuda::app
