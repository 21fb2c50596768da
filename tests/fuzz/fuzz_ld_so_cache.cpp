// libFuzzer target: the /etc/ld.so.cache parser and glibc's lookup over it
// (src/loader/ld_so_cache.cpp). How to build and run: see fuzz_elf.cpp.
// Checks: errors carry a message; a parse that succeeds can be looked up
// with every glibc behaviour the model knows (2.31, 2.36, 2.37+), and every
// key it holds is found or cleanly not found.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loader/ld_so_cache.hpp"

namespace {

namespace loader = condacuda::loader;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::vector<loader::CacheLookupConfig> configs() {
  loader::CacheLookupConfig modern;
  modern.glibc_minor = 37;
  modern.active_hwcaps = {"x86-64-v4", "x86-64-v3", "x86-64-v2"};
  modern.isa_level_mask = 0x1f;
  loader::CacheLookupConfig legacy;
  legacy.glibc_minor = 31;
  legacy.legacy_hwcap_mask = 0xffff;
  legacy.platform_bits = 1ull << 48;
  legacy.kernel_version = 0x050a00;
  loader::CacheLookupConfig aarch64;
  aarch64.required_flags = 0x0a03;
  return {loader::CacheLookupConfig{}, modern, legacy, aarch64};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto lookup_configs = configs();
  auto parsed = loader::parse_ld_so_cache(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size));
  if (!parsed) {
    check(!parsed.error().message.empty());
    return 0;
  }
  const loader::LdSoCache& cache = *parsed;
  std::vector<std::string> names = {"libc.so.6", "libcudart.so.12", "", "libfoo.so.01"};
  for (std::size_t i = 0; i < cache.entries.size() && i < 64; ++i) names.push_back(cache.entries[i].key);
  for (const auto& name : names)
    for (const auto& config : lookup_configs) (void)loader::cache_lookup(cache, name, config);
  for (std::size_t i = 0; i + 1 < names.size() && i < 32; ++i) (void)loader::dl_cache_libcmp(names[i], names[i + 1]);
  auto priorities = loader::hwcaps_priorities(cache.hwcaps_subdirs, lookup_configs[1].active_hwcaps);
  check(priorities.size() == cache.hwcaps_subdirs.size());
  for (const auto& e : cache.entries) (void)loader::is_hwcaps_entry(e);
  return 0;
}
