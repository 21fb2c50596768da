#include "sys/machine.hpp"
#include "sys/shell_environment.hpp"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <cstdlib>
#include <sys/auxv.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "loader/abi_tag_rule.hpp"
#include "loader/cpu_caps.hpp"
#include "loader/glibc_release.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "util/strings.hpp"
#include "util/path.hpp"

namespace condacuda::sys {

namespace {
// The system's glibc, found from the dynamic loader that native programs
// name in PT_INTERP: libc.so.6 is beside its real path, and the release is in
// its name before 2.34 (ld-2.31.so), in libc.so.6's banner after. Found once.
struct SystemGlibc {
  std::string libc_path;              // empty: no glibc here (musl, a bare container)
  std::optional<std::string> release; // "2.36"
};

// The interpreter of the running machine's native programs.
std::string native_interp() {
#if defined(__aarch64__)
  return "/lib/ld-linux-aarch64.so.1";
#else
  return "/lib64/ld-linux-x86-64.so.2";
#endif
}

const SystemGlibc& system_glibc() {
  static const SystemGlibc found = [] {
    SystemGlibc g;
    std::string loader = canonical_path(native_interp());
    if (loader.empty()) return g;
    std::string libc = util::dir_name(loader) + "/libc.so.6";
    if (!path_exists(libc)) return g;
    g.libc_path = libc;
    g.release = loader::glibc_release_from_loader_name(util::base_name(loader));
    if (!g.release)
      if (auto bytes = map_file(libc)) g.release = loader::glibc_release_from_libc(bytes->data);
    return g;
  }();
  return found;
}

// Debian's multiarch layout puts libc in /lib/<triplet>/ and searches
// /lib/<triplet>/, /usr/lib/<triplet>/, /lib/, /usr/lib/ with $LIB =
// lib/<triplet>; upstream uses /lib64/ and /usr/lib64/ with $LIB = lib64.
void detect_dirs(loader::LoaderConfig& c, const std::string& libc_path) {
  std::string dir = util::dir_name(libc_path);
  auto lib_pos = dir.find("/lib/");
  if (lib_pos != std::string::npos && dir.find('-', lib_pos) != std::string::npos) {
    std::string triplet = util::base_name(dir);
    c.system_dirs = {"/lib/" + triplet + "/", "/usr/lib/" + triplet + "/", "/lib/", "/usr/lib/"};
    c.lib_token = "lib/" + triplet;
  } else {
    c.system_dirs = {"/lib64/", "/usr/lib64/"};
    c.lib_token = "lib64";
  }
}

void detect_cpu(loader::LoaderConfig& c) {
  if (auto* platform = reinterpret_cast<const char*>(getauxval(AT_PLATFORM))) c.platform = platform;
#if defined(__x86_64__)
  c.machine = 62;
  c.interp = native_interp();
  c.interp_soname = "ld-linux-x86-64.so.2";
  __builtin_cpu_init();
  bool v2 = __builtin_cpu_supports("x86-64-v2"), v3 = __builtin_cpu_supports("x86-64-v3"),
       v4 = __builtin_cpu_supports("x86-64-v4");
  c.hwcaps_active.clear();
  if (v4) c.hwcaps_active.push_back("x86-64-v4");
  if (v3) c.hwcaps_active.push_back("x86-64-v3");
  if (v2) c.hwcaps_active.push_back("x86-64-v2");
  c.isa_level_mask = 1u | (v2 ? 2u : 0u) | (v3 ? 4u : 0u) | (v4 ? 8u : 0u);
  loader::X86CpuFeatures cpu;
  cpu.intel = __builtin_cpu_is("intel");
  cpu.avx512cd = __builtin_cpu_supports("avx512cd");
  cpu.avx512er = __builtin_cpu_supports("avx512er");
  cpu.avx512pf = __builtin_cpu_supports("avx512pf");
  cpu.avx512bw = __builtin_cpu_supports("avx512bw");
  cpu.avx512dq = __builtin_cpu_supports("avx512dq");
  cpu.avx512vl = __builtin_cpu_supports("avx512vl");
  cpu.avx2 = __builtin_cpu_supports("avx2");
  cpu.fma = __builtin_cpu_supports("fma");
  cpu.bmi1 = __builtin_cpu_supports("bmi");
  cpu.bmi2 = __builtin_cpu_supports("bmi2");
  cpu.lzcnt = __builtin_cpu_supports("lzcnt");
  cpu.movbe = __builtin_cpu_supports("movbe");
  cpu.popcnt = __builtin_cpu_supports("popcnt");
  auto caps = loader::x86_legacy_caps(cpu);
  c.legacy_hwcaps = caps.hwcaps;
  if (caps.platform) c.platform = *caps.platform;
#elif defined(__aarch64__)
  c.machine = 183;
  c.interp = native_interp();
  c.interp_soname = "ld-linux-aarch64.so.1";
  c.hwcaps_active.clear();
  c.legacy_hwcaps.clear();
  c.isa_level_mask = 1;
#endif
}

// GLRO(dl_osversion) as glibc up to 2.35 found it when the vDSO has no
// version note: uname's release.
std::uint32_t kernel_version() {
  struct utsname uts {};
  if (::uname(&uts) != 0) return 0;
  return loader::kernel_version_from_release(uts.release);
}
} // namespace

std::uint64_t commit_limit() {
  if (auto mode = read_text_file("/proc/sys/vm/overcommit_memory", 64); mode && !mode->empty() && (*mode)[0] == '1')
    return UINT64_MAX;
  struct sysinfo info {};
  if (::sysinfo(&info) != 0) return UINT64_MAX;
  return (static_cast<std::uint64_t>(info.totalram) + info.totalswap) * info.mem_unit;
}

std::uint16_t host_machine() {
#if defined(__aarch64__)
  return 183;
#else
  return 62;
#endif
}

MachineFacts detect_machine(const std::string& cache_path) {
  MachineFacts facts;
  loader::LoaderConfig& c = facts.config;
  detect_cpu(c);
  c.kernel_version = kernel_version();
  const SystemGlibc& glibc = system_glibc();
  // Unknown (no glibc found): the newest rules the model has, 2.36's.
  c.glibc_minor = glibc.release ? loader::glibc_minor_of(*glibc.release).value_or(36) : 36;
  c.page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  c.commit_limit = commit_limit();
  detect_dirs(c, glibc.libc_path);
  c.ld_library_path = shell_environment().ld_library_path;
  if (const char* bn = std::getenv("LD_BIND_NOW")) c.bind_now = *bn != '\0';
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd)) c.cwd = cwd;
  c.secure = getauxval(AT_SECURE) != 0;
  auto bytes = map_file(cache_path);
  if (bytes) {
    auto cache = loader::parse_ld_so_cache(bytes->data);
    if (cache) c.cache = std::make_shared<const loader::LdSoCache>(std::move(*cache));
    else facts.notes.push_back(cache_path + " is corrupt (" + cache.error().message + "); ignored, as ld.so does");
  }
  return facts;
}

