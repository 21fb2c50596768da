#pragma once
// Everything about the target machine and process that ld.so's behaviour
// depends on but that is not stored in the ELF files (docs/loader-model.md §0). The model
// takes these as explicit values; sys/machine.cpp fills the defaults from the
// running machine.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loader/ld_so_cache.hpp"

namespace condacuda::loader {

struct LoaderConfig {
  int glibc_minor = 36;         // glibc 2.<minor>; hwcaps and cache rules depend on it
  std::uint16_t machine = 62;   // e_machine of the host (EM_X86_64)
  std::uint64_t page_size = 4096; // GLRO(dl_pagesize)
  // The largest private writable mapping the kernel grants (sys::commit_limit):
  // a larger bss cannot be mapped.
  std::uint64_t commit_limit = UINT64_MAX;
  std::string interp = "/lib64/ld-linux-x86-64.so.2"; // PT_INTERP path of ld.so
  std::string interp_soname = "ld-linux-x86-64.so.2";

  // System search dirs, each ending in '/' (Debian: /lib/x86_64-linux-gnu/ ...).
  std::vector<std::string> system_dirs{"/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/", "/lib/", "/usr/lib/"};
  std::string lib_token = "lib/x86_64-linux-gnu"; // $LIB
  std::string platform = "x86_64";                // $PLATFORM: AT_PLATFORM, or glibc's own (loader/cpu_caps.hpp)

  // Active glibc-hwcaps subdirectories, best first (x86-64-v4, -v3, -v2).
  std::vector<std::string> hwcaps_active{"x86-64-v3", "x86-64-v2"};
  // Legacy hwcap names enabled on this CPU in bit order (<= 2.36), e.g. {"x86_64"}.
  std::vector<std::string> legacy_hwcaps{"x86_64"};
  std::uint32_t isa_level_mask = 0x7; // bit n: ISA level n supported (bit 0 baseline)
  // GLRO(dl_osversion) up to glibc 2.35: the running kernel as 0xMMmmpp
  // (loader/abi_tag_rule.hpp); 0 = unknown, no kernel check.
  std::uint32_t kernel_version = 0;

  // Per process.
  std::optional<std::string> ld_library_path; // nullopt: unset
  std::string cwd = "/";
  bool secure = false;    // AT_SECURE: setuid/setgid
  bool bind_now = false;  // LD_BIND_NOW set non-empty

  std::shared_ptr<const LdSoCache> cache; // null: no /etc/ld.so.cache
};

// The lookup settings the cache needs, derived from the config.
CacheLookupConfig cache_lookup_config(const LoaderConfig& config);

// Subdirectories tried inside every search directory, best first, ending with
// "" (the directory itself) — docs/loader-model.md §4 for the configured glibc version.
std::vector<std::string> hwcaps_subdirs(const LoaderConfig& config);

} // namespace condacuda::loader
