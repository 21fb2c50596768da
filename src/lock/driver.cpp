#include "lock/driver.hpp"

#include "util/strings.hpp"

namespace condacuda::lock {

std::optional<DriverVersion> parse_driver_version(std::string_view text, std::string source) {
  text = util::trim(text);
  auto parts = util::split(text, ".");
  if (text.empty() || parts.size() > 3) return std::nullopt;
  for (const auto& p : parts)
    if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  // A branch is three digits since 2014 (340); a lone "2" or "13.0" is a CUDA
  // version or noise, not a driver.
  int branch = util::leading_number(parts.front());
  if (branch < 100) return std::nullopt;
  return DriverVersion{std::string(text), branch, std::move(source)};
}

std::optional<DriverVersion> parse_proc_driver_version(std::string_view text) {
  for (const auto& line : util::split(text, "\n")) {
    if (line.rfind("NVRM version:", 0) != 0) continue;
    for (const auto& word : util::split(line, " \t"))
      if (auto v = parse_driver_version(word, "/proc/driver/nvidia/version")) return v;
  }
  return std::nullopt;
}

} // namespace condacuda::lock
