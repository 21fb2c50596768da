#include "loader/cpu_caps.hpp"

namespace condacuda::loader {

namespace {
constexpr std::uint16_t em_x86_64 = 62;
constexpr int first_platform_bit = 48; // _DL_FIRST_PLATFORM
} // namespace

X86LegacyCaps x86_legacy_caps(const X86CpuFeatures& cpu) {
  X86LegacyCaps caps;
  caps.hwcaps.push_back("x86_64");
  if (!cpu.intel) return caps;
  if (cpu.avx512cd) {
    if (cpu.avx512er) {
      if (cpu.avx512pf) caps.platform = "xeon_phi";
    } else if (cpu.avx512bw && cpu.avx512dq && cpu.avx512vl) {
      caps.hwcaps.push_back("avx512_1");
    }
  }
  if (!caps.platform && cpu.avx2 && cpu.fma && cpu.bmi1 && cpu.bmi2 && cpu.lzcnt && cpu.movbe && cpu.popcnt)
    caps.platform = "haswell";
  return caps;
}

std::uint64_t legacy_hwcap_bits(const std::vector<std::string>& names, std::uint16_t machine) {
  if (machine != em_x86_64) return 0;
  std::uint64_t bits = 0;
  for (const auto& name : names) {
    // _dl_x86_hwcap_flags from HWCAP_START (1 on x86-64: "sse2" is i386's).
    if (name == "x86_64") bits |= 1u << 1;
    else if (name == "avx512_1") bits |= 1u << 2;
  }
  return bits;
}

std::uint64_t platform_hwcap_bits(const std::string& platform, std::uint16_t machine) {
  if (machine != em_x86_64) return 0;
  // _dl_x86_platforms from HWCAP_PLATFORMS_START (2 on x86-64).
  if (platform == "haswell") return std::uint64_t{1} << (first_platform_bit + 2);
  if (platform == "xeon_phi") return std::uint64_t{1} << (first_platform_bit + 3);
  return 0;
}

} // namespace condacuda::loader
