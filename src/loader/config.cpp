#include "loader/config.hpp"

#include "loader/cpu_caps.hpp"

namespace condacuda::loader {

CacheLookupConfig cache_lookup_config(const LoaderConfig& config) {
  CacheLookupConfig c;
  c.glibc_minor = config.glibc_minor;
  c.active_hwcaps = config.hwcaps_active;
  c.isa_level_mask = config.isa_level_mask;
  c.legacy_hwcap_mask = legacy_hwcap_bits(config.legacy_hwcaps, config.machine);
  c.platform_bits = platform_hwcap_bits(config.platform, config.machine);
  c.kernel_version = config.kernel_version;
  if (config.machine == 183) c.required_flags = 0x0a03; // FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64
  return c;
}

namespace {
// The legacy power set of _dl_important_hwcaps (glibc <= 2.36): the names are
// [enabled hwcaps in bit order, $PLATFORM, "tls"]; entry k holds name i when
// bit i of (2^n - 1 - k) is set, joined from the highest index down.
std::vector<std::string> legacy_subdirs(const LoaderConfig& config) {
  std::vector<std::string> names = config.legacy_hwcaps;
  if (!config.platform.empty()) names.push_back(config.platform);
  names.push_back("tls");
  const std::size_t n = names.size();
  std::vector<std::string> out;
  for (std::size_t k = 0; k + 1 < (std::size_t{1} << n); ++k) {
    std::size_t bits = ((std::size_t{1} << n) - 1) - k;
    std::string dir;
    for (std::size_t i = n; i-- > 0;) {
      if (!(bits & (std::size_t{1} << i))) continue;
      if (!dir.empty()) dir += '/';
      dir += names[i];
    }
    out.push_back(dir + "/");
  }
  return out;
}
} // namespace

std::vector<std::string> hwcaps_subdirs(const LoaderConfig& config) {
  std::vector<std::string> out;
  if (config.glibc_minor >= 33)
    for (const auto& h : config.hwcaps_active) out.push_back("glibc-hwcaps/" + h + "/");
  if (config.glibc_minor <= 36) {
    auto legacy = legacy_subdirs(config);
    out.insert(out.end(), legacy.begin(), legacy.end());
  }
  out.push_back("");
  return out;
}

} // namespace condacuda::loader
