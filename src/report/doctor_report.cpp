#include "report/doctor_report.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "report/info_report.hpp"
#include "report/layout.hpp"
#include "report/programs_report.hpp"
#include "util/strings.hpp"

namespace condacuda::report {

using util::Json;

namespace {
Json optional_string(const std::string& s) { return s.empty() ? Json() : Json(s); }

Json strings(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push(s);
  return a;
}

Json finding_json(const doctor::Finding& f) {
  Json j = Json::object();
  j.set("code", f.code);
  j.set("severity", doctor::to_string(f.severity));
  j.set("title", f.title);
  j.set("library", optional_string(f.library));
  j.set("symbol", optional_string(f.symbols));
  j.set("version", optional_string(f.version));
  j.set("resolved_path", optional_string(f.resolved));
  j.set("via", optional_string(f.via));
  j.set("via_entry", optional_string(f.via_entry));
  j.set("expected", optional_string(f.expected));
  j.set("expected_package", optional_string(f.expected_package));
  j.set("expected_satisfies", f.expected_satisfies);
  j.set("min_release", optional_string(f.min_release));
  j.set("evidence", strings(f.evidence));
  j.set("affects", strings(f.affects));
  j.set("first_error", optional_string(f.first_error));
  j.set("fix", f.fix);
  Json actions = Json::array();
  for (const auto& a : f.actions) {
    Json aj = Json::object();
    aj.set("kind", a.kind);
    aj.set("args", strings(a.args));
    actions.push(std::move(aj));
  }
  j.set("actions", actions);
  if (!f.parts.empty()) {
    Json parts = Json::array();
    for (const auto& p : f.parts) parts.push(finding_json(p));
    j.set("parts", parts);
  }
  return j;
}

Json path_value(const std::optional<std::string>& v) { return v ? Json(*v) : Json(); }
} // namespace

Json node_json(const doctor::NodeFacts& n) {
  Json j = Json::object();
  j.set("name", n.name());
  j.set("hostname", n.hostname);
  j.set("slurm_node", n.slurm_node ? Json(*n.slurm_node) : Json());
  j.set("glibc", n.glibc);
  Json driver = Json::object();
  driver.set("version", n.driver ? Json(*n.driver) : Json());
  driver.set("source", n.driver_source);
  j.set("driver", driver);
  Json gpus = Json::array();
  for (const auto& d : n.gpus) {
    Json g = Json::object();
    g.set("name", d.name);
    g.set("sm", d.sm);
    gpus.push(std::move(g));
  }
  j.set("gpus", gpus);
  j.set("gpus_source", doctor::to_string(n.gpus_source));
  j.set("ld_library_path", path_value(n.ld_library_path));
  j.set("system_cuda_folders", strings(n.system_cuda_folders));
  j.set("ld_so_cache_cuda", strings(n.ld_so_cache_cuda));
  return j;
}

Json doctor_json(const doctor::DoctorReport& r) {
  const auto& in = r.inputs;
  Json j = Json::object();
  j.set("schema", "condacuda.doctor/1");
  j.set("env", env_json(in.env));
  Json llp = Json::object();
  llp.set("base", path_value(in.base_ld_library_path));
  llp.set("source", doctor::to_string(in.ld_library_path_source));
  llp.set("hook_applied", in.hook_present);
  llp.set("assumed", path_value(in.config.ld_library_path));
  if (r.not_activated) llp.set("not_activated", path_value(r.not_activated->ld_library_path));
  j.set("ld_library_path", llp);
  // "both": every root has a verdict per context; else the one context judged.
  j.set("context", r.not_activated ? "both" : doctor::to_string(in.context));
  Json host = Json::object();
  host.set("kind", in.host_program ? "python" : "minimal");
  host.set("program", in.host_program ? Json(*in.host_program) : Json());
  host.set("error", r.host_error ? Json(*r.host_error) : Json());
  j.set("host", host);
  Json loader = Json::object();
  loader.set("glibc", "2." + std::to_string(in.config.glibc_minor));
  loader.set("glibc_source", in.glibc_source);
  loader.set("platform", in.config.platform);
  loader.set("hwcaps", strings(in.config.hwcaps_active));
  loader.set("cwd", in.config.cwd);
  j.set("loader", loader);
  j.set("node", node_json(r.node));
  int fails = 0;
  Json roots = Json::array();
  for (const auto& root : r.roots) {
    Json rj = Json::object();
    rj.set("file", root.file);
    rj.set("kind", doctor::to_string(root.kind));
    if (!root.component.empty()) rj.set("component", root.component);
    rj.set("verdict", root.loads ? "loads" : "fails");
    rj.set("error", optional_string(root.first_error));
    rj.set("requirement", optional_string(root.requirement));
    rj.set("covered_by", strings(root.covered_by));
    Json all = Json::array();
    for (const auto& e : root.report.errors)
      if (!e.lazy_only) all.push(e.kind == loader::ErrorKind::assertion ? e.text : e.message());
    rj.set("errors", all);
    Json contexts = Json::object();
    auto verdict = [](bool loads, const std::string& error) {
      Json v = Json::object();
      v.set("verdict", loads ? "loads" : "fails");
      v.set("error", optional_string(error));
      return v;
    };
    contexts.set(doctor::to_string(in.context), verdict(root.loads, root.first_error));
    if (root.not_activated) contexts.set("not-activated", verdict(root.not_activated->loads, root.not_activated->first_error));
    rj.set("contexts", contexts);
    if (!root.loads) ++fails;
    roots.push(rj);
  }
  Json imports = Json::array();
  for (const auto& i : r.imports) {
    Json ij = Json::object();
    ij.set("file", i.file);
    ij.set("global", i.global);
    ij.set("verdict", i.loads ? "loads" : "fails");
    ij.set("loads_alone", i.loads_alone);
    ij.set("error", optional_string(i.first_error));
    imports.push(std::move(ij));
  }
  Json summary = Json::object();
  summary.set("roots", static_cast<int>(r.roots.size()));
  summary.set("loads", static_cast<int>(r.roots.size()) - fails);
  summary.set("fails", fails);
  summary.set("errors", r.count(doctor::Severity::error));
  summary.set("warnings", r.count(doctor::Severity::warning));
  j.set("summary", summary);
  j.set("healthy", r.healthy());
  j.set("roots", roots);
  j.set("imports", r.imports.empty() ? Json() : imports);
  j.set("python", python_json(in));
  j.set("programs", programs_json(r));
  j.set("kernels", kernels_json(r.kernels));
  j.set("pinned", strings(in.inventory.pinned));
  Json findings = Json::array();
  for (const auto& f : r.findings) findings.push(finding_json(f));
  j.set("findings", findings);
  return j;
}

namespace {
// Whether two loader errors say the same: the same message after the file's
// name, of the same file name ("torch/lib/../../nvidia/cusparse/lib/x.so: undefined
// symbol: s" is the program's way of naming the finding's ".../nvidia/cusparse/lib/x.so").
bool same_error(std::string_view shown, std::string_view error) {
  if (shown.find(error) != std::string_view::npos) return true;
  const auto colon = error.find(": ");
  if (colon == std::string_view::npos) return false;
  const std::string_view file = error.substr(0, colon), message = error.substr(colon);
  const std::string_view name = file.substr(file.rfind('/') + 1);
  for (auto at = shown.find(message); at != std::string_view::npos; at = shown.find(message, at + 1)) {
    const std::string_view before = shown.substr(0, at);
    if (before.ends_with("/" + std::string(name)) || before == name) return true;
  }
  return false;
}

// Whether a program's line says this error already (the loader's error is said once).
bool said_by_programs(const doctor::DoctorReport& r, const std::string& error) {
  if (error.empty()) return false;
  return std::any_of(r.programs.begin(), r.programs.end(), [&](const doctor::ProgramReport& p) {
    return same_error(p.result.error_text(), error) ||
           (p.not_activated && same_error(p.not_activated->first_error, error));
  });
}

// One finding, within 100 columns: the label and title, each "why" line with
// a hanging indent, the files it breaks one per line, the loader's error
// unless a program's line said it, the fix's words and then each command
// alone on a line that pastes.
std::string finding_text(const doctor::Finding& f, const Style& style, bool error_said, const std::set<std::string>& said) {
  const std::string label = f.severity == doctor::Severity::error     ? style.red(style.bold("ERROR"))
                            : f.severity == doctor::Severity::warning ? style.yellow(style.bold("WARN "))
                                                                      : style.dim("INFO ");
  std::string out = "\n" + wrap(label + " " + style.bold(f.code) + "  ", 6 + f.code.size() + 2, f.title, 7);
  for (std::string line : f.evidence) {
    for (const auto& e : said) // an error the view said already is not said again
      if (!e.empty() && e.size() > 40 && line.find(e) != std::string::npos) line = util::replace_all(line, e, "the error above");
    out += wrap("  " + style.dim("why") + "    ", 9, line, 9);
  }
  // "breaks" fits the 9 columns of the other labels; "affects" takes one more.
  const std::string word = f.severity == doctor::Severity::error ? "breaks" : "affects";
  const std::size_t column = std::max<std::size_t>(9, 2 + word.size() + 1);
  for (std::size_t i = 0; i < f.affects.size(); ++i)
    out += wrap("  " + style.dim(i == 0 ? word : std::string(word.size(), ' ')) + std::string(column - 2 - word.size(), ' '),
                column, f.affects[i], column);
  if (!f.first_error.empty() && !error_said) out += wrap("  " + style.dim("error") + "  ", 9, f.first_error, 9);
  return out + fix_block("  " + style.green("fix") + "    ", 9, f.fix);
}
} // namespace

std::string doctor_text(const doctor::DoctorReport& r, const Style& style, bool verbose) {
  const auto& in = r.inputs;
  std::string out;
  out += style.bold("env") + "   " + in.env.name + " (" + env::to_string(in.env.kind) + ")  " + in.env.prefix + "\n";
  std::string llp = in.config.ld_library_path ? "'" + *in.config.ld_library_path + "'" : "(unset)";
  const bool not_activated = in.context == doctor::LaunchContext::not_activated;
  const std::string whose =
      "(" + std::string(in.ld_library_path_source == doctor::BasePathSource::this_shell ? "this shell's" : "given") +
      (not_activated        ? ", the env not activated: no hook)"
       : in.hook_present    ? ", with the env's condacuda hook applied)"
                            : "; the env has no condacuda hook)");
  out += verbose ? style.bold("LD_LIBRARY_PATH") + " " + llp + "  " + style.dim(whose) + "\n"
                 : path_variable_text(style.bold("LD_LIBRARY_PATH"), "LD_LIBRARY_PATH", in.config.ld_library_path, style.dim(whose));
  out += style.bold("host") + "  " + r.host_description + style.dim("  glibc 2." + std::to_string(in.config.glibc_minor) +
                                                                      (in.glibc_source == "this machine" ? "" : " (" + in.glibc_source + ")")) + "\n";
  if (r.host_error) out += style.red("the host itself fails to start: ") + *r.host_error;
  if (!in.inventory.pinned.empty())
    out += style.bold("pinned") + " " + std::to_string(in.inventory.pinned.size()) +
           " file(s) by `condacuda repair --pin` (" +
           (verbose ? "DT_RUNPATH -> DT_RPATH" : "their own search path now comes before LD_LIBRARY_PATH") + "): " +
           util::join(in.inventory.pinned, ", ") + "\n";
  if (!verbose) out = fit(out); // the header: env, LD_LIBRARY_PATH, host
  out += verbose ? programs_text(r, style, verbose) : fit(programs_text(r, style, verbose));
  out += verbose ? kernels_text(r.kernels, style) : fit(kernels_text(r.kernels, style));
  int fails = 0;
  for (const auto& root : r.roots) fails += root.loads ? 0 : 1;
  int fails_unactivated = 0;
  for (const auto& root : r.roots) fails_unactivated += root.not_activated && !root.not_activated->loads ? 1 : 0;
  const std::string where = not_activated ? "not activated" : "activated";
  out += "\n" + wrap("", 0,
                    std::to_string(r.roots.size()) +
                        (verbose ? " roots (CUDA libraries and their consumers)"
                                 : " files (CUDA libraries and what needs them)") +
                        ", each opened like `import` does" + (r.not_activated || not_activated ? ", " + where : "") + ": " +
                        (fails ? style.red(std::to_string(fails) + " fail") : style.green("all load")),
                    2);
  if (fails && !verbose) {
    // Each failing file on its own line, with the finding that says why (the error is said there, once).
    for (const auto& root : r.roots) {
      if (root.loads) continue;
      auto f = std::find_if(r.findings.begin(), r.findings.end(), [&](const doctor::Finding& x) {
        return std::find(x.affects.begin(), x.affects.end(), root.file) != x.affects.end();
      });
      const std::string why = !root.covered_by.empty() ? "fails alone, loads in " + root.covered_by.front()
                              : f != r.findings.end() ? "see " + f->code + " below"
                                                      : root.first_error;
      out += wrap("  " + style.red("fails") + "  ", 9, root.file + "  (" + why + ")", 9);
    }
  } else if (verbose) {
    Table t({"ROOT", "VERDICT", "FIRST ERROR"});
    for (const auto& root : r.roots)
      if (!root.loads || verbose)
        t.add({root.file, root.loads ? "loads" : root.covered_by.empty() ? "fails" : "fails alone", root.first_error});
    out += t.render(style, 2);
  }
  if (r.not_activated) {
    const auto& value = r.not_activated->ld_library_path;
    out += wrap("", 0,
                "not activated (Jupyter kernels, cron, srun, IDEs; LD_LIBRARY_PATH " + (value ? "'" + *value + "'" : "unset") +
                    ", no hook): " +
                    (fails_unactivated ? style.yellow(std::to_string(fails_unactivated) + " fail") : style.green("all load")),
                2);
    if (fails_unactivated && !verbose) {
      for (const auto& root : r.roots)
        if (root.not_activated && !root.not_activated->loads)
          out += wrap("  " + style.yellow("fails") + "  ", 9, root.file + "  (see not-activated below)", 9);
    } else if (verbose) {
      Table t({"ROOT", "VERDICT", "FIRST ERROR"});
      for (const auto& root : r.roots)
        if (root.not_activated && (!root.not_activated->loads || verbose))
          t.add({root.file, root.not_activated->loads ? "loads" : "fails", root.not_activated->first_error});
      out += t.render(style, 2);
    }
  }
  if (!r.imports.empty()) {
    out += "\n--imports, in this order in one process:\n";
    Table t({"#", "IMPORT", "VERDICT", "ALONE", "ERROR"});
    for (std::size_t i = 0; i < r.imports.size(); ++i) {
      const auto& s = r.imports[i];
      t.add({std::to_string(i + 1), (s.global ? "global:" : "") + s.file, s.loads ? "loads" : "fails",
             s.loads_alone ? "loads" : "fails", s.first_error});
    }
    out += t.render(style, 2);
  }
  std::set<std::string> said; // the loader's error, once: the programs' and kernels' lines, then the first finding that has it
  for (const auto& k : r.kernels)
    for (const auto& v : k.verdicts)
      if (!v.loads) said.insert(v.error);
  for (const auto& f : r.findings) {
    out += finding_text(f, style, said_by_programs(r, f.first_error) || said.count(f.first_error), said);
    said.insert(f.first_error);
  }
  out += "\n" + (r.healthy() ? style.green("healthy") : style.red("not healthy")) + ": " +
         std::to_string(r.count(doctor::Severity::error)) + " error(s), " +
         std::to_string(r.count(doctor::Severity::warning)) + " warning(s)\n";
  return out;
}

std::string doctor_dot(const doctor::DoctorReport& r) {
  // Nodes are files (one per path over all roots); edges are DT_NEEDED
  // resolutions. Failing edges are red: not found, or the edge to a library
  // that lacks a symbol or version a root needed.
  std::map<std::string, std::string> ids;
  std::set<std::string> roots, failing_nodes, edges_seen;
  std::string body;
  auto id = [&](const std::string& name) {
    auto it = ids.find(name);
    if (it != ids.end()) return it->second;
    std::string n = "n" + std::to_string(ids.size());
    ids.emplace(name, n);
    return n;
  };
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return q + "\"";
  };
  for (const auto& root : r.roots) {
    const auto& objs = root.report.objects;
    std::set<std::string> bad_targets;
    for (const auto& e : root.report.errors) {
      if (e.kind == loader::ErrorKind::version_missing && e.object >= 0) bad_targets.insert(objs[static_cast<std::size_t>(e.object)].name);
      if (e.kind == loader::ErrorKind::undefined_symbol && !e.library.empty())
        for (const auto& o : objs)
          if (o.soname && *o.soname == e.library) bad_targets.insert(o.name);
    }
    for (const auto& e : root.report.edges) {
      if (e.from < 0 || e.from >= static_cast<int>(objs.size())) continue;
      const auto& from = objs[static_cast<std::size_t>(e.from)];
      if (from.preexisting && e.to >= 0 && objs[static_cast<std::size_t>(e.to)].preexisting) continue; // host internals
      std::string target = e.to >= 0 ? objs[static_cast<std::size_t>(e.to)].name : "not found: " + e.needed;
      if (e.to < 0) failing_nodes.insert(target);
      if (e.to >= 0 && objs[static_cast<std::size_t>(e.to)].preexisting && objs[static_cast<std::size_t>(e.to)].name.find("libc.so") != std::string::npos)
        continue; // every object needs libc: leave it out
      bool bad = e.to < 0 || bad_targets.count(target);
      std::string key = from.name + "\n" + target;
      if (!edges_seen.insert(key).second) continue;
      body += "  " + id(from.name) + " -> " + id(target) + " [label=" + quote(e.needed) +
              (bad ? ", color=red, fontcolor=red, penwidth=2" : "") + "];\n";
      if (bad && e.to >= 0) failing_nodes.insert(target);
    }
    std::string root_path = r.inputs.env.prefix + "/" + root.file;
    for (const auto& o : objs)
      if (!o.preexisting && std::filesystem::path(o.name).lexically_normal() == std::filesystem::path(root_path).lexically_normal())
        roots.insert(o.name);
  }
  std::string out = "digraph condacuda {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (const auto& [name, n] : ids) {
    std::string label = name;
    std::string prefix = r.inputs.env.prefix + "/";
    if (label.rfind(prefix, 0) == 0) label = label.substr(prefix.size());
    std::string attrs = "label=" + quote(label);
    if (roots.count(name)) attrs += ", style=bold";
    if (failing_nodes.count(name)) attrs += ", color=red, fontcolor=red";
    out += "  " + n + " [" + attrs + "];\n";
  }
  return out + body + "}\n";
}

Rendering doctor_rendering(const doctor::DoctorReport& report, bool verbose) {
  return {[&report, verbose](const Style& style) { return doctor_text(report, style, verbose); },
          false,
          [&report] { return doctor_json(report); },
          report.healthy() ? "healthy" : "problems",
          [&report] { return doctor_dot(report); }};
}

} // namespace condacuda::report
