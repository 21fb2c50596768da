#pragma once
// A launch of an env: the LD_LIBRARY_PATH its process starts with, and whether
// the env's condacuda hook ran first (conda activation) or not (a Jupyter
// kernel, cron, srun, an IDE, a venv's bin/python). The one home of what a
// launch sees: doctor judges this shell's launches, repair verifies its plan
// against every launch it recorded (the manifest's `launches`), lock --check
// and run use this shell's. Pure; the process environment is read once, by
// sys::shell_environment().
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::launch {

// An LD_LIBRARY_PATH value; nullopt: unset.
using PathValue = std::optional<std::string>;

// The two variables of this process's environment that launches depend on.
struct ShellEnvironment {
  PathValue ld_library_path;
  std::optional<std::string> hook_state; // CONDACUDA_HOOK_STATE (launch/hook_model.hpp)
};

// Where the LD_LIBRARY_PATH of an activated launch comes from, as `run` gives
// it to a command and `check` to its probe.
enum class ActivatedSource {
  hook,       // the env's condacuda hook applied
  plan,       // not repaired: the folders `condacuda repair` would put first
  as_is,      // the base value unchanged (asked for, or nothing to add)
  stale_hook, // the env changed since its repair: today's plan instead of the hook's folders
};
const char* to_string(ActivatedSource source); // "hook", "plan", "as-is", "stale-hook"

// This shell as one env sees it: LD_LIBRARY_PATH as it is, and what the env's
// hook added to it here, when the env was activated in this shell.
struct ShellState {
  PathValue ld_library_path;
  std::optional<std::string> hook_entries;
};
ShellState shell_for(const ShellEnvironment& environment, std::string_view prefix);

// What a launch from this shell that does not activate the env starts with:
// the value without the hook's entries. This is what repair records.
PathValue base_of(const ShellState& shell);

// Where the env's hook entries are in this shell's value.
struct HookPlacement {
  bool active = false;               // activated here, its entries still in the value
  std::vector<std::string> in_front; // entries put before them since (e.g. `module load` after activation)
};
HookPlacement hook_placement(const ShellState& shell);

// Two values a loader reads alike: unset and empty are the same to ld.so
// (_dl_init_paths skips an empty LD_LIBRARY_PATH).
bool same_value(const PathValue& a, const PathValue& b);

// The launches a repair verified, oldest first: `recorded` with `value` added
// last when it is not there yet (a launch recorded again stays where it is,
// so that alternating shells leave the manifest as it is); beyond
// `max_recorded_launches` the oldest go. `forget`: only `value` (repair
// --forget-launches).
inline constexpr std::size_t max_recorded_launches = 16;
std::vector<PathValue> record_launch(std::vector<PathValue> recorded, const PathValue& value, bool forget = false);
bool is_recorded(const std::vector<PathValue>& recorded, const PathValue& value);

// "'a:b'" or "(unset)", for people.
std::string describe(const PathValue& value);

} // namespace condacuda::launch
