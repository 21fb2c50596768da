#include "frameworks/installed.hpp"

#include <algorithm>
#include <tuple>

#include "inventory/records.hpp"
#include "python/modules.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"

namespace condacuda::frameworks {

std::string PythonView::variable(const std::string& name) const {
  auto it = variables.find(name);
  return it == variables.end() ? "" : it->second;
}

std::string InstalledFramework::label() const {
  return framework->name + (version.empty() ? "" : " " + version);
}

std::string dist_version_in(const std::string& folder, const std::vector<std::string>& names, python::PathProbe& probe,
                            std::string* found_name) {
  for (const auto& entry : probe.list(folder)) {
    if (!entry.ends_with(".dist-info")) continue;
    // "{name}-{version}.dist-info", the name's '-' escaped as '_' (PEP 427).
    const auto dash = entry.find('-');
    if (dash == std::string::npos) continue;
    const std::string name = inventory::normalize_package_name(entry.substr(0, dash));
    bool wanted = false;
    for (const auto& n : names) wanted |= inventory::normalize_package_name(n) == name;
    if (!wanted) continue;
    auto text = probe.read_text(folder + "/" + entry + "/METADATA");
    if (!text) continue;
    auto meta = inventory::parse_metadata(*text);
    if (meta.version.empty()) continue;
    if (found_name) *found_name = inventory::normalize_package_name(meta.name.empty() ? name : meta.name);
    return meta.version;
  }
  return {};
}

std::string torch_version_cuda(const std::string& version_py) {
  std::string_view text = version_py;
  while (!text.empty()) {
    std::string_view line = util::trim(util::next_line(text));
    if (!line.starts_with("cuda")) continue;
    std::string_view rest = line.substr(4);
    if (rest.empty() || (rest.front() != ' ' && rest.front() != ':' && rest.front() != '=')) continue;
    auto eq = rest.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view value = util::trim(rest.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front())
      return std::string(value.substr(1, value.size() - 2));
    return {}; // None
  }
  return {};
}

std::optional<CupyWheel> parse_cupy_wheel(const std::string& json_text) {
  auto json = util::parse_json(json_text);
  if (!json || !json->is_object()) return std::nullopt;
  CupyWheel w;
  for (const auto& [key, value] : json->as_object()) {
    if (key == "cuda") w.cuda = value.as_string();
    else if (key == "packaging") w.packaging = value.as_string();
    else if (value.is_object()) {
      CupyWheel::Preload p;
      if (const auto* v = value.get("version")) p.version = v->as_string();
      if (const auto* f = value.get("filenames"); f && f->is_array())
        for (const auto& name : f->as_array()) p.filenames.push_back(name.as_string());
      w.libs[key] = std::move(p);
    }
  }
  return w;
}

std::pair<std::string, std::string> owner_wheel(const std::string& site, const std::string& file, python::PathProbe& probe) {
  for (const auto& entry : probe.list(site)) {
    if (!entry.ends_with(".dist-info")) continue;
    auto record = probe.read_text(site + "/" + entry + "/RECORD");
    if (!record) continue;
    bool listed = false;
    std::string_view text = *record;
    while (!text.empty() && !listed) listed = util::next_line(text).starts_with(file + ",");
    if (!listed) continue;
    auto meta = probe.read_text(site + "/" + entry + "/METADATA");
    if (!meta) continue;
    auto m = inventory::parse_metadata(*meta);
    return {m.name, m.version};
  }
  return {};
}

std::vector<SysPathLibrary> nvidia_libraries_outside(const PythonView& view, const std::string& prefix) {
  std::vector<SysPathLibrary> out;
  python::PathProbe& probe = *view.probe;
  bool env_site_seen = false;
  std::vector<std::string> seen;
  for (const auto& e : view.sys_path) {
    const std::string site = e.folder(view.launch.cwd);
    if (site == prefix || site.starts_with(prefix + "/")) {
      env_site_seen |= e.origin == python::PathOrigin::env_site;
      continue;
    }
    if (std::find(seen.begin(), seen.end(), site) != seen.end() || !probe.is_dir(site + "/nvidia")) continue;
    seen.push_back(site);
    for (const auto& component : probe.list(site + "/nvidia")) {
      const std::string dir = "nvidia/" + component + "/lib";
      for (const auto& name : probe.list(site + "/" + dir)) {
        if (!name.starts_with("lib") || name.find(".so") == std::string::npos) continue;
        SysPathLibrary lib{e.path, e.origin, site, dir + "/" + name, "", "", !env_site_seen};
        std::tie(lib.wheel, lib.version) = owner_wheel(site, lib.file, probe);
        out.push_back(std::move(lib));
      }
    }
  }
  return out;
}

namespace {
std::optional<InstalledFramework> find_one(const Framework& f, const std::string& module, const std::vector<std::string>& dists,
                                           int major, const PythonView& view) {
  python::PathProbe& probe = *view.probe;
  const auto& in = view.interpreter;
  auto spec = python::find_module(module, view.sys_path, view.launch.cwd, in.major, in.minor, probe);
  if (!spec.found || !spec.package || spec.path.empty()) return std::nullopt;
  InstalledFramework out;
  out.framework = &f;
  out.package_dir = spec.path.front();
  out.entry = spec.entry;
  for (const auto& e : view.sys_path)
    if (e.path == spec.entry) {
      out.origin = e.origin;
      out.site_dir = e.folder(view.launch.cwd);
      break;
    }
  out.version = dist_version_in(out.site_dir, dists, probe, &out.distribution);
  out.cuda_major = major;
  if (f.name == "torch") {
    if (auto text = probe.read_text(out.package_dir + "/version.py")) out.cuda_version = torch_version_cuda(*text);
    if (!out.cuda_version.empty()) out.cuda_major = util::leading_number(out.cuda_version);
  }
  if (f.name == "cupy") {
    if (auto text = probe.read_text(out.package_dir + "/.data/_wheel.json")) out.cupy_wheel = parse_cupy_wheel(*text);
    if (out.cupy_wheel) out.cuda_major = util::leading_number(out.cupy_wheel->cuda);
  }
  out.recipe = out.version.empty() ? nullptr : f.recipe_for(out.version);
  return out;
}
} // namespace

bool any_framework_importable(const PythonView& view) {
  const auto& in = view.interpreter;
  for (std::string_view top : compiled_top_level_modules())
    if (python::find_module(std::string(top), view.sys_path, view.launch.cwd, in.major, in.minor, *view.probe).found) return true;
  return false;
}

std::vector<InstalledFramework> find_frameworks(const RecipeBook& book, const PythonView& view) {
  std::vector<InstalledFramework> out;
  for (const auto& f : book.frameworks) {
    if (f.module.find("{major}") == std::string::npos) {
      if (auto found = find_one(f, f.module, f.distributions, -1, view)) out.push_back(std::move(*found));
      continue;
    }
    // One plugin per CUDA major (jax_plugins.xla_cuda12, xla_cuda13), each with its own distribution.
    for (int major : {12, 13}) {
      const std::string m = std::to_string(major);
      std::vector<std::string> dists;
      for (const auto& d : f.distributions)
        if (util::contains(d, "cuda" + m)) dists.push_back(d);
      if (auto found = find_one(f, util::replace_all(f.module, "{major}", m), dists, major, view))
        out.push_back(std::move(*found));
    }
  }
  return out;
}

} // namespace condacuda::frameworks
