#include "app/plan_request.hpp"

#include "launch/hook_model.hpp"
#include "launch/launch.hpp"
#include "util/strings.hpp"

namespace condacuda::app {

namespace {
// The symlinks a previous repair made (absolute): planning sees the env without them.
std::vector<std::string> own_links(const std::string& prefix, const std::optional<repair::Manifest>& previous) {
  std::vector<std::string> links;
  if (previous)
    for (const auto& e : previous->entries)
      if (e.kind == repair::ManifestEntry::Kind::symlink) links.push_back(prefix + "/" + e.path);
  return links;
}

std::vector<repair::PinnedNow> pinned_now(const std::optional<repair::Manifest>& previous) {
  std::vector<repair::PinnedNow> out;
  if (previous)
    for (const auto& p : previous->pins) out.push_back({p.path, p.offsets});
  return out;
}

// What the pins must withstand not activated: this shell's value without the
// env's hook, every other recorded launch's, and the machine's system CUDA
// folders before this shell's.
std::vector<std::optional<std::string>> not_activated_values(const launch::PathValue& shell,
                                                             const std::vector<launch::PathValue>& launches,
                                                             const std::vector<std::string>& system) {
  std::vector<std::optional<std::string>> out{shell};
  for (const auto& l : launches)
    if (!launch::is_recorded(out, l)) out.push_back(l);
  std::vector<std::string> parts = system;
  if (shell && !shell->empty()) parts.push_back(*shell);
  if (!system.empty()) out.push_back(util::join(parts, ":"));
  return out;
}
} // namespace

bool is_venv(const env::EnvRecord& env) { return env.kind == env::EnvKind::venv || env.kind == env::EnvKind::uv; }

bool pins_by_default(const env::EnvRecord& env, const std::optional<repair::Manifest>& previous) {
  if (previous) return previous->pin;
  return is_venv(env);
}

repair::PlanRequest plan_request(const doctor::DoctorInputs& inputs, const std::optional<repair::Manifest>& previous,
                                 const PlanChoices& choices, const std::vector<std::string>& system_cuda_dirs) {
  repair::PlanRequest request;
  request.own_links = own_links(inputs.env.prefix, previous);
  request.pinned_now = pinned_now(previous);
  request.pin = choices.pin.value_or(choices.kernels || pins_by_default(inputs.env, previous));
  request.hold_any_ld_library_path = choices.kernels;
  const std::vector<launch::PathValue> recorded = previous ? previous->launches : std::vector<launch::PathValue>{};
  if (choices.this_shell) {
    const auto shell = launch::not_activated_value(inputs.base_ld_library_path, inputs.active_hook_entries);
    // This shell's launch last: it is the one a repair names as its own.
    std::vector<launch::PathValue> base = choices.forget_launches ? std::vector<launch::PathValue>{} : recorded;
    for (const auto& extra : choices.extra_launches) base = launch::record_launch(base, extra);
    request.launches = launch::record_launch(base, shell);
    request.not_activated_values = not_activated_values(shell, request.launches, system_cuda_dirs);
  } else {
    // The env's own plan, whatever shell asks (doctor's staleness): its recorded launches only.
    request.launches = recorded;
    request.not_activated_values =
        not_activated_values(recorded.empty() ? std::nullopt : recorded.back(), recorded, system_cuda_dirs);
  }
  request.activation = !is_venv(inputs.env);
  return request;
}

} // namespace condacuda::app
