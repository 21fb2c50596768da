#include "frameworks/program.hpp"

#include <algorithm>

#include "frameworks/runner.hpp"
#include "python/modules.hpp"
#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::frameworks {

const char* to_string(Verdict verdict) {
  switch (verdict) {
  case Verdict::loads: return "loads";
  case Verdict::fails: return "fails";
  case Verdict::cpu_fallback: return "cpu-fallback";
  case Verdict::unmodelled: return "unmodelled";
  }
  return "";
}

namespace {
std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string loader_text(const loader::LoadError& e) {
  return e.kind == loader::ErrorKind::assertion ? e.text : e.message();
}
} // namespace

// ------------------------------------------------------------------ helpers

const std::vector<std::vector<std::string>>& Runner::list(const std::string& name) const {
  static const std::vector<std::vector<std::string>> none;
  auto it = fw_.framework->lists.find(expand(name));
  return it == fw_.framework->lists.end() ? none : it->second;
}

std::string Runner::expand(std::string text) const {
  return util::replace_all(std::move(text), "{major}", std::to_string(fw_.cuda_major));
}

int Runner::loaded_index(const std::string& name) const {
  for (std::size_t i = 0; i < proc_.objects.size(); ++i) {
    const auto& o = proc_.objects[i];
    if (o.name == name || (o.soname && *o.soname == name) ||
        std::find(o.aliases.begin(), o.aliases.end(), name) != o.aliases.end())
      return static_cast<int>(i);
  }
  return -1;
}

void Runner::touch(const loader::LoadReport& report) {
  for (const auto& o : report.objects)
    if (!o.preexisting && !o.faked && (o.dev || o.ino)) out_.touched.insert({o.dev, o.ino});
}

bool Runner::maps_contain(const std::string& text) {
  for (const auto& o : proc_.objects) {
    if (o.name.empty() || o.is_main) continue;
    if (util::contains(files_.real_path(python::abspath(o.name, view_.launch.cwd)), text)) return true;
  }
  return false;
}

std::optional<PyError> Runner::dlopen(const std::string& path, loader::Visibility mode, int caller, ProgramOpen record,
                                      const char* exception) {
  auto report = sim_.dlopen(proc_, path, loader::Binding::now, mode, caller);
  touch(report);
  record.path = path;
  record.ok = report.ok;
  if (report.ok) {
    out_.opens.push_back(std::move(record));
    return std::nullopt;
  }
  const auto& e = *report.first;
  record.error = loader_text(e);
  out_.opens.push_back(std::move(record));
  PyError err{exception, loader_text(e), e, ""};
  if (!e.objname.empty()) err.failing_object = util::lexically_normal(python::abspath(e.objname, view_.launch.cwd));
  return err;
}

// _preload_cuda_deps's search: each sys.path entry in order; in it, each of
// the search's globs in order; the first match of the first entry with one.
std::optional<ProgramOpen> Runner::search(const std::string& folder, const std::string& pattern) {
  const Search& s = fw_.framework->searches.at(fw_.recipe->search);
  for (const auto& entry : view_.sys_path) {
    const std::string disk = entry.folder(view_.launch.cwd);
    if (!s.requires_folder.empty() && !view_.probe->exists(join(disk, s.requires_folder))) continue;
    for (const auto& g : s.globs) {
      if (util::contains(g, "{cuda_major}") && fw_.cuda_version.empty()) continue;
      std::string rel = util::replace_all(util::replace_all(g, "{folder}", folder), "{cuda_major}", std::to_string(fw_.cuda_major));
      rel = util::replace_all(rel, "{pattern}", pattern);
      const std::string dir = util::dir_name(rel), name = util::base_name(rel);
      auto hits = python::glob_in(join(entry.path, dir), join(disk, dir), name, *view_.probe);
      if (hits.empty()) continue;
      ProgramOpen found;
      found.step = StepKind::preload;
      found.library = pattern;
      found.path = hits.front();
      found.entry = entry.path;
      found.origin = entry.origin;
      return found;
    }
  }
  return std::nullopt;
}

// ------------------------------------------------------------------- steps

