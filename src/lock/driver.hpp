#pragma once
// The NVIDIA driver version, as the driver rule needs it. Pure parsing: the
// system layer reads /proc/driver/nvidia/version (sys/machine.hpp).
#include <optional>
#include <string>
#include <string_view>

namespace condacuda::lock {

struct DriverVersion {
  std::string version; // "580.65.06"
  int branch = 0;      // 580
  std::string source;  // where it was seen: "/proc/driver/nvidia/version", "--driver"
};

// "580.65.06" (or "580.65", "580") -> the version; nullopt when it is not
// dotted numbers.
std::optional<DriverVersion> parse_driver_version(std::string_view text, std::string source);

// The first line of /proc/driver/nvidia/version, e.g.
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ...
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build ...
// -> the first word of the NVRM line that is a driver version.
std::optional<DriverVersion> parse_proc_driver_version(std::string_view text);

} // namespace condacuda::lock
