#include "sys/doctor_inputs.hpp"

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>

#include "repair/activation.hpp"
#include "sys/env_scan.hpp"
#include "sys/hook_state.hpp"
#include "sys/lock_io.hpp"
#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

std::optional<std::string> env_python(const std::string& prefix) {
  for (const char* name : {"bin/python3", "bin/python"}) {
    std::error_code ec;
    fs::path real = fs::canonical(fs::path(prefix) / name, ec);
    if (ec) continue;
    auto bytes = map_file(real.string());
    if (bytes && bytes->data.size() >= 4 && std::memcmp(bytes->data.data(), "\x7f" "ELF", 4) == 0) return real.string();
  }
  return std::nullopt;
}

namespace {
// activate.d scripts of other packages that touch LD_LIBRARY_PATH.
std::vector<std::string> foreign_hooks(const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(prefix) / "etc/conda/activate.d", ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("condacuda.", 0) == 0) continue;
    auto text = read_text_file(entry.path().string());
    if (text && text->find("LD_LIBRARY_PATH") != std::string::npos) out.push_back("etc/conda/activate.d/" + name);
  }
  std::sort(out.begin(), out.end());
  return out;
}
} // namespace

Result<doctor::DoctorInputs> doctor_inputs(const DoctorRequest& request, DiskFileView& files) {
  doctor::DoctorInputs in;
  in.env = request.env;
  auto snapshot = scan_env(request.env.prefix);
  if (!snapshot) return snapshot.error();
  for (const auto& f : snapshot->shared_objects)
    if (f.elf && !f.symlink) files.adopt(snapshot->prefix + "/" + f.path, f.elf->bytes());
  in.inventory = inventory::build_inventory(*snapshot);
  auto facts = detect_machine();
  in.config = facts.config;
  if (request.ld_library_path) {
    in.base_ld_library_path = *request.ld_library_path;
    in.ld_library_path_source = "--ld-library-path";
  } else {
    in.base_ld_library_path = in.config.ld_library_path;
    in.ld_library_path_source = "caller";
  }
  HookState hook = read_hook_state(request.env.prefix);
  in.hook_present = hook.installed;
  in.config.ld_library_path = in.base_ld_library_path;
  if (hook.installed) {
    for (const auto& f : hook.folders) in.hook_folders.push_back(request.env.prefix + "/" + f);
    // With the caller's value, the hook may already have run in this shell:
    // its state says what it added. A given value is taken as not activated.
    if (!request.ld_library_path) in.active_hook_entries = active_hook_entries(request.env.prefix);
    in.config.ld_library_path =
        repair::activate_ld_library_path(in.base_ld_library_path, in.hook_folders, in.active_hook_entries);
  }
  in.host_program = env_python(request.env.prefix);
  in.foreign_hooks = foreign_hooks(request.env.prefix);
  if (auto driver = read_driver_version()) in.driver_version = driver->version;
  return in;
}

} // namespace condacuda::sys
