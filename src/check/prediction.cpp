#include "check/prediction.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace condacuda::check {

namespace {
struct ComponentSpec {
  Component component;
  const char* inventory_id; // inventory::Library::component
  const char* stem;
};
// The probe's dlopen order: the driver; cudart; cublasLt before cublas
// (torch does, so that cublas's NEEDED finds the Lt already loaded rather
// than one through RUNPATH: docs/gpu-check.md, "cuBLAS"); cusparse before
// nvJitLink, so that cusparse's NEEDED libnvJitLink is searched for like in a
// consumer (an nvJitLink opened first would satisfy it by soname and hide an
// older one on LD_LIBRARY_PATH).
constexpr ComponentSpec specs[] = {
    {Component::driver, "", "libcuda.so."},
    {Component::cudart, "cudart", "libcudart.so."},
    {Component::cublaslt, "cublaslt", "libcublasLt.so."},
    {Component::cublas, "cublas", "libcublas.so."},
    {Component::cusparse, "cusparse", "libcusparse.so."},
    {Component::nvjitlink, "nvjitlink", "libnvJitLink.so."},
};

std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().string(); }

// The env's library for a component: the highest CUDA major first, then the
// inventory's order (component, then file).
const inventory::Library* choose(const inventory::Inventory& inv, const ComponentSpec& spec) {
  const inventory::Library* best = nullptr;
  for (const auto& lib : inv.libraries) {
    if (lib.component != spec.inventory_id || lib.soname.rfind(spec.stem, 0) != 0) continue;
    if (!best || lib.cuda_major > best->cuda_major) best = &lib;
  }
  return best;
}

// The absolute paths that are "the env's file": the real file and the env's
// symlinks to it (conda: lib/libcublas.so.13 -> libcublas.so.13.1.0.3).
std::set<std::string> env_paths(const inventory::Inventory& inv, const inventory::Library& lib) {
  std::set<std::string> out{normal(inv.prefix + "/" + lib.file)};
  for (const auto& n : lib.names) out.insert(normal(inv.prefix + "/" + n));
  return out;
}

std::string root_path(const loader::LoadReport& r) {
  if (r.root < 0 || static_cast<std::size_t>(r.root) >= r.objects.size()) return "";
  return r.objects[static_cast<std::size_t>(r.root)].name;
}

void record_prediction(PlannedLibrary& planned, const loader::LoadReport& r) {
  planned.predicted_loads = r.ok;
  planned.predicted_path = r.ok ? root_path(r) : "";
  if (!r.ok && r.first) planned.predicted_error = r.first->kind == loader::ErrorKind::assertion ? r.first->text : r.first->message();
  if (!r.edges.empty()) {
    planned.predicted_via = loader::to_string(r.edges.front().via);
    planned.predicted_entry = r.edges.front().element;
    for (const auto& c : r.edges.front().tried) planned.tried.push_back(c.path);
  }
}

// By soname when that finds the env's file with this environment, else by path.
void choose_open(PlannedLibrary& planned, const inventory::Inventory& inv, const inventory::Library& lib,
                 loader::Simulator& sim, const loader::Process& p) {
  loader::LoadReport trial = sim.trial_dlopen(p, lib.soname, loader::Binding::now);
  std::string found = trial.ok ? normal(root_path(trial)) : "";
  if (trial.ok && env_paths(inv, lib).count(found)) {
    planned.request.open = lib.soname;
    planned.reason = "the activated search path finds the env's file by soname";
    return;
  }
  planned.request.open = planned.env_file;
  if (!trial.ok && trial.first && trial.first->kind == loader::ErrorKind::not_found)
    planned.reason = "no " + lib.soname + " on the activated search path: opened by path, as the env's consumers find it through RUNPATH";
  else if (!trial.ok)
    planned.reason = "by soname it fails to load (" + (trial.first ? trial.first->message() : std::string("?")) +
                     "): opened by path";
  else
    planned.reason = "by soname the loader finds " + found + " (" + loader::to_string(trial.edges.front().via) +
                     "), not the env's: opened by path, as the env's consumers find it through RUNPATH";
}
} // namespace

const char* soname_stem(Component c) {
  for (const auto& s : specs)
    if (s.component == c) return s.stem;
  return "";
}

