#include "report/info_report.hpp"

#include "report/layout.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace condacuda::report {

using util::Json;

namespace {
Json string_array(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push(s);
  return a;
}

// {sass, ptx, ptx_isa, compressed, problems}, or null without a fatbin.
Json gpu_code_json(const std::optional<inventory::GpuCode>& code) {
  if (!code) return Json();
  Json j = Json::object();
  j.set("sass", string_array(code->sass));
  j.set("ptx", string_array(code->ptx));
  j.set("ptx_isa", code->ptx_isa.empty() ? Json() : Json(code->ptx_isa));
  j.set("compressed", code->compressed);
  j.set("problems", string_array(code->problems));
  return j;
}

// "sm_75 sm_80 | compute_90 (PTX 9.0)", "-" without GPU code.
std::string gpu_code_text(const std::optional<inventory::GpuCode>& code) {
  if (!code) return "-";
  std::string out = util::join(code->sass, " ");
  if (!code->ptx.empty())
    out += (out.empty() ? "" : " | ") + util::join(code->ptx, " ") + (code->ptx_isa.empty() ? "" : " (PTX " + code->ptx_isa + ")");
  if (!code->problems.empty()) out += (out.empty() ? "" : " ") + std::string("[damaged fatbin]");
  return out.empty() ? "(empty fatbin)" : out;
}

Json library_json(const inventory::Library& lib) {
  Json j = Json::object();
  j.set("component", lib.component);
  j.set("soname", lib.soname);
  j.set("file", lib.file);
  j.set("folder", lib.folder);
  j.set("names", string_array(lib.names));
  j.set("toolkit", lib.toolkit);
  Json pkg = Json::object();
  pkg.set("manager", lib.manager.empty() ? Json() : Json(lib.manager));
  pkg.set("name", lib.package.empty() ? Json() : Json(lib.package));
  pkg.set("version", lib.version.empty() ? Json() : Json(lib.version));
  if (!lib.build.empty()) pkg.set("build", lib.build);
  j.set("package", pkg);
  j.set("cuda_major", lib.cuda_major > 0 ? Json(lib.cuda_major) : Json());
  j.set("cuda_major_source", lib.cuda_major_source.empty() ? Json() : Json(lib.cuda_major_source));
  j.set("needed", string_array(lib.needed));
  j.set("gpu_code", gpu_code_json(lib.gpu_code));
  return j;
}

std::string package_label(const std::string& manager, const std::string& name, const std::string& version) {
  if (manager.empty()) return "-";
  return manager + ":" + name + " " + version;
}
} // namespace

Json frameworks_json(const app::EnvInfo& info) {
  Json a = Json::array();
  for (const auto& fw : info.frameworks) {
    Json j = Json::object();
    j.set("framework", fw.framework->name);
    j.set("distribution", fw.distribution.empty() ? Json() : Json(fw.distribution));
    j.set("version", fw.version.empty() ? Json() : Json(fw.version));
    j.set("cuda_major", fw.cuda_major >= 0 ? Json(fw.cuda_major) : Json());
    j.set("location", fw.package_dir);
    j.set("origin", python::to_string(fw.origin));
    j.set("recipe", fw.recipe ? Json(fw.recipe->id) : Json());
    j.set("recipe_source", fw.recipe ? Json(fw.recipe->source) : Json());
    j.set("inferred", fw.recipe && fw.recipe->inferred);
    a.push(std::move(j));
  }
  return a;
}

Json outside_json(const app::EnvInfo& info) {
  Json a = Json::array();
  for (const auto& lib : info.outside) {
    Json j = Json::object();
    j.set("file", lib.site + "/" + lib.file);
    j.set("sys_path_entry", lib.entry);
    j.set("origin", python::to_string(lib.origin));
    j.set("wheel", lib.wheel.empty() ? Json() : Json(lib.wheel));
    j.set("version", lib.version.empty() ? Json() : Json(lib.version));
    j.set("before_env_site_packages", lib.before_env_site);
    a.push(std::move(j));
  }
  return a;
}

