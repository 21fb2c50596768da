#include "launch/hook_model.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace condacuda::launch {
namespace {

bool has_separator(std::string_view s) { return std::any_of(s.begin(), s.end(), is_hook_separator); }

std::vector<HookRecord>::iterator find_record(std::vector<HookRecord>& records, std::string_view prefix) {
  return std::find_if(records.begin(), records.end(), [&](const HookRecord& r) { return r.prefix == prefix; });
}

} // namespace

bool hook_accepts_prefix(std::string_view prefix) {
  return !prefix.empty() && prefix.find_first_of(":;") == std::string_view::npos && !has_separator(prefix);
}

std::optional<std::vector<HookRecord>> parse_hook_state(std::string_view state) {
  std::vector<HookRecord> records;
  std::size_t pos = 0;
  while (pos < state.size()) {
    HookRecord record;
    if (state[pos] == hook_field_separator) {
      record.was_set = true;
      ++pos;
    }
    if (pos >= state.size() || state[pos] != hook_record_separator) return std::nullopt;
    ++pos;
    const std::size_t prefix_end = state.find(hook_field_separator, pos);
    if (prefix_end == std::string_view::npos) return std::nullopt;
    record.prefix = std::string(state.substr(pos, prefix_end - pos));
    pos = prefix_end + 1;
    std::size_t entries_end = pos;
    while (entries_end < state.size() && !is_hook_separator(state[entries_end])) ++entries_end;
    record.entries = std::string(state.substr(pos, entries_end - pos));
    pos = entries_end;
    if (!hook_accepts_prefix(record.prefix) || record.entries.empty()) return std::nullopt;
    records.push_back(std::move(record));
  }
  return records;
}

std::string format_hook_state(const std::vector<HookRecord>& records) {
  std::string out;
  for (const auto& r : records) {
    if (r.was_set) out += hook_field_separator;
    out += hook_record_separator;
    out += r.prefix;
    out += hook_field_separator;
    out += r.entries;
  }
  return out;
}

std::optional<std::string> hook_entries_for(std::string_view state, std::string_view prefix) {
  auto records = parse_hook_state(state);
  if (!records) return std::nullopt;
  auto record = find_record(*records, prefix);
  if (record == records->end()) return std::nullopt;
  return record->entries;
}

bool remove_entries(std::string& value, const std::string& entries) {
  if (entries.empty()) return false;
  // The leftmost run, whole entries only: what the hooks do with ":<value>:".
  if (value == entries) {
    value.clear();
    return true;
  }
  if (value.rfind(entries + ":", 0) == 0) {
    value.erase(0, entries.size() + 1);
    return true;
  }
  std::string middle = ":" + entries + ":";
  if (auto pos = value.find(middle); pos != std::string::npos) {
    value.erase(pos, entries.size() + 1);
    return true;
  }
  std::string tail = ":" + entries;
  if (value.size() >= tail.size() && value.compare(value.size() - tail.size(), tail.size(), tail) == 0) {
    value.erase(value.size() - tail.size());
    return true;
  }
  return false;
}

std::optional<std::string> not_activated_value(const std::optional<std::string>& current,
                                               const std::optional<std::string>& added_before) {
  if (!current || !added_before) return current;
  std::string value = *current;
  if (!remove_entries(value, *added_before)) return current;
  if (value.empty()) return std::nullopt;
  return value;
}

std::optional<std::string> activate_ld_library_path(const std::optional<std::string>& current,
                                                    const std::vector<std::string>& folders,
                                                    const std::optional<std::string>& added_before) {
  if (folders.empty()) return current;
  // A ':' or ';' in the prefix cannot be written into LD_LIBRARY_PATH (the
  // loader splits on both): the hooks then leave the value alone (and say so).
  for (const auto& f : folders)
    if (f.find_first_of(":;") != std::string::npos) return current;
  std::string value = current.value_or("");
  if (added_before) remove_entries(value, *added_before);
  std::string added = util::join(folders, ":");
  return value.empty() ? added : added + ":" + value;
}

HookEnvironment hook_deactivate(HookEnvironment env, std::string_view prefix) {
  if (!hook_accepts_prefix(prefix) || !env.state) return env;
  auto records = parse_hook_state(*env.state);
  if (!records) return env;
  auto record = find_record(*records, prefix);
  if (record == records->end()) return env;
  const HookRecord gone = *record;
  records->erase(record);
  env.state = records->empty() ? std::nullopt : std::optional<std::string>(format_hook_state(*records));
  std::string value = env.ld_library_path.value_or("");
  if (remove_entries(value, gone.entries))
    env.ld_library_path = value.empty() && !gone.was_set ? std::nullopt : std::optional<std::string>(value);
  return env;
}

HookEnvironment hook_activate(HookEnvironment env, std::string_view prefix, const std::vector<std::string>& folders) {
  if (!hook_accepts_prefix(prefix) || folders.empty()) return env;
  env = hook_deactivate(std::move(env), prefix);
  std::vector<std::string> absolute;
  for (const auto& folder : folders) absolute.push_back(std::string(prefix) + "/" + folder);
  HookRecord record{std::string(prefix), env.ld_library_path.has_value(), util::join(absolute, ":")};
  env.state = env.state.value_or("") + format_hook_state({record});
  env.ld_library_path = activate_ld_library_path(env.ld_library_path, absolute, std::nullopt);
  return env;
}

} // namespace condacuda::launch