std::optional<lock::DriverVersion> read_driver_version(const std::string& path) {
  auto text = read_text_file(path, read_cap::config);
  if (!text) return std::nullopt;
  return lock::parse_proc_driver_version(*text);
}

namespace {
// A variable's value (std::getenv's), unset when empty.
std::optional<std::string> variable(const char* value) {
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}
} // namespace

DeclaredNode declared_node() { return {variable(std::getenv("CONDACUDA_DRIVER")), variable(std::getenv("CONDACUDA_GPU"))}; }

Result<std::optional<lock::DriverVersion>> node_driver_version() {
  if (auto declared = declared_node().driver) {
    auto parsed = lock::parse_driver_version(*declared, "CONDACUDA_DRIVER");
    if (!parsed)
      return make_error(ErrorCode::bad_input, "CONDACUDA_DRIVER='" + util::terminal_safe(*declared) +
                                                  "' is not a driver version (e.g. 535.104.05)");
    return std::optional(*parsed);
  }
  return read_driver_version();
}

std::string glibc_version() { return system_glibc().release.value_or("unknown"); }

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::optional<std::string> slurm_node_name() { return variable(std::getenv("SLURMD_NODENAME")); }

std::vector<std::string> read_gpu_models(const std::string& root) {
  std::vector<std::string> models;
  std::error_code ec;
  std::vector<std::string> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) dirs.push_back(entry.path().string());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    auto text = read_text_file(dir + "/information", read_cap::config);
    if (!text) continue;
    for (const auto& line : util::split(*text, "\n")) {
      if (!line.starts_with("Model:")) continue;
      std::string model(util::trim(std::string_view(line).substr(6)));
      if (!model.empty()) models.push_back(model);
      break;
    }
  }
  return models;
}

} // namespace condacuda::sys