void Runner::import_ctypes() {
  // `import ctypes` (torch/__init__.py's first imports): its _ctypes
  // extension is the object ctypes.CDLL's dlopen is called from.
  int index = -1;
  if (!import_module("_ctypes", &index)) ctypes_ = index;
  out_.opens.clear();
}

std::optional<PyError> Runner::run(const std::vector<Step>& steps, const PyError* handling) {
  for (const auto& s : steps)
    if (auto err = step(s, handling)) return err;
  return std::nullopt;
}

std::optional<PyError> Runner::step(const Step& s, const PyError* handling) {
  switch (s.kind) {
  case StepKind::open: return open_file(s);
  case StepKind::raise_unless_named: return raise_unless_named(s, handling);
  case StepKind::preload: return preload(s);
  case StepKind::guard: return guard(s);
  case StepKind::import_module: return import_module(s.arg);
  case StepKind::import_all: return import_all(s);
  case StepKind::preload_modules: return preload_modules(s);
  case StepKind::import_first: return import_first(s);
  case StepKind::load_sonames: return load_sonames(s);
  case StepKind::cupy_preload: return cupy_preload(s);
  }
  return std::nullopt;
}

std::optional<PyError> Runner::open_file(const Step& s) {
  ProgramOpen record;
  record.step = StepKind::open;
  record.library = s.arg;
  auto err = dlopen(python::abspath(join(fw_.package_dir, s.arg), view_.launch.cwd), s.mode, ctypes_, record, "OSError");
  if (!err || s.body.empty()) return err;
  out_.opens.back().swallowed = true; // handled: the handler decides
  return run(s.body, &*err);
}

// torch: `if not any(lib.split(".")[0] in err.args[0] for ...): raise err`.
std::optional<PyError> Runner::raise_unless_named(const Step& s, const PyError* handling) {
  if (!handling) return std::nullopt;
  for (const auto& row : list(s.arg)) {
    if (row.size() < 2) continue;
    if (util::contains(handling->message, row[1].substr(0, row[1].find('.')))) return std::nullopt;
  }
  return *handling;
}

std::optional<PyError> Runner::preload(const Step& s) {
  for (const auto& row : list(s.arg)) {
    if (row.size() < 2) continue;
    if (row.size() > 2 && row[2].starts_with("cuda>=") && fw_.cuda_major < util::leading_number(row[2].substr(6))) continue;
    auto found = search(row[0], row[1]);
    if (!found) {
      if (s.missing == Missing::skip) continue;
      std::vector<std::string> entries;
      for (const auto& e : view_.sys_path) entries.push_back(e.path);
      return PyError{"ValueError", row[1] + " not found in the system path " + python::repr_str_list(entries), std::nullopt, ""};
    }
    const std::string path = found->path;
    if (auto err = dlopen(path, loader::Visibility::local, ctypes_, std::move(*found), "OSError")) return err;
  }
  return std::nullopt;
}

std::optional<PyError> Runner::guard(const Step& s) {
  if (!s.when_maps_contains.empty() && !maps_contain(s.when_maps_contains)) return std::nullopt;
  const std::size_t before = out_.opens.size();
  if (run(s.body, nullptr)) {
    for (std::size_t i = before; i < out_.opens.size(); ++i)
      if (!out_.opens[i].ok) out_.opens[i].swallowed = true;
  }
  return std::nullopt; // except Exception: pass
}

std::optional<PyError> Runner::import_module(const std::string& dotted, int* loaded) {
  const auto& in = view_.interpreter;
  auto spec = python::find_module(dotted, view_.sys_path, view_.launch.cwd, in.major, in.minor, *view_.probe);
  if (!spec.found) return PyError{"ModuleNotFoundError", "No module named '" + dotted + "'", std::nullopt, ""};
  if (spec.origin.empty() || spec.origin.ends_with(".py") || spec.origin.ends_with(".pyc")) return std::nullopt;
  ProgramOpen record;
  record.step = StepKind::import_module;
  record.library = dotted;
  if (auto err = dlopen(spec.origin, loader::Visibility::local, -1, record, "ImportError")) return err;
  if (loaded) *loaded = loaded_index(spec.origin);
  return std::nullopt;
}

