#include "repair/activation.hpp"

#include "util/strings.hpp"

namespace condacuda::repair {

bool remove_entries(std::string& value, const std::string& entries) {
  if (entries.empty()) return false;
  // The four cases of remove_entries.sh.in: whole value, at the start, in the
  // middle (leftmost), at the end.
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

std::optional<std::string> activate_ld_library_path(const std::optional<std::string>& current,
                                                    const std::vector<std::string>& folders,
                                                    const std::optional<std::string>& added_before) {
  if (folders.empty()) return current;
  // A ':' in the prefix cannot be written into LD_LIBRARY_PATH: the hooks then
  // leave the value alone (and say so).
  for (const auto& f : folders)
    if (f.find(':') != std::string::npos) return current;
  std::string value = current.value_or("");
  if (added_before) remove_entries(value, *added_before);
  std::string added = util::join(folders, ":");
  return value.empty() ? added : added + ":" + value;
}

} // namespace condacuda::repair
