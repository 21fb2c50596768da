// cuda-pathfinder's load_nvidia_dynamic_lib and CuPy's own preload fallback,
// as the recipe interpreter runs them; and run_program, which drives it.
//
// cuda-pathfinder, read at NVIDIA/cuda-python tag cuda-pathfinder-v1.3.4 (the
// releases CuPy 14 accepts start at 1.3.3): _dynamic_libs/
// load_nvidia_dynamic_lib.py L26-L59 (_load_lib_no_cache), find_nvidia_
// dynamic_lib.py (site-packages: the user site first when enabled, then
// site.getsitepackages(); per folder the exact lib<name>.so, else the first
// file of sorted(glob(lib<name>.so*)); $CONDA_PREFIX/lib and
// $CUDA_HOME|$CUDA_PATH/lib64: the exact name), load_dl_linux.py
// (RTLD_NOW|RTLD_GLOBAL; "already loaded" is RTLD_NOLOAD of the sonames
// newest first, then lib<name>.so; a found file that fails raises
// RuntimeError("Failed to dlopen PATH: ERROR")).
#include <algorithm>

#include "frameworks/runner.hpp"
#include "python/modules.hpp"
#include "util/strings.hpp"

namespace condacuda::frameworks {

namespace {
std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir.back() == '/' ? dir + name : dir + "/" + name;
}
} // namespace

std::vector<std::string> Runner::site_packages_dirs() const {
  std::vector<std::string> out;
  for (const auto& e : view_.sys_path)
    if (e.origin == python::PathOrigin::user_site) out.push_back(e.path);
  const auto& in = view_.interpreter;
  std::vector<std::string> prefixes{in.prefix};
  if (in.venv && in.include_system_site_packages) prefixes.push_back(in.base_prefix);
  for (const auto& prefix : prefixes)
    for (auto& dir : python::site_packages_of(in, prefix, in.venv))
      if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(std::move(dir));
  return out;
}

std::optional<PyError> Runner::pathfinder_load(const std::string& lib, int depth) {
  if (auto it = pathfinder_cache_.find(lib); it != pathfinder_cache_.end()) return it->second;
  const std::string wanted = "lib" + lib + ".so";
  auto not_found = PyError{"DynamicLibNotFoundError", "Failure finding \"" + wanted + "\"", std::nullopt, ""};
  auto known = book_.pathfinder.find(lib);
  if (known == book_.pathfinder.end() || depth > 8) return pathfinder_cache_[lib] = not_found;
  const PathfinderLib& table = known->second;
  python::PathProbe& probe = *view_.probe;
  std::string found;
  for (const auto& rel : table.dirs) {
    for (const auto& parent : site_packages_dirs()) {
      const std::string dir = join(parent, rel);
      if (!probe.is_dir(dir)) continue;
      if (probe.is_file(join(dir, wanted))) {
        found = join(dir, wanted);
      } else {
        auto hits = python::glob_in(dir, dir, wanted + "*", probe);
        std::sort(hits.begin(), hits.end());
        for (const auto& h : hits)
          if (probe.is_file(h)) {
            found = h;
            break;
          }
      }
      if (!found.empty()) break;
    }
    if (!found.empty()) break;
  }
  const std::string conda = view_.variable("CONDA_PREFIX");
  if (found.empty() && !conda.empty() && probe.is_file(conda + "/lib/" + wanted)) found = conda + "/lib/" + wanted;
  std::vector<std::string> sonames(table.sonames.rbegin(), table.sonames.rend());
  sonames.push_back(wanted);
  bool already = std::any_of(sonames.begin(), sonames.end(), [&](const std::string& s) { return loaded_index(s) >= 0; });
  for (const auto& dep : table.deps)
    if (auto err = pathfinder_load(dep, depth + 1)) return pathfinder_cache_[lib] = err;
  if (already) return pathfinder_cache_[lib] = std::nullopt;
  ProgramOpen record;
  record.step = StepKind::cupy_preload;
  record.library = lib;
  if (found.empty()) {
    for (const auto& s : sonames)
      if (!dlopen(s, loader::Visibility::global, ctypes_, record, "OSError")) return pathfinder_cache_[lib] = std::nullopt;
      else out_.opens.back().swallowed = true;
    std::string home = view_.variable("CUDA_HOME");
    if (home.empty()) home = view_.variable("CUDA_PATH");
    if (home.empty() || !probe.is_file(home + "/lib64/" + wanted)) return pathfinder_cache_[lib] = not_found;
    found = home + "/lib64/" + wanted;
  }
  auto err = dlopen(found, loader::Visibility::global, ctypes_, record, "RuntimeError");
  if (err) err->message = "Failed to dlopen " + found + ": " + err->message;
  return pathfinder_cache_[lib] = err;
}

