#include "doctor/gpu_coverage.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "inventory/components.hpp"
#include "util/embedded.hpp"
#include "util/strings.hpp"
#include "util/yaml.hpp"
#include "util/path.hpp"

namespace condacuda::doctor {

namespace {
Error bad(const std::string& source, const std::string& message) {
  return make_error(ErrorCode::bad_input, "GPU table: " + message, source);
}

// "9.0" -> {9, 0}; nullopt unless two numbers.
std::optional<std::pair<int, int>> capability(std::string_view s) {
  auto dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= s.size()) return std::nullopt;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != dot && !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  return std::make_pair(util::leading_number(s.substr(0, dot)), util::leading_number(s.substr(dot + 1)));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Whether `name` is a run of whole words of `model` (case-insensitive).
bool names_model(const std::string& name, const std::string& model) {
  const std::string n = lower(name), m = " " + lower(model) + " ";
  return m.find(" " + n + " ") != std::string::npos;
}

Result<GpuTable> parse_v1(const YAML::Node& root, const std::string& source) {
  GpuTable t;
  if (YAML::Node name = root["name"]; name && name.IsScalar()) t.name = name.Scalar();
  YAML::Node gpus = root["gpus"];
  if (!gpus || !gpus.IsSequence()) return bad(source, "'gpus' is missing or not a list");
  for (const auto& g : gpus) {
    if (!g.IsMap() || !g["cc"] || !g["cc"].IsScalar() || !g["names"] || !g["names"].IsSequence())
      return bad(source, "a 'gpus' entry needs cc and names");
    auto cc = capability(g["cc"].Scalar());
    if (!cc) return bad(source, "compute capability '" + g["cc"].Scalar() + "' is not X.Y");
    GpuModel m{cc->first, cc->second, {}, "", {}};
    if (YAML::Node since = g["since_cuda"]) {
      if (!since.IsScalar() || !capability(since.Scalar())) return bad(source, "since_cuda '" + since.Scalar() + "' is not X.Y");
      m.since_cuda = since.Scalar();
    }
    for (const auto& n : g["names"]) {
      if (!n.IsScalar() || n.Scalar().empty()) return bad(source, "a GPU name is not a string");
      m.names.push_back(n.Scalar());
    }
    if (YAML::Node dc = g["data_center"]) {
      if (!dc.IsSequence()) return bad(source, "data_center of " + g["cc"].Scalar() + " is not a list");
      for (const auto& n : dc) {
        if (!n.IsScalar() || std::find(m.names.begin(), m.names.end(), n.Scalar()) == m.names.end())
          return bad(source, "data_center of " + g["cc"].Scalar() + " names a GPU that is not among its names");
        m.data_center.push_back(n.Scalar());
      }
    }
    t.gpus.push_back(std::move(m));
  }
  if (YAML::Node drivers = root["drivers"]) {
    if (!drivers.IsSequence()) return bad(source, "'drivers' is not a list");
    for (const auto& d : drivers) {
      if (!d.IsMap() || !d["branch"] || !d["cuda"] || !d["ptx_isa"]) return bad(source, "a 'drivers' entry needs branch, cuda, ptx_isa");
      DriverBranch b{util::leading_number(d["branch"].Scalar()), d["cuda"].Scalar(), d["ptx_isa"].Scalar()};
      if (b.branch <= 0 || !capability(b.cuda) || !capability(b.ptx_isa)) return bad(source, "a 'drivers' entry is not numbers");
      t.drivers.push_back(std::move(b));
    }
    std::sort(t.drivers.begin(), t.drivers.end(), [](const auto& a, const auto& b) { return a.branch < b.branch; });
  }
  if (YAML::Node ext = root["external_kernels"]) {
    if (!ext.IsSequence()) return bad(source, "'external_kernels' is not a list");
    for (const auto& c : ext) t.external_kernels.insert(c.Scalar());
  }
  return t;
}

bool isa_at_most(const std::string& isa, const std::optional<std::string>& limit) {
  return !limit || util::compare_versions(isa, *limit) <= 0;
}

std::string isa_of(const elf::FatbinEntry& e) {
  return std::to_string(e.version_major) + "." + std::to_string(e.version_minor);
}

// Whether entry `e` (of its kind) is for an architecture that runs on `d`.
bool arch_fits(const elf::FatbinEntry& e, const Device& d) {
  const int a = static_cast<int>(e.arch);
  if (e.arch_specific) return a == d.arch();
  if (e.kind == elf::FatbinCodeKind::sass) return a / 10 == d.major && a % 10 <= d.minor;
  if (e.family) return a / 10 == d.major && a % 10 <= d.minor;
  return a <= d.arch();
}
// The newest release of CUDA `major` the release table lists `lib`'s
// component in: {"12.9.1", "12.5.10.65"} for cuSPARSE and 12.
std::optional<ReleaseAddingArch> newest_of_major(const inventory::Library& lib, int major, const lock::ReleaseTable& releases) {
  std::optional<ReleaseAddingArch> out;
  const std::string& column = releases.column_for(lib.component);
  for (const auto& row : releases.releases) // oldest first
    if (util::leading_number(row.release) == major)
      if (auto v = row.components.find(column); v != row.components.end()) out = ReleaseAddingArch{row.release, v->second};
  return out;
}

// What gives the file a kernel for `device`: for a GPU older than Turing
// (sm_75), which CUDA 13 no longer builds for, the component's CUDA 12 build
// (named without a version it cannot have: the CUDA 12 package, and the
// newest CUDA 12 release the release table knows); else a build (a newer
// release, for a new GPU) that targets the device.
std::string no_kernel_fix(const inventory::Library* lib, const Device& device, const GpuTable& gpus,
                          const lock::ReleaseTable* releases) {
  const std::string package = lib && !lib->package.empty() ? lib->package + " " + lib->version : "its package";
  if (device.arch() < 75 && lib && lib->cuda_major >= 13) {
    if (device.arch() < 50) // CUDA 12.0 dropped Kepler: no CUDA 12 build helps either
      return "CUDA 13 builds nothing for GPUs before Turing (sm_75), nor CUDA 12 before Maxwell (sm_50): run on a newer GPU";
    const std::string wheel = inventory::wheel_for_component(lib->component, 12);
    std::string build = lib->manager == "pip" && !wheel.empty() ? "the CUDA 12 wheel " + wheel
                        : !lib->package.empty() ? "the CUDA 12 build of " + lib->package + " (cuda-version 12.x)"
                                                : "a CUDA 12 build of " + lib->component;
    std::string newest;
    if (releases)
      if (auto r = newest_of_major(*lib, 12, *releases))
        newest = "; the newest CUDA 12 release the release table knows, " + r->release + ", has " + lib->component + " " +
                 r->version;
    return "CUDA 13 builds nothing for GPUs before Turing (sm_75): on " + device.label + " replace " + package + " with " +
           build + " (CUDA 12 still builds " + device.sm() + newest + "), or run on a newer GPU";
  }
  if (lib && releases)
    if (auto newer = release_adding_arch(*lib, device, gpus, *releases)) {
      const std::string spec = lib->package + ">=" + newer->version;
      const std::string command = lib->manager == "pip"     ? "pip install --upgrade '" + spec + "'"
                                  : lib->manager == "conda" ? "conda install '" + spec + "' (or mamba/pixi)"
                                                            : "install " + spec;
      return "CUDA builds for " + device.sm() + " from " + gpus.since_cuda(device.major, device.minor) + " on: " +
             command + " (CUDA " + newer->release + ")";
    }
  return "install a build of " + package + " that targets " + device.sm() +
         " (for a GPU newer than the build, a newer release), or run on a GPU it targets";
}

// A PTX entry would serve `device` if the driver compiled its ISA. On a Data
// Center GPU, NVIDIA's forward-compatibility package brings a newer CUDA
// driver (and PTX JIT) to an older driver branch.
std::string driver_fix(const Coverage& c, const Device& device, const GpuTable& gpus) {
  auto needed = gpus.first_driver_for_ptx_isa(c.needs_ptx_isa);
  std::string out = needed ? "update the NVIDIA driver to branch " + std::to_string(needed->branch) + " or newer (CUDA " +
                                 needed->cuda + "), or install a build with SASS for the GPU"
                           : "update the NVIDIA driver to one that compiles PTX ISA " + c.needs_ptx_isa +
                                 ", or install a build with SASS for the GPU";
  if (device.data_center) {
    std::string compat = "cuda-compat";
    if (needed) {
      std::string cuda = needed->cuda;
      std::replace(cuda.begin(), cuda.end(), '.', '-');
      compat = "cuda-compat-" + cuda + " from NVIDIA's repositories, or cuda-compat on conda";
    }
    out += "; or, on this Data Center GPU, NVIDIA's CUDA forward-compatibility package (" + compat +
           "), which runs " + (needed ? "CUDA " + needed->cuda : std::string("a newer CUDA")) +
           " on an older driver branch where NVIDIA's compatibility table supports that branch";
  }
  return out;
}
} // namespace

std::optional<DriverBranch> GpuTable::first_driver_for_ptx_isa(const std::string& isa) const {
  for (const auto& d : drivers)
    if (util::compare_versions(d.ptx_isa, isa) >= 0) return d;
  return std::nullopt;
}

std::string GpuTable::since_cuda(int major, int minor) const {
  for (const auto& g : gpus)
    if (g.major == major && g.minor == minor) return g.since_cuda;
  return "";
}

std::optional<ReleaseAddingArch> release_adding_arch(const inventory::Library& lib, const Device& device,
                                                     const GpuTable& gpus, const lock::ReleaseTable& releases) {
  const std::string since = gpus.since_cuda(device.major, device.minor);
  if (since.empty() || lib.version.empty()) return std::nullopt;
  const std::string& column = releases.column_for(lib.component);
  for (const auto& row : releases.releases) { // in file order: oldest first
    if (util::compare_versions(lock::series_of(row.release), since) < 0) continue;
    auto v = row.components.find(column);
    if (v == row.components.end()) continue;
    if (util::compare_versions(lib.version, v->second) >= 0) return std::nullopt; // has that release or newer
    return ReleaseAddingArch{row.release, v->second};
  }
  return std::nullopt;
}

std::optional<DriverBranch> GpuTable::driver(int branch) const {
  std::optional<DriverBranch> out;
  for (const auto& d : drivers)
    if (d.branch <= branch) out = d;
  return out;
}

Result<GpuTable> parse_gpu_table(std::string_view yaml_text, const std::string& source_name) {
  auto loaded = util::load_yaml(yaml_text);
  if (!loaded) return bad(source_name, loaded.error().message);
  try {
    const YAML::Node& root = *loaded;
    if (!root.IsMap() || !root["version"] || root["version"].Scalar() != "1")
      return bad(source_name, "not a condacuda GPU table (expected a mapping starting with 'version: 1')");
    return parse_v1(root, source_name);
  } catch (const YAML::Exception& e) {
    return bad(source_name, std::string("ill-typed value: ") + e.msg);
  }
}

Result<GpuTable> embedded_gpu_table() {
  auto text = util::embedded_asset("templates/gpus.yml");
  if (!text) return make_error(ErrorCode::internal, "the GPU table is not embedded", "templates/gpus.yml");
  auto table = parse_gpu_table(*text, "templates/gpus.yml");
  if (!table) return make_error(ErrorCode::internal, table.error().message, table.error().path);
  return table;
}

Result<Device> parse_device(std::string_view text, const GpuTable& table) {
  std::string t(text);
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (!t.starts_with(prefix)) continue;
    std::string digits = t.substr(prefix.size());
    while (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
    const int arch = util::leading_number(digits);
    if (arch >= 10 && std::to_string(arch) == digits) return Device{t, arch / 10, arch % 10, false};
  }
  if (auto cc = capability(t)) return Device{t, cc->first, cc->second, false};
  const GpuModel* best = nullptr;
  std::string best_name;
  for (const auto& g : table.gpus)
    for (const auto& n : g.names)
      if (names_model(n, t) && n.size() > best_name.size()) best = &g, best_name = n;
  if (best) {
    const bool dc = std::find(best->data_center.begin(), best->data_center.end(), best_name) != best->data_center.end();
    return Device{best_name, best->major, best->minor, dc};
  }
  return make_error(ErrorCode::bad_input,
                    "unknown GPU '" + t + "': give sm_XY, X.Y, or a name of the GPU table (e.g. V100, A100, H100, B200)");
}

Coverage coverage_for(const elf::FatbinSummary& code, const Device& device,
                      const std::optional<std::string>& driver_ptx_isa) {
  Coverage out;
  for (const auto& e : code.entries)
    if (e.kind == elf::FatbinCodeKind::sass && arch_fits(e, device))
      return {CoverageKind::sass, elf::target_name(e), "", ""};
  std::string too_new;
  for (const auto& e : code.entries) {
    if (e.kind != elf::FatbinCodeKind::ptx || !arch_fits(e, device)) continue;
    if (isa_at_most(isa_of(e), driver_ptx_isa)) return {CoverageKind::ptx_jit, elf::target_name(e), "", ""};
    if (out.needs_ptx_isa.empty() || util::compare_versions(isa_of(e), out.needs_ptx_isa) < 0) {
      out.needs_ptx_isa = isa_of(e); // the oldest ISA that would serve
      too_new = elf::target_name(e) + " (PTX ISA " + isa_of(e) + ")";
    }
  }
  std::vector<std::string> sass = code.sass_targets(), ptx = code.ptx_targets();
  out.why = "it has " + (sass.empty() ? std::string("no SASS") : "SASS " + util::join(sass, " ")) + " and " +
            (ptx.empty() ? std::string("no PTX") : "PTX " + util::join(ptx, " ")) + "; " + device.sm() + " runs " +
            (too_new.empty() ? "none of them"
                             : "only " + too_new + ", which needs a driver that compiles PTX ISA " +
                                   too_new.substr(too_new.rfind(' ') + 1, too_new.size() - too_new.rfind(' ') - 2));
  return out;
}

std::vector<Finding> coverage_findings(const DoctorReport& report, const FatbinSource& fatbin_of,
                                       const std::vector<Device>& devices, const std::optional<DriverBranch>& driver,
                                       const GpuTable& table, const lock::ReleaseTable* releases) {
  const std::string prefix = report.inputs.env.prefix;
  std::map<std::string, const inventory::Library*> library_of; // absolute path -> the env's library
  for (const auto& lib : report.inputs.inventory.libraries) library_of[prefix + "/" + lib.file] = &lib;
  std::map<std::string, std::optional<elf::FatbinSummary>> seen; // absolute path -> its fatbin
  std::map<std::pair<std::string, std::string>, Finding> by_file_device;
  std::vector<std::pair<std::string, std::string>> order;
  const std::optional<std::string> isa = driver ? std::optional<std::string>(driver->ptx_isa) : std::nullopt;
  bool judged = false;   // a loaded file of the env carries GPU code
  std::size_t unloaded = 0;
  for (const auto& root : report.roots) {
    if (!root.loads) {
      ++unloaded;
      continue;
    }
    for (const auto& obj : root.report.objects) {
      const std::string path = std::filesystem::path(obj.name).lexically_normal().string();
      if (!path.starts_with(prefix + "/")) continue;
      const auto lib = library_of.find(path);
      const inventory::Library* library = lib == library_of.end() ? nullptr : lib->second;
      if (library && table.external_kernels.count(library->component)) continue;
      auto [it, fresh] = seen.try_emplace(path);
      if (fresh) it->second = fatbin_of(path);
      const auto& code = it->second;
      if (!code || !code->has_section || code->entries.empty()) continue;
      judged = true;
      const std::string rel = path.substr(prefix.size() + 1);
      for (const auto& device : devices) {
        Coverage c = coverage_for(*code, device, isa);
        if (c.kind == CoverageKind::sass) continue;
        auto key = std::make_pair(rel, device.label);
        auto [f, added] = by_file_device.try_emplace(key);
        if (added) {
          order.push_back(key);
          Finding& x = f->second;
          x.library = util::base_name(rel);
          x.expected = rel;
          if (c.kind == CoverageKind::none && !c.needs_ptx_isa.empty() && driver) {
            x.code = code::driver_too_old;
            x.severity = Severity::error;
            x.title = x.library + " runs on " + device.label + " (" + device.sm() + ") only through PTX ISA " +
                      c.needs_ptx_isa + ", newer than the driver compiles";
            x.evidence.push_back(c.why);
            x.first_error = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain";
            x.fix = driver_fix(c, device, table);
          } else if (c.kind == CoverageKind::none) {
            x.code = code::no_kernel_image;
            x.severity = Severity::error;
            x.title = x.library + " has no kernel for " + device.label + " (" + device.sm() + ")";
            x.evidence.push_back(c.why);
            x.first_error = "CUDA error: no kernel image is available for execution on the device";
            x.fix = no_kernel_fix(library, device, table, releases);
          } else {
            x.code = code::ptx_jit_only;
            x.severity = Severity::warning;
            x.title = x.library + " runs on " + device.label + " (" + device.sm() + ") only through PTX JIT (" +
                      c.target + ")";
            x.evidence.push_back("no SASS for " + device.sm() + "; the driver compiles " + c.target +
                                 " at the first launch (minutes for a large library; cached in ~/.nv/ComputeCache)");
            x.fix = "install a build with SASS for " + device.sm() + ", or set CUDA_CACHE_MAXSIZE large enough to keep "
                    "the compiled kernels";
          }
          if (driver) x.evidence.push_back("driver branch " + std::to_string(driver->branch) + " compiles PTX ISA up to " +
                                           driver->ptx_isa + " (CUDA " + driver->cuda + ")");
        }
        Finding& x = f->second;
        if (std::find(x.affects.begin(), x.affects.end(), root.file) == x.affects.end()) x.affects.push_back(root.file);
      }
    }
  }
  std::vector<Finding> out;
  for (const auto& key : order) out.push_back(std::move(by_file_device[key]));
  if (!judged && !devices.empty()) {
    std::vector<std::string> labels;
    for (const auto& d : devices) labels.push_back(d.label);
    Finding x;
    x.code = code::no_gpu_code;
    x.severity = Severity::info;
    x.title = "no library of this env that loads carries GPU code: nothing judged for --gpu " + util::join(labels, ", ");
    x.evidence.push_back("no .nv_fatbin with kernels in the env's files that the " + std::to_string(report.roots.size() - unloaded) +
                         " files that load map" + (table.external_kernels.empty() ? "" : " (" + util::join({table.external_kernels.begin(), table.external_kernels.end()}, ", ") + " keep their kernels elsewhere and are not judged)"));
    x.fix = "nothing to change for --gpu; `condacuda info` lists each library's GPU code";
    if (unloaded) x.evidence.push_back(std::to_string(unloaded) + " root" + (unloaded == 1 ? " does" : "s do") + " not load and " +
                                       (unloaded == 1 ? "is" : "are") + " not judged");
    out.push_back(std::move(x));
  }
  return out;
}

} // namespace condacuda::doctor
