// sys/machine: the facts read from this machine without starting a process.
#include <doctest/doctest.h>

#include <map>

#include "loader/cpu_caps.hpp"
#include "support/fixture.hpp"
#include "sys/machine.hpp"
#include "util/strings.hpp"

using namespace condacuda;

TEST_CASE("read_driver_version: the kernel module's file, or nothing") {
  fixture::TempDir dir("lock-io");
  fixture::write_file(dir / "version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 ...\n");
  auto v = sys::read_driver_version(dir / "version");
  REQUIRE(v);
  CHECK(v->version == "570.124.06");
  CHECK(v->branch == 570);
  CHECK_FALSE(sys::read_driver_version(dir / "absent"));
}

TEST_CASE("x86_legacy_caps: dl_hwcap and dl_platform as init_cpu_features sets them") {
  loader::X86CpuFeatures amd;
  amd.avx512cd = amd.avx512bw = amd.avx512dq = amd.avx512vl = true;
  amd.avx2 = amd.fma = amd.bmi1 = amd.bmi2 = amd.lzcnt = amd.movbe = amd.popcnt = true;
  auto caps = loader::x86_legacy_caps(amd);
  CHECK(caps.hwcaps == std::vector<std::string>{"x86_64"}); // only Intel gets more
  CHECK_FALSE(caps.platform);
  loader::X86CpuFeatures skylake_x = amd;
  skylake_x.intel = true;
  caps = loader::x86_legacy_caps(skylake_x);
  CHECK(caps.hwcaps == std::vector<std::string>{"x86_64", "avx512_1"});
  CHECK(caps.platform == "haswell");
  loader::X86CpuFeatures knights_landing = skylake_x;
  knights_landing.avx512er = knights_landing.avx512pf = true;
  caps = loader::x86_legacy_caps(knights_landing);
  CHECK(caps.hwcaps == std::vector<std::string>{"x86_64"});
  CHECK(caps.platform == "xeon_phi");
  loader::X86CpuFeatures ivy_bridge;
  ivy_bridge.intel = ivy_bridge.popcnt = true;
  CHECK_FALSE(loader::x86_legacy_caps(ivy_bridge).platform);
  CHECK(loader::legacy_hwcap_bits({"x86_64", "avx512_1"}, 62) == 0x6);
  CHECK(loader::platform_hwcap_bits("haswell", 62) == std::uint64_t{1} << 50);
  CHECK(loader::platform_hwcap_bits("x86_64", 62) == 0);
}

TEST_CASE("the legacy hwcaps and platform the model reads agree with ld.so --list-diagnostics") {
  auto facts = sys::detect_machine();
  auto r = fixture::run({facts.config.interp, "--list-diagnostics"}, {{"LC_ALL", "C"}});
  std::map<std::string, std::string> diag;
  for (const auto& line : util::split(r.out, "\n")) {
    auto eq = line.find('=');
    if (eq != std::string::npos) diag[line.substr(0, eq)] = line.substr(eq + 1);
  }
  if (r.status != 0 || !diag.count("dl_platform")) {
    MESSAGE("this ld.so has no --list-diagnostics (glibc < 2.33): nothing to compare");
    return;
  }
  std::uint64_t hwcap = std::stoull(diag["dl_hwcap"], nullptr, 16);
  std::uint64_t important = std::stoull(diag["dl_hwcap_important"], nullptr, 16);
  std::uint64_t string_platform = std::stoull(diag["dl_string_platform"], nullptr, 16);
  CHECK("\"" + facts.config.platform + "\"" == diag["dl_platform"]);
  CHECK(loader::legacy_hwcap_bits(facts.config.legacy_hwcaps, facts.config.machine) == (hwcap & important));
  auto cache = loader::cache_lookup_config(facts.config);
  CHECK(cache.legacy_hwcap_mask == (hwcap & important));
  CHECK(cache.platform_bits == (string_platform == ~std::uint64_t{0} ? 0 : std::uint64_t{1} << string_platform));
}