Json info_json(const env::EnvRecord& env, const app::EnvInfo& info) {
  const inventory::Inventory& inv = info.inventory;
  Json j = Json::object();
  j.set("schema", "condacuda.info/1");
  j.set("env", env_json(env));
  j.set("cuda", inv.cuda_summary());
  Json majors = Json::array();
  for (int m : inv.cuda_majors) majors.push(m);
  j.set("cuda_majors", majors);
  j.set("site_packages", string_array(inv.site_packages));
  Json folders = Json::array();
  for (const auto& f : inv.folders) {
    Json fj = Json::object();
    fj.set("path", f.path);
    fj.set("layout", f.layout);
    fj.set("packages", string_array(f.packages));
    folders.push(fj);
  }
  j.set("library_folders", folders);
  Json libs = Json::array();
  for (const auto& lib : inv.libraries) libs.push(library_json(lib));
  j.set("components", libs);
  Json consumers = Json::array();
  for (const auto& c : inv.consumers) {
    Json cj = Json::object();
    cj.set("file", c.file);
    cj.set("needs", string_array(c.needs));
    cj.set("package", c.package.empty() ? Json() : Json(c.package));
    cj.set("gpu_code", gpu_code_json(c.gpu_code));
    consumers.push(cj);
  }
  j.set("consumers", consumers);
  j.set("pinned", string_array(inv.pinned));
  j.set("frameworks", frameworks_json(info));
  j.set("sys_path_libraries", outside_json(info));
  Json kernels = Json::array();
  for (const auto& k : info.kernels) {
    Json kj = Json::object();
    kj.set("name", k.spec.name);
    kj.set("dir", k.spec.dir);
    kj.set("runner", jupyter::to_string(k.run.runner));
    kj.set("activated", k.run.activated);
    kj.set("how", k.run.how);
    kernels.push(std::move(kj));
  }
  j.set("kernels", kernels);
  Json unreadable = Json::array();
  for (const auto& [file, why] : info.unreadable_kernelspecs) {
    Json u = Json::object();
    u.set("file", file);
    u.set("problem", why);
    unreadable.push(std::move(u));
  }
  j.set("unreadable_kernelspecs", unreadable);
  j.set("warnings", string_array(inv.warnings));
  return j;
}

std::string frameworks_text(const app::EnvInfo& info, const Style& style) {
  std::string out;
  if (!info.frameworks.empty()) {
    out += "\n" + style.bold("Frameworks") + " (what the env's python imports, and the recipe doctor judges the import by)\n";
    Table t({"FRAMEWORK", "VERSION", "CUDA", "RECIPE", "FROM"});
    for (const auto& fw : info.frameworks)
      t.add({fw.distribution.empty() ? fw.framework->name : fw.distribution, fw.version.empty() ? "?" : fw.version,
             fw.cuda_major >= 0 ? std::to_string(fw.cuda_major) : "?",
             fw.recipe ? fw.recipe->id + (fw.recipe->inferred ? " (inferred)" : "") : "none: judged library by library",
             python::to_string(fw.origin)});
    out += t.render(style, 2);
  }
  if (!info.outside.empty()) {
    out += "\n" + style.bold("NVIDIA libraries on sys.path outside the env") + "\n";
    Table t({"FILE", "WHEEL", "SYS.PATH"});
    for (const auto& lib : info.outside)
      t.add({lib.site + "/" + lib.file, lib.wheel.empty() ? "?" : lib.wheel + " " + lib.version,
             std::string(python::to_string(lib.origin)) + (lib.before_env_site ? ", before the env's" : ", after the env's")});
    out += t.render(style, 2);
  }
  if (!info.kernels.empty()) {
    out += "\n" + style.bold("Jupyter kernels") + " (kernelspecs that start the env's python; `condacuda doctor` judges them)\n";
    Table t({"KERNEL", "STARTS", "KERNELSPEC"});
    for (const auto& k : info.kernels)
      t.add({k.spec.name, std::string(jupyter::to_string(k.run.runner)) + (k.run.activated ? ", activated" : ""),
             k.spec.dir + "/kernel.json"});
    out += t.render(style, 2);
  }
  for (const auto& [file, why] : info.unreadable_kernelspecs)
    out += style.yellow("unreadable kernelspec") + " " + file + ": " + why + "\n";
  return out;
}

