#pragma once
// The legacy hwcap names and the platform glibc derives from the CPU
// (init_cpu_features, sysdeps/x86/cpu-features.c), and the bits of them that
// ldconfig writes into ld.so.cache entries (sysdeps/x86/dl-hwcap.h,
// dl-procinfo.c). Pure: sys/machine.cpp supplies the CPU's features.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace condacuda::loader {

// The CPU features init_cpu_features tests on x86-64, each "usable" (CPUID
// and the OS's XSAVE state agree).
struct X86CpuFeatures {
  bool intel = false;
  bool avx512cd = false, avx512er = false, avx512pf = false;
  bool avx512bw = false, avx512dq = false, avx512vl = false;
  bool avx2 = false, fma = false, bmi1 = false, bmi2 = false, lzcnt = false, movbe = false, popcnt = false;
};

struct X86LegacyCaps {
  std::vector<std::string> hwcaps;     // GLRO(dl_hwcap) as names, in bit order: "x86_64"[, "avx512_1"]
  std::optional<std::string> platform; // GLRO(dl_platform) when glibc replaces AT_PLATFORM: "haswell", "xeon_phi"
};

// init_cpu_features' x86-64 branch (glibc 2.26 to 2.41): dl_hwcap is
// HWCAP_X86_64, plus HWCAP_X86_AVX512_1 on Intel CPUs with AVX512CD, BW, DQ
// and VL but not ER; dl_platform becomes "xeon_phi" on Intel CPUs with
// AVX512CD, ER and PF, else "haswell" on Intel CPUs with AVX2, FMA, BMI1,
// BMI2, LZCNT, MOVBE and POPCNT. Other vendors keep the kernel's AT_PLATFORM.
X86LegacyCaps x86_legacy_caps(const X86CpuFeatures& cpu);

// GLRO(dl_hwcap) & GLRO(dl_hwcap_mask) for the enabled names (the mask's
// default, HWCAP_IMPORTANT, keeps "x86_64" and "avx512_1"): bit 1 for
// "x86_64", bit 2 for "avx512_1". Other machines: 0 (not modelled).
std::uint64_t legacy_hwcap_bits(const std::vector<std::string>& names, std::uint16_t machine);

// 1 << _dl_string_platform(platform), the platform field of a cache entry's
// hwcap (bits 48-51): "haswell" bit 50, "xeon_phi" bit 51 on x86-64; 0 for a
// platform glibc has no number for ("x86_64"), whose entries never match.
std::uint64_t platform_hwcap_bits(const std::string& platform, std::uint16_t machine);

} // namespace condacuda::loader