std::optional<PyError> Runner::import_all(const Step& s) {
  const std::string folder = join(fw_.site_dir, s.arg);
  const auto suffixes = python::module_suffixes(view_.interpreter.major, view_.interpreter.minor);
  std::vector<std::string> names;
  for (const auto& n : view_.probe->list(folder))
    for (std::size_t k = 0; k < 3; ++k) // the extension suffixes
      if (n.ends_with(suffixes[k]) && n.size() > suffixes[k].size()) {
        names.push_back(n);
        break;
      }
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    ProgramOpen record;
    record.step = StepKind::import_all;
    record.library = n;
    if (auto err = dlopen(join(folder, n), loader::Visibility::local, -1, record, "ImportError")) return err;
  }
  return std::nullopt;
}

// JAX's _load(module, libraries): import nvidia.<module>, open each file
// under its __path__[0]/lib; ImportError and OSError swallowed.
std::optional<PyError> Runner::preload_modules(const Step& s) {
  const auto& in = view_.interpreter;
  for (const auto& row : list(s.arg)) {
    auto spec = python::find_module("nvidia." + row[0], view_.sys_path, view_.launch.cwd, in.major, in.minor, *view_.probe);
    if (!spec.found || !spec.package || spec.path.empty()) continue;
    for (std::size_t k = 1; k < row.size(); ++k) {
      ProgramOpen record;
      record.step = StepKind::preload_modules;
      record.library = row[k];
      if (dlopen(spec.path.front() + "/lib/" + row[k], loader::Visibility::local, ctypes_, record, "OSError"))
        out_.opens.back().swallowed = true;
    }
  }
  return std::nullopt;
}

// JAX's _import_extensions: the first package whose cuda_plugin_extension and _versions import.
std::optional<PyError> Runner::import_first(const Step& s) {
  for (const auto& pkg : s.modules) {
    const std::size_t before = out_.opens.size();
    int index = -1;
    if (!import_module(pkg + ".cuda_plugin_extension") && !import_module(pkg + "._versions", &index)) {
      versions_ = index;
      extensions_found_ = true;
      return std::nullopt;
    }
    for (std::size_t i = before; i < out_.opens.size(); ++i) out_.opens[i].swallowed = true;
  }
  return std::nullopt;
}

// JAX's _check_cuda_versions: each component read through XLA's stubs,
// which dlopen its soname from the _versions extension.
std::optional<PyError> Runner::load_sonames(const Step& s) {
  if (!view_.variable("JAX_SKIP_CUDA_CONSTRAINTS_CHECK").empty()) return std::nullopt;
  if (!extensions_found_) return PyError{"AssertionError", "", std::nullopt, ""};
  for (const auto& row : list(s.arg)) {
    if (row.size() < 2) continue;
    ProgramOpen record;
    record.step = StepKind::load_sonames;
    record.library = row[1];
    if (auto err = dlopen(row[1], loader::Visibility::local, versions_, record, "RuntimeError")) {
      err->message = "Unable to load " + row[0] + ". Is it installed?";
      return err;
    }
  }
  return std::nullopt;
}

// CuPy's _preload_library: only for a pip wheel whose _wheel.json lists the
// library; CuPy 14 asks cuda-pathfinder first and raises what it raises but
// DynamicLibNotFoundError; every other failure is a warning.
std::optional<PyError> Runner::cupy_preload(const Step& s) {
  if (!fw_.cupy_wheel || fw_.cupy_wheel->packaging != "pip") return std::nullopt;
  auto it = fw_.cupy_wheel->libs.find(s.arg);
  if (it == fw_.cupy_wheel->libs.end()) return std::nullopt;
  if (s.pathfinder) {
    auto err = pathfinder_load(s.arg);
    if (!err) return std::nullopt;
    if (err->type != "DynamicLibNotFoundError") return err;
  }
  cupy_fallback(s.arg, it->second);
  return std::nullopt;
}

} // namespace condacuda::frameworks