std::string info_text(const env::EnvRecord& env, const app::EnvInfo& info, const Style& style) {
  const inventory::Inventory& inv = info.inventory;
  std::string out;
  out += style.bold("env") + "  " + env.name + " (" + env::to_string(env.kind) + ")  " + env.prefix + "\n";
  out += style.bold("cuda") + " " + inv.cuda_summary() + "\n";
  for (const auto& sp : inv.site_packages) out += style.bold("site-packages") + " " + sp + "\n";
  if (!inv.folders.empty()) {
    out += "\n" + style.bold("CUDA library folders") + "\n";
    Table t({"FOLDER", "LAYOUT", "PACKAGES"});
    for (const auto& f : inv.folders) {
      std::string pkgs;
      for (const auto& p : f.packages) pkgs += (pkgs.empty() ? "" : ", ") + p;
      t.add({f.path, f.layout, pkgs.empty() ? "-" : pkgs});
    }
    out += t.render(style, 2);
  }
  out += "\n" + style.bold("Components") + "\n";
  if (inv.libraries.empty()) {
    out += "  (no NVIDIA CUDA libraries in this env)\n";
  } else {
    Table t({"COMPONENT", "SONAME", "CUDA", "PACKAGE", "FILE"});
    for (const auto& lib : inv.libraries)
      t.add({lib.component, lib.soname, lib.cuda_major > 0 ? std::to_string(lib.cuda_major) : "?",
             package_label(lib.manager, lib.package, lib.version), lib.file});
    out += t.render(style, 2);
  }
  if (std::any_of(inv.libraries.begin(), inv.libraries.end(), [](const auto& l) { return l.gpu_code.has_value(); }) ||
      std::any_of(inv.consumers.begin(), inv.consumers.end(), [](const auto& c) { return c.gpu_code.has_value(); })) {
    out += "\n" + style.bold("GPU code") + " (SASS | PTX, from the fatbin headers)\n";
    Table t({"FILE", "ARCHITECTURES"});
    for (const auto& lib : inv.libraries)
      if (lib.gpu_code) t.add({lib.file, gpu_code_text(lib.gpu_code)});
    for (const auto& c : inv.consumers)
      if (c.gpu_code) t.add({c.file, gpu_code_text(c.gpu_code)});
    out += t.render(style, 2);
  }
  if (!inv.consumers.empty()) {
    out += "\n" + style.bold("Consumers") + " (files that need a CUDA library)\n";
    Table t({"FILE", "NEEDS"});
    for (const auto& c : inv.consumers) {
      std::string needs;
      for (const auto& n : c.needs) needs += (needs.empty() ? "" : " ") + n;
      t.add({c.file, needs});
    }
    out += t.render(style, 2);
  }
  if (!inv.pinned.empty()) {
    out += "\n" + style.bold("Pinned") + " by `condacuda repair --pin` (their own search path now comes before LD_LIBRARY_PATH; `condacuda undo` restores them)\n";
    for (const auto& p : inv.pinned) out += "  " + p + "\n";
  }
  out += frameworks_text(info, style);
  for (const auto& w : inv.warnings) out += style.yellow("warning: ") + w + "\n";
  return fit(out); // within 100 columns (tables lay themselves out; a path longer than a line stays whole)
}

Json list_json(const std::vector<app::ListedEnv>& rows) {
  Json j = Json::object();
  j.set("schema", "condacuda.list/1");
  Json envs = Json::array();
  for (const auto& r : rows) {
    Json e = env_json(r.env);
    e.set("source", r.env.source);
    e.set("cuda", r.cuda);
    e.set("repair", r.repair);
    envs.push(e);
  }
  j.set("envs", envs);
  return j;
}

std::string list_text(const std::vector<app::ListedEnv>& rows, const Style& style) {
  if (rows.empty()) return "no environments found\n";
  Table t({"NAME", "KIND", "CUDA", "REPAIR", "PREFIX"});
  for (const auto& r : rows) t.add({r.env.name, env::to_string(r.env.kind), r.cuda, r.repair, r.env.prefix});
  return t.render(style);
}

std::string envs_found_text(const std::vector<env::EnvRecord>& envs) {
  if (envs.empty()) return "no environments found (select one with -n NAME or -p PATH, or activate it)\n";
  std::string out = "environments found:\n";
  for (const auto& e : envs) out += "  " + e.name + "  " + env::to_string(e.kind) + "  " + e.prefix + "\n";
  return out;
}

Rendering info_rendering(const env::EnvRecord& env, const app::EnvInfo& info) {
  return {[&env, &info](const Style& style) { return info_text(env, info, style); }, false,
          [&env, &info] { return info_json(env, info); }, "ok", {}};
}

Rendering list_rendering(const std::vector<app::ListedEnv>& rows) {
  return {[&rows](const Style& style) { return list_text(rows, style); }, false, [&rows] { return list_json(rows); }, "ok", {}};
}

} // namespace condacuda::report
