#pragma once
// The recipe interpreter's state (frameworks/program.cpp, pathfinder.cpp):
// one simulated python process and the exception a step raises. Internal to
// frameworks/.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frameworks/program.hpp"

namespace condacuda::frameworks {

// A Python exception a step raised.
struct PyError {
  std::string type, message;
  std::optional<loader::LoadError> load;
  std::string failing_object;
};

class Runner {
public:
  Runner(const InstalledFramework& fw, const RecipeBook& book, const PythonView& view, loader::Simulator& sim,
         const loader::Process& host, loader::FileSystemView& files, ProgramResult& out)
      : fw_(fw), book_(book), view_(view), sim_(sim), proc_(host), files_(files), out_(out) {}

  void import_ctypes();
  std::optional<PyError> run(const std::vector<Step>& steps, const PyError* handling);

  // cuda-pathfinder's load_nvidia_dynamic_lib (pathfinder.cpp): nullopt
  // when loaded, else the error (DynamicLibNotFoundError or RuntimeError).
  std::optional<PyError> pathfinder_load(const std::string& lib, int depth = 0);
  const loader::Process& process() const { return proc_; }

private:
  std::optional<PyError> step(const Step& s, const PyError* handling);
  std::optional<PyError> open_file(const Step& s);
  std::optional<PyError> raise_unless_named(const Step& s, const PyError* handling);
  std::optional<PyError> preload(const Step& s);
  std::optional<PyError> guard(const Step& s);
  std::optional<PyError> import_module(const std::string& dotted, int* loaded_index = nullptr);
  std::optional<PyError> import_all(const Step& s);
  std::optional<PyError> preload_modules(const Step& s);
  std::optional<PyError> import_first(const Step& s);
  std::optional<PyError> load_sonames(const Step& s);
  std::optional<PyError> cupy_preload(const Step& s);
  void cupy_fallback(const std::string& lib, const CupyWheel::Preload& preload);

  // dlopen in the process; records the open; an error when it fails.
  std::optional<PyError> dlopen(const std::string& path, loader::Visibility mode, int caller, ProgramOpen record,
                                const char* exception);
  // The first file of (folder, pattern) the recipe's search finds on sys.path.
  std::optional<ProgramOpen> search(const std::string& folder, const std::string& pattern);
  bool maps_contain(const std::string& text);
  int loaded_index(const std::string& name) const; // by l_name, alias or soname; -1
  void touch(const loader::LoadReport& report);
  const std::vector<std::vector<std::string>>& list(const std::string& name) const;
  std::string expand(std::string text) const; // {major}
  std::vector<std::string> site_packages_dirs() const; // site.getsitepackages() with the user site

  const InstalledFramework& fw_;
  const RecipeBook& book_;
  const PythonView& view_;
  loader::Simulator& sim_;
  loader::Process proc_;
  loader::FileSystemView& files_;
  ProgramResult& out_;
  int ctypes_ = -1;   // the _ctypes extension: the caller of ctypes.CDLL
  int versions_ = -1; // JAX: the _versions extension import_first chose
  bool extensions_found_ = false;
  std::map<std::string, std::optional<PyError>> pathfinder_cache_; // functools.cache
};

} // namespace condacuda::frameworks