std::vector<LibraryRequest> ProbePlan::requests() const {
  std::vector<LibraryRequest> out;
  for (const auto& l : libraries) out.push_back(l.request);
  return out;
}

ProbePlan plan_probe(const inventory::Inventory& inv, const loader::LoaderConfig& config,
                     loader::FileSystemView& files, const std::string& probe_program) {
  ProbePlan plan;
  loader::Simulator sim(config, files);
  loader::Process p;
  loader::LoadReport started = sim.start_program(p, probe_program, probe_program);
  if (!started.ok && !(started.first && started.first->lazy_only))
    plan.startup_error = started.first ? started.first->message() : "the probe program does not start";
  for (const auto& spec : specs) {
    PlannedLibrary planned;
    planned.request.component = spec.component;
    if (spec.component == Component::driver) {
      planned.soname = planned.request.open = "libcuda.so.1"; // never libcuda.so (docs/gpu-check.md, "Driver")
      planned.reason = "the driver is not part of the env: by soname";
    } else {
      const inventory::Library* lib = choose(inv, spec);
      if (!lib) {
        plan.missing.push_back(to_string(spec.component));
        continue;
      }
      plan.cuda_major = std::max(plan.cuda_major, lib->cuda_major);
      planned.soname = lib->soname;
      planned.env_file = normal(inv.prefix + "/" + lib->file);
      choose_open(planned, inv, *lib, sim, p);
    }
    // dlopen leaves the process unchanged when it fails, like the real one.
    record_prediction(planned, sim.dlopen(p, planned.request.open, loader::Binding::now, loader::Visibility::local));
    plan.libraries.push_back(std::move(planned));
  }
  for (const auto& o : p.objects)
    if (!o.is_main && !o.faked && !o.name.empty()) plan.predicted_objects.push_back(o.name);
  return plan;
}

// ---- comparison ---------------------------------------------------------------

std::vector<LibraryComparison> compare_libraries(const ProbePlan& plan, const ProbeResult& probe,
                                                 const Canonicalize& canonical) {
  std::vector<LibraryComparison> out;
  for (const auto& planned : plan.libraries) {
    LibraryComparison c;
    c.component = planned.request.component;
    const LibraryLoad* actual = probe.library(c.component);
    if (!actual) {
      c.matches = false;
      c.difference = "the probe did not report it";
    } else if (actual->loaded != planned.predicted_loads) {
      c.matches = false;
      c.difference = std::string("predicted ") + (planned.predicted_loads ? "to load" : "to fail") + ", but it " +
                     (actual->loaded ? "loaded from " + actual->path : "failed: " + actual->error);
    } else if (actual->loaded && canonical(actual->path) != canonical(planned.predicted_path)) {
      c.matches = false;
      c.difference = "predicted " + planned.predicted_path + ", loaded " + actual->path;
    } else if (!actual->loaded && actual->error != planned.predicted_error) {
      c.matches = false;
      c.difference = "predicted error [" + planned.predicted_error + "], got [" + actual->error + "]";
    }
    out.push_back(std::move(c));
  }
  return out;
}

ObjectsComparison compare_objects(const ProbePlan& plan, const ProbeResult& probe, const Canonicalize& canonical) {
  ObjectsComparison c;
  if (probe.loaded_objects.empty()) return c;
  c.compared = true;
  // Objects without a path (the executable, the vDSO) are not files the
  // loader searched for.
  auto collect = [&](const std::vector<std::string>& names) {
    std::set<std::string> out;
    for (const auto& n : names)
      if (n.find('/') != std::string::npos) out.insert(canonical(n));
    return out;
  };
  std::set<std::string> predicted = collect(plan.predicted_objects), actual = collect(probe.loaded_objects);
  std::set_difference(actual.begin(), actual.end(), predicted.begin(), predicted.end(),
                      std::back_inserter(c.only_in_probe));
  std::set_difference(predicted.begin(), predicted.end(), actual.begin(), actual.end(),
                      std::back_inserter(c.only_in_prediction));
  c.matches = c.only_in_probe.empty() && c.only_in_prediction.empty();
  return c;
}

} // namespace condacuda::check