// CuPy's fallback after pathfinder (v13.6.0 cupy/_environment.py L313-L468):
// the library's wheel (cutensor-cuXX: cutensor/lib/libcutensor.so.MAJOR;
// nvidia-nccl-cuXX: nvidia/nccl/lib/libnccl.so.MAJOR), then
// $CUPY_CUDA_LIB_PATH (default ~/.cupy/cuda_lib)/<cuda>/<lib>/<version>/
// {lib,lib64,bin}/<filename>; the first that exists is opened (a failure is
// a warning, the next is tried); none: ctypes.CDLL(<filename>). Nothing raises.
void Runner::cupy_fallback(const std::string& lib, const CupyWheel::Preload& preload) {
  std::vector<std::string> candidates;
  const std::string major = std::to_string(fw_.cuda_major), version_major = std::to_string(util::leading_number(preload.version));
  const std::string wheel = lib == "cutensor" ? "cutensor-cu" + major : lib == "nccl" ? "nvidia-nccl-cu" + major : "";
  if (!wheel.empty())
    for (const auto& e : view_.sys_path) {
      const std::string site = e.folder(view_.launch.cwd);
      if (dist_version_in(site, {wheel}, *view_.probe).empty()) continue;
      candidates.push_back(lib == "cutensor" ? site + "/cutensor/lib/libcutensor.so." + version_major
                                             : site + "/nvidia/nccl/lib/libnccl.so." + version_major);
      break;
    }
  std::string root = view_.variable("CUPY_CUDA_LIB_PATH");
  if (root.empty()) root = (view_.launch.home ? *view_.launch.home : view_.launch.passwd_home) + "/.cupy/cuda_lib";
  for (const auto& filename : preload.filenames)
    for (const char* sub : {"lib", "lib64", "bin"})
      candidates.push_back(root + "/" + fw_.cupy_wheel->cuda + "/" + lib + "/" + preload.version + "/" + sub + "/" + filename);
  bool existed = false;
  ProgramOpen record;
  record.step = StepKind::cupy_preload;
  record.library = lib;
  for (const auto& c : candidates) {
    if (!view_.probe->exists(c)) continue;
    existed = true;
    if (!dlopen(c, loader::Visibility::local, ctypes_, record, "OSError")) return;
    out_.opens.back().swallowed = true;
  }
  if (existed) return;
  for (const auto& filename : preload.filenames)
    if (dlopen(filename, loader::Visibility::local, ctypes_, record, "OSError")) out_.opens.back().swallowed = true;
}

ProgramResult run_program(const InstalledFramework& fw, const RecipeBook& book, const PythonView& view,
                          loader::Simulator& sim, const loader::Process& host, loader::FileSystemView& files,
                          loader::Process* process) {
  ProgramResult out;
  out.framework = fw;
  if (!fw.recipe) {
    out.verdict = Verdict::unmodelled;
    return out;
  }
  Runner runner(fw, book, view, sim, process ? *process : host, files, out);
  runner.import_ctypes();
  if (auto err = runner.run(fw.recipe->steps, nullptr)) {
    out.verdict = fw.framework->failure == FailureMeans::cpu_fallback ? Verdict::cpu_fallback : Verdict::fails;
    out.exception = err->type;
    out.message = err->message;
    out.load_error = err->load;
    out.failing_object = err->failing_object;
  }
  const auto& objects = runner.process().objects;
  for (std::size_t i = host.objects.size(); i < objects.size(); ++i)
    if (!objects[i].faked) out.loaded.push_back({objects[i].soname.value_or(""), objects[i].name, objects[i].via});
  if (process) *process = runner.process();
  return out;
}

} // namespace condacuda::frameworks
