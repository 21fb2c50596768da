#include "launch/launch.hpp"

#include <algorithm>

#include "launch/hook_model.hpp"
#include "util/strings.hpp"

namespace condacuda::launch {

const char* to_string(ActivatedSource source) {
  switch (source) {
  case ActivatedSource::hook: return "hook";
  case ActivatedSource::plan: return "plan";
  case ActivatedSource::as_is: return "as-is";
  case ActivatedSource::stale_hook: return "stale-hook";
  }
  return "as-is";
}

ShellState shell_for(const ShellEnvironment& environment, std::string_view prefix) {
  ShellState shell{environment.ld_library_path, std::nullopt};
  if (environment.hook_state) shell.hook_entries = hook_entries_for(*environment.hook_state, prefix);
  return shell;
}

PathValue base_of(const ShellState& shell) { return not_activated_value(shell.ld_library_path, shell.hook_entries); }

HookPlacement hook_placement(const ShellState& shell) {
  HookPlacement placement;
  if (!shell.hook_entries || !shell.ld_library_path) return placement;
  const std::vector<std::string> value = util::split(*shell.ld_library_path, ":");
  const std::vector<std::string> entries = util::split(*shell.hook_entries, ":");
  if (entries.empty() || entries.size() > value.size()) return placement;
  // The leftmost run of whole entries, as the hooks find it (remove_entries).
  for (std::size_t at = 0; at + entries.size() <= value.size(); ++at) {
    if (!std::equal(entries.begin(), entries.end(), value.begin() + static_cast<std::ptrdiff_t>(at))) continue;
    placement.active = true;
    placement.in_front.assign(value.begin(), value.begin() + static_cast<std::ptrdiff_t>(at));
    return placement;
  }
  return placement;
}

bool same_value(const PathValue& a, const PathValue& b) { return a.value_or("") == b.value_or(""); }

bool is_recorded(const std::vector<PathValue>& recorded, const PathValue& value) {
  return std::any_of(recorded.begin(), recorded.end(), [&](const PathValue& r) { return same_value(r, value); });
}

std::vector<PathValue> record_launch(std::vector<PathValue> recorded, const PathValue& value, bool forget) {
  if (forget) recorded.clear();
  if (is_recorded(recorded, value)) return recorded; // where it was: the same launches, the same manifest
  recorded.push_back(value && !value->empty() ? value : std::nullopt);
  if (recorded.size() > max_recorded_launches)
    recorded.erase(recorded.begin(), recorded.end() - static_cast<std::ptrdiff_t>(max_recorded_launches));
  return recorded;
}

std::string describe(const PathValue& value) { return value ? "'" + *value + "'" : std::string("(unset)"); }

} // namespace condacuda::launch
