#pragma once
// What the probe will open and where the loader model says each library comes
// from. The probe is condacuda itself started with the activated environment,
// so the prediction starts that program in the loader model and replays the
// probe's dlopen sequence (RTLD_NOW | RTLD_LOCAL) on it; the probe's own
// report (dlinfo, dl_iterate_phdr) is then compared with it. Pure: files
// through loader::FileSystemView, paths compared through a canonicaliser the
// caller supplies (realpath on disk).
#include <functional>
#include <string>
#include <vector>

#include "check/model.hpp"
#include "inventory/inventory.hpp"
#include "loader/simulator.hpp"

namespace condacuda::check {

// The soname stem the probe wants for each component ("libcublasLt.so.").
const char* soname_stem(Component c);

// One library of the plan: what the probe opens, why, and the model's verdict.
struct PlannedLibrary {
  LibraryRequest request;
  std::string soname;   // what consumers ask the loader for
  std::string env_file; // the env's file (absolute), "" for the driver
  std::string reason;   // why it is opened by soname or by path
  // The model's dlopen of `request.open` after the ones before it.
  bool predicted_loads = false;
  std::string predicted_path;  // the file the model maps ("" when it fails)
  std::string predicted_error; // the loader's text (dlerror) when it fails
  std::string predicted_via;   // the search step (loader::FoundVia name)
  std::string predicted_entry; // the search-list element that matched, as written (an LD_LIBRARY_PATH entry)
  std::vector<std::string> tried; // paths the search tried, in order (where it looked)
};

struct ProbePlan {
  int cuda_major = -1;                  // the env's CUDA major the libraries were chosen for
  std::vector<PlannedLibrary> libraries; // in dlopen order
  std::vector<std::string> missing;      // components the env does not have (their steps are skipped)
  std::string startup_error;             // the model could not start the probe program
  std::vector<std::string> predicted_objects; // every object mapped after the dlopens (names as ld.so has them)

  std::vector<LibraryRequest> requests() const;
};

// Chooses the env's library for each component (the highest CUDA major the
// env has), then walks the probe's dlopen sequence in the model: a library
// is opened by soname when the activated environment makes that soname
// resolve to the env's own file (what `condacuda repair`'s hook achieves),
// and by the env file's path otherwise (what its consumers reach through
// RUNPATH). `config.ld_library_path` is the activated value; `probe_program`
// the real path of the condacuda binary.
ProbePlan plan_probe(const inventory::Inventory& inv, const loader::LoaderConfig& config,
                     loader::FileSystemView& files, const std::string& probe_program);

// ---- comparison with what the probe reports --------------------------------

using Canonicalize = std::function<std::string(const std::string&)>;

struct LibraryComparison {
  Component component = Component::driver;
  bool matches = true;
  std::string difference; // one line, when it does not match
};

struct ObjectsComparison {
  bool compared = false; // the probe reported its objects
  bool matches = true;
  std::vector<std::string> only_in_probe;     // canonical paths
  std::vector<std::string> only_in_prediction;
};

std::vector<LibraryComparison> compare_libraries(const ProbePlan& plan, const ProbeResult& probe,
                                                 const Canonicalize& canonical);
ObjectsComparison compare_objects(const ProbePlan& plan, const ProbeResult& probe, const Canonicalize& canonical);

} // namespace condacuda::check
