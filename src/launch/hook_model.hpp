#pragma once
// What the activation hooks (templates/hooks/*) do to LD_LIBRARY_PATH, as pure
// functions: doctor and `condacuda run` use them to know the value an activated env
// has without starting a shell. Kept in step with the scripts by tests: the same cases
// run through these functions and through the rendered hooks in real shells
// (tests/unit/test_hooks.cpp, tests/shell/).
//
// The hooks keep their state in one exported variable, CONDACUDA_HOOK_STATE, shared by
// the sh, fish and csh hooks: one record per env whose hook is active, in activation
// order,
//     [US] RS <prefix> US <entries>
// RS and US are the ASCII record and unit separators (0x1e, 0x1f); <entries> are the
// folders the hook put first, joined by ':'; the leading US is there when
// LD_LIBRARY_PATH was set (maybe empty) before the env's first activation. A prefix
// holding ':' or one of FS, GS, RS, US (0x1c-0x1f; the csh hook uses FS and GS as
// scratch marks) is never recorded: the hooks leave LD_LIBRARY_PATH alone for it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::launch {

inline constexpr std::string_view hook_state_variable = "CONDACUDA_HOOK_STATE";
inline constexpr char hook_record_separator = '\x1e'; // RS
inline constexpr char hook_field_separator = '\x1f';  // US
inline constexpr char hook_state_gs = '\x1d';         // GS, csh scratch mark
inline constexpr char hook_state_fs = '\x1c';         // FS, csh scratch mark

// FS, GS, RS or US: never part of a recorded prefix or entry.
constexpr bool is_hook_separator(char c) { return c >= '\x1c' && c <= '\x1f'; }

// Whether the hooks record an env at this prefix (else they leave LD_LIBRARY_PATH
// alone): not empty, no ':' or ';' (LD_LIBRARY_PATH cannot carry them), no separator.
bool hook_accepts_prefix(std::string_view prefix);

struct HookRecord {
  std::string prefix;
  bool was_set = false; // LD_LIBRARY_PATH was set (maybe empty) before the first activation
  std::string entries;  // what the hook put first, joined by ':'

  bool operator==(const HookRecord&) const = default;
};

// The records of a CONDACUDA_HOOK_STATE value; nullopt when it is not a sequence of
// well-formed records (an empty value has none).
std::optional<std::vector<HookRecord>> parse_hook_state(std::string_view state);
std::string format_hook_state(const std::vector<HookRecord>& records);

// The entries the record of `prefix` says its hook added, if the state has one.
std::optional<std::string> hook_entries_for(std::string_view state, std::string_view prefix);

// Removes the leftmost run of whole entries equal to `entries` (joined by
// ':') from `value`. Returns whether something was removed.
bool remove_entries(std::string& value, const std::string& entries);

// Activation: `folders` (absolute, in order) go first. `added_before` is what
// this env's hook added last time when it is already active in this shell
// (it is taken out first, so re-sourcing does not duplicate). An unset or
// empty value yields exactly the folders joined by ':', never an empty entry.
std::optional<std::string> activate_ld_library_path(const std::optional<std::string>& current,
                                                    const std::vector<std::string>& folders,
                                                    const std::optional<std::string>& added_before);

// The LD_LIBRARY_PATH of a launch from this shell that does not activate the
// env (a Jupyter kernel, cron, srun, an IDE): `current` without what the env's
// hook added here (`added_before`, when it is active in this shell). Empty
// means unset to ld.so (_dl_init_paths skips an empty value).
std::optional<std::string> not_activated_value(const std::optional<std::string>& current,
                                               const std::optional<std::string>& added_before);

// The two variables the hooks read and write; nullopt = unset.
struct HookEnvironment {
  std::optional<std::string> ld_library_path;
  std::optional<std::string> state; // CONDACUDA_HOOK_STATE

  bool operator==(const HookEnvironment&) const = default;
};

// Sourcing the activate.d hook of the env at `prefix` rendered for `folders` (relative
// to the prefix): a prefix the hooks do not accept changes nothing; an env already
// recorded is first deactivated (so re-sourcing changes nothing); then the folders go
// first and a record goes last in the state.
HookEnvironment hook_activate(HookEnvironment env, std::string_view prefix, const std::vector<std::string>& folders);

// Sourcing its deactivate.d hook: without a record for `prefix`, nothing changes;
// else the record goes (the variable too when none is left), and the leftmost run of
// its entries leaves LD_LIBRARY_PATH; if they were there and nothing is left, the
// variable is unset again when it was unset before the first activation.
HookEnvironment hook_deactivate(HookEnvironment env, std::string_view prefix);

} // namespace condacuda::launch
