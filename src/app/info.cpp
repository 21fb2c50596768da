#include "app/info.hpp"

#include <filesystem>

#include "app/doctor_inputs.hpp"
#include "app/kernels.hpp"
#include "repair/hooks.hpp"

#include "sys/env_discovery.hpp"
#include "sys/env_scan.hpp"
#include "sys/gpu_code.hpp"
#include "sys/repair_state.hpp"

namespace condacuda::app {

Result<EnvInfo> info(const env::EnvRecord& env) {
  auto snapshot = sys::scan_env(env.prefix);
  if (!snapshot) return snapshot.error();
  EnvInfo out;
  out.inventory = inventory::build_inventory(*snapshot);
  out.inventory.pinned = sys::read_repair_state(env.prefix).pinned();
  sys::add_gpu_code(out.inventory, env.prefix);
  if (sys::env_python(env.prefix))
    if (auto view = python_view(out.inventory.prefix)) {
      if (frameworks::any_framework_importable(*view))
        out.frameworks = frameworks::find_frameworks(frameworks::embedded_recipes(), *view);
      out.outside = frameworks::nvidia_libraries_outside(*view, out.inventory.prefix);
      auto python = sys::env_python(env.prefix);
      auto survey = find_env_kernels({env.prefix, env.name, python.value_or(""), view->interpreter.venv});
      out.kernels = std::move(survey.kernels);
      for (const auto& k : survey.unreadable) out.unreadable_kernelspecs.emplace_back(k.spec.dir + "/kernel.json", k.problem);
    }
  return out;
}

namespace {
// The hooks' staleness test (repair/hooks.hpp watched_folders), read the
// same way: a watched folder newer than the env's etc/condacuda.
bool changed_since_repair(const std::string& prefix, const repair::Manifest& manifest) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto repaired = fs::last_write_time(prefix + "/etc/condacuda", ec);
  if (ec) return false;
  for (const auto& folder : repair::watched_folders(manifest.folders)) {
    const auto changed = fs::last_write_time(prefix + "/" + folder, ec);
    if (!ec && changed > repaired) return true;
  }
  return false;
}

std::string repair_state(const env::EnvRecord& env, const std::string& cuda) {
  const auto state = sys::read_repair_state(env.prefix);
  if (state.unreadable) return "?";
  if (!state.manifest) return cuda == "none" || cuda == "?" ? "-" : "not repaired";
  return changed_since_repair(env.prefix, *state.manifest) ? "stale" : "repaired";
}
} // namespace

EnvList list() {
  auto context = sys::load_discovery_context();
  EnvList out{context.warnings, {}};
  for (const auto& env : sys::list_envs(context)) {
    ListedEnv row{env, "?", "-"};
    if (auto snapshot = sys::scan_env(env.prefix)) row.cuda = inventory::build_inventory(*snapshot).cuda_summary();
    row.repair = repair_state(env, row.cuda);
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
