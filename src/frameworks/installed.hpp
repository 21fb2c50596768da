#pragma once
// Which frameworks the env's python would import, found as Python finds
// them (the first sys.path entry that has the module), with the release
// their dist-info says and the facts their recipes read: torch.version.cuda,
// the JAX plugin's CUDA major, CuPy's cupy/.data/_wheel.json. Pure: the file
// system only through python::PathProbe.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frameworks/recipes.hpp"
#include "python/sys_path.hpp"

namespace condacuda::frameworks {

// The interpreter, the launch and the sys.path they give, with the probe
// that answers for the file system: what a framework's import sees.
struct PythonView {
  python::Interpreter interpreter;
  python::PythonLaunch launch;
  std::vector<python::SysPathEntry> sys_path;
  std::shared_ptr<python::PathProbe> probe;
  // The variables the recipes read (CONDA_PREFIX, CUDA_HOME, CUDA_PATH,
  // CUPY_CUDA_LIB_PATH, JAX_SKIP_CUDA_CONSTRAINTS_CHECK), as this launch has them.
  std::map<std::string, std::string> variables;
  std::string variable(const std::string& name) const;
};

// cupy/.data/_wheel.json: what the wheel preloads, and where from.
struct CupyWheel {
  std::string cuda;      // "12.x"
  std::string packaging; // "pip" or "conda"
  struct Preload {
    std::string version;
    std::vector<std::string> filenames;
  };
  std::map<std::string, Preload> libs;
};

struct InstalledFramework {
  const Framework* framework = nullptr;
  std::string version;      // from the dist-info's METADATA ("" when none was found)
  std::string distribution; // its PEP 503 name ("torch", "jax-cuda12-pjrt")
  std::string package_dir;  // the module's folder, absolute
  std::string site_dir;     // the folder of the sys.path entry it came from, absolute
  std::string entry;        // that sys.path entry as written
  python::PathOrigin origin = python::PathOrigin::env_site;
  int cuda_major = -1;      // torch.version.cuda's, the JAX plugin's, CuPy's wheel's
  std::string cuda_version; // torch.version.cuda ("12.4"), "" when None or not read
  std::optional<CupyWheel> cupy_wheel;
  const Recipe* recipe = nullptr; // nullptr: no recipe covers this release
  std::string label() const; // "torch 2.6.0"
};

// The frameworks of `book` that `view`'s python imports: for each, the first
// sys.path entry that has its module (a JAX plugin once per CUDA major).
std::vector<InstalledFramework> find_frameworks(const RecipeBook& book, const PythonView& view);

// An NVIDIA library in nvidia/<component>/lib of a sys.path folder outside
// the env (the user site, a PYTHONPATH folder, a .pth's folder), with the
// wheel whose RECORD lists it.
struct SysPathLibrary {
  std::string entry;  // the sys.path entry as written
  python::PathOrigin origin = python::PathOrigin::user_site;
  std::string site;   // its folder, absolute
  std::string file;   // relative to `site` ("nvidia/nvjitlink/lib/libnvJitLink.so.12")
  std::string wheel, version; // "" when no RECORD lists it
  bool before_env_site = true; // on sys.path before the env's site-packages
};
std::vector<SysPathLibrary> nvidia_libraries_outside(const PythonView& view, const std::string& prefix);

// The wheel whose RECORD lists `file` (relative to the site folder `site`): its Name and Version.
std::pair<std::string, std::string> owner_wheel(const std::string& site, const std::string& file, python::PathProbe& probe);

// Whether `view`'s python finds any top-level module of the compiled book's
// frameworks: when none, there is nothing to judge (and the book is not made).
bool any_framework_importable(const PythonView& view);

// The dist-info of distribution `names` (PEP 503) in `folder`: its version, "" when none.
std::string dist_version_in(const std::string& folder, const std::vector<std::string>& names, python::PathProbe& probe,
                            std::string* found_name = nullptr);

// torch/version.py's `cuda = '12.4'` (or `cuda: Optional[str] = '12.4'`); "" for None or no such line.
std::string torch_version_cuda(const std::string& version_py);

// cupy/.data/_wheel.json; nullopt when it is not a JSON object.
std::optional<CupyWheel> parse_cupy_wheel(const std::string& json_text);

} // namespace condacuda::frameworks
