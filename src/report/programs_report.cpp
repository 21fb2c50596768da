#include "report/programs_report.hpp"

#include <algorithm>

#include "doctor/programs.hpp"

namespace condacuda::report {

using util::Json;

namespace {
Json optional_string(const std::string& s) { return s.empty() ? Json() : Json(s); }

Json open_json(const frameworks::ProgramOpen& o) {
  Json j = Json::object();
  j.set("step", frameworks::to_string(o.step));
  j.set("library", o.library);
  j.set("path", o.path);
  j.set("ok", o.ok);
  j.set("error", optional_string(o.error));
  j.set("swallowed", o.swallowed);
  j.set("sys_path_entry", o.entry.empty() && o.step != frameworks::StepKind::preload ? Json() : Json(o.entry));
  if (!o.entry.empty() || o.step == frameworks::StepKind::preload) j.set("origin", python::to_string(o.origin));
  return j;
}

std::string verdict_word(const frameworks::ProgramResult& r) {
  switch (r.verdict) {
  case frameworks::Verdict::loads: return "loads";
  case frameworks::Verdict::fails: return "fails";
  case frameworks::Verdict::cpu_fallback: return "falls back to the CPU";
  case frameworks::Verdict::unmodelled: return "no recipe for this release: judged library by library";
  }
  return "";
}
} // namespace

Json python_json(const doctor::DoctorInputs& in) {
  if (!in.python) return Json();
  const auto& v = *in.python;
  Json j = Json::object();
  j.set("version", v.interpreter.version_tag());
  j.set("executable", v.interpreter.executable);
  j.set("prefix", v.interpreter.prefix);
  j.set("base_prefix", v.interpreter.base_prefix);
  j.set("venv", v.interpreter.venv);
  j.set("site", v.interpreter.site == python::SiteFlavour::debian ? "debian" : "cpython");
  Json entries = Json::array();
  for (const auto& e : v.sys_path) {
    Json ej = Json::object();
    ej.set("path", e.path);
    ej.set("origin", python::to_string(e.origin));
    ej.set("pth", optional_string(e.pth_file));
    entries.push(std::move(ej));
  }
  j.set("sys_path", entries);
  return j;
}

Json programs_json(const doctor::DoctorReport& report) {
  Json out = Json::array();
  for (const auto& p : report.programs) {
    const auto& r = p.result;
    const auto& fw = r.framework;
    Json j = Json::object();
    j.set("framework", fw.framework->name);
    j.set("statement", fw.framework->statement);
    j.set("distribution", optional_string(fw.distribution));
    j.set("version", optional_string(fw.version));
    j.set("location", fw.package_dir);
    j.set("origin", python::to_string(fw.origin));
    j.set("cuda_major", fw.cuda_major >= 0 ? Json(fw.cuda_major) : Json());
    j.set("recipe", fw.recipe ? Json(fw.recipe->id) : Json());
    j.set("recipe_source", fw.recipe ? Json(fw.recipe->source) : Json());
    j.set("inferred", fw.recipe && fw.recipe->inferred);
    j.set("verdict", frameworks::to_string(r.verdict));
    j.set("exception", optional_string(r.exception));
    j.set("error", optional_string(r.ok() ? "" : r.error_text()));
    j.set("failing_file", optional_string(r.failing_object));
    Json opens = Json::array();
    for (const auto& o : r.opens) opens.push(open_json(o));
    j.set("opens", opens);
    Json contexts = Json::object();
    auto verdict = [](bool loads, const std::string& error) {
      Json v = Json::object();
      v.set("verdict", loads ? "loads" : "fails");
      v.set("error", optional_string(error));
      return v;
    };
    contexts.set(doctor::to_string(report.inputs.context), verdict(r.ok(), r.ok() ? "" : r.error_text()));
    if (p.not_activated) contexts.set("not-activated", verdict(p.not_activated->loads, p.not_activated->first_error));
    j.set("contexts", contexts);
    out.push(std::move(j));
  }
  return out;
}

std::string programs_text(const doctor::DoctorReport& report, const Style& style, bool verbose) {
  if (report.programs.empty()) return "";
  std::string out = "\n";
  for (const auto& p : report.programs) {
    const auto& r = p.result;
    const std::string word = verdict_word(r);
    out += style.bold(p.label()) + ": " + (r.ok() ? (r.verdict == frameworks::Verdict::loads ? style.green(word) : style.dim(word))
                                                  : style.red(word + ": " + r.error_text()));
    if (p.not_activated && p.not_activated->loads != r.ok())
      out += "; without activation " + (p.not_activated->loads ? style.green("loads") : style.yellow("fails: " + p.not_activated->first_error));
    out += "\n";
    if (verbose && r.framework.recipe)
      out += "  " + style.dim("recipe " + r.framework.recipe->id + " (" + r.framework.recipe->source + ")") + "\n";
  }
  return out;
}

Json kernels_json(const std::vector<doctor::KernelReport>& kernels) {
  Json out = Json::array();
  for (const auto& k : kernels) {
    Json j = Json::object();
    j.set("name", k.spec.name);
    j.set("dir", k.spec.dir);
    j.set("display_name", optional_string(k.spec.display_name));
    j.set("runner", jupyter::to_string(k.run.runner));
    j.set("activated", k.run.activated);
    j.set("how", k.run.how);
    Json verdicts = Json::array();
    for (const auto& v : k.verdicts) {
      Json vj = Json::object();
      vj.set("launch", v.launch);
      vj.set("ld_library_path", v.ld_library_path ? Json(*v.ld_library_path) : Json());
      vj.set("running_server", v.running);
      vj.set("verdict", v.loads ? "loads" : "fails");
      vj.set("error", optional_string(v.error));
      Json exposed = Json::array();
      for (const auto& e : v.exposed) exposed.push(e);
      vj.set("exposed", exposed);
      verdicts.push(std::move(vj));
    }
    j.set("verdicts", verdicts);
    out.push(std::move(j));
  }
  return out;
}

std::string kernels_text(const std::vector<doctor::KernelReport>& kernels, const Style& style) {
  std::string out;
  std::vector<std::string> said; // each error once: the kernels after the first that meets it say "the error above"
  for (const auto& k : kernels) {
    out += style.bold("kernel '" + k.spec.name + "'") + " (" + k.spec.dir + "/kernel.json, " + jupyter::to_string(k.run.runner) + "):";
    std::vector<std::string> exposed;
    for (const auto& v : k.verdicts) {
      const bool again = std::find(said.begin(), said.end(), v.error) != said.end();
      if (!v.loads && !again) said.push_back(v.error);
      out += "\n  " + (v.loads ? style.green("loads") : style.red("fails")) + " when started by " + v.launch +
             (v.loads ? "" : again ? " (the error above)" : ": " + v.error);
      for (const auto& e : v.exposed)
        if (std::find(exposed.begin(), exposed.end(), e) == exposed.end()) exposed.push_back(e);
    }
    const bool loads = std::all_of(k.verdicts.begin(), k.verdicts.end(), [](const auto& v) { return v.loads; });
    if (!exposed.empty())
      out += "\n  " + style.yellow("breaks") + " when the server's LD_LIBRARY_PATH has an older " + exposed.front() +
             (exposed.size() > 1 ? " (or " + std::to_string(exposed.size() - 1) + " more)" : "");
    else if (loads && !k.verdicts.empty())
      out += "\n  " + style.green("holds") + " whatever the server's LD_LIBRARY_PATH holds (it finds the env's CUDA libraries before it)";
    out += "\n";
  }
  return out.empty() ? out : "\n" + out;
}

} // namespace condacuda::report
