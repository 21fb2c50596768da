#include "report/check_report.hpp"

#include "report/layout.hpp"

#include <cstdio>
#include <map>

#include "check/cuda_names.hpp"
#include "check/protocol.hpp"
#include "report/info_report.hpp"
#include "util/strings.hpp"
#include "util/path.hpp"

namespace condacuda::report {

using util::Json;
using namespace condacuda::check;

namespace {
Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(); }
Json optional_text(const std::string& s) { return s.empty() ? Json() : Json(s); }

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string driver_version_text(int v) {
  return v > 0 ? std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) : "";
}

const LibraryComparison* comparison_for(const CheckReport& r, Component c) {
  for (const auto& x : r.library_comparisons)
    if (x.component == c) return &x;
  return nullptr;
}

Json library_entry(const CheckReport& r, const PlannedLibrary& p) {
  Json j = Json::object();
  j.set("component", to_string(p.request.component));
  j.set("soname", p.soname);
  j.set("open", p.request.open);
  j.set("opened_by", p.request.open.find('/') == std::string::npos ? "soname" : "path");
  j.set("why", p.reason);
  j.set("env_file", optional_text(p.env_file));
  const LibraryLoad* actual = r.probe.library(p.request.component);
  j.set("loaded", actual ? Json(actual->loaded) : Json());
  j.set("path", actual ? optional_text(actual->path) : Json());
  j.set("error", actual ? optional_text(actual->error) : Json());
  j.set("load_ms", actual ? Json(actual->load_ms) : Json());
  j.set("version", actual ? optional_text(actual->version) : Json());
  Json predicted = Json::object();
  predicted.set("loads", p.predicted_loads);
  predicted.set("path", optional_text(p.predicted_path));
  predicted.set("error", optional_text(p.predicted_error));
  predicted.set("via", optional_text(p.predicted_via));
  predicted.set("entry", optional_text(p.predicted_entry));
  j.set("predicted", std::move(predicted));
  const LibraryComparison* c = comparison_for(r, p.request.component);
  j.set("prediction_matches", c ? Json(c->matches) : Json());
  j.set("difference", c ? optional_text(c->difference) : Json());
  return j;
}

Json strings(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push(s);
  return a;
}

Json step_entry(const StepResult& s, const ProbeResult& probe) {
  Json j = step_json(s);
  StepRates rates = step_rates(s, probe);
  j.set("median_ms", s.times_ms.empty() ? Json() : Json(s.median_ms()));
  j.set("rate", optional_number(rates.rate));
  j.set("rate_unit", optional_text(rates.unit));
  j.set("peak", optional_number(rates.peak));
  j.set("fraction_of_peak", optional_number(rates.of_peak));
  j.set("fraction_of_copy", optional_number(rates.of_copy));
  return j;
}

Json finding_entry(const doctor::Finding& f) {
  Json j = Json::object();
  j.set("code", f.code);
  j.set("severity", doctor::to_string(f.severity));
  j.set("title", f.title);
  j.set("library", optional_text(f.library));
  j.set("resolved_path", optional_text(f.resolved));
  j.set("via_entry", optional_text(f.via_entry));
  j.set("fix", f.fix);
  return j;
}

Json python_entry(const PythonResult& p) {
  Json j = Json::object();
  j.set("framework", p.framework);
  j.set("status", to_string(p.status));
  j.set("version", optional_text(p.version));
  j.set("detail", optional_text(p.detail));
  j.set("error", optional_text(p.error));
  j.set("finding", optional_text(p.finding));
  j.set("fix", optional_text(p.fix));
  return j;
}

Json probe_entry(const CheckReport& r) {
  Json j = Json::object();
  j.set("outcome", describe(r.child, r.timeout_s));
  j.set("timed_out", r.child.timed_out);
  j.set("finished", r.probe.finished);
  j.set("in_progress", optional_text(r.probe.in_progress));
  j.set("wall_ms", r.child.wall_ms);
  j.set("started_with", optional_text(r.child.started_with));
  j.set("protocol_errors", strings(r.probe.protocol_errors));
  j.set("notes", strings(r.probe.notes));
  j.set("stderr_tail", optional_text(r.child.stderr_tail));
  return j;
}

std::string coverage_kind_text(const doctor::Coverage& c) {
  switch (c.kind) {
  case doctor::CoverageKind::sass: return "SASS " + c.target;
  case doctor::CoverageKind::ptx_jit: return "PTX " + c.target + " (JIT)";
  case doctor::CoverageKind::none: return "no kernel";
  }
  return "";
}

Json coverage_entry(const CoverageComparison& c) {
  Json j = Json::object();
  j.set("component", to_string(c.component));
  j.set("file", c.file);
  j.set("device", c.device);
  j.set("predicted", c.predicted.kind == doctor::CoverageKind::sass      ? "sass"
                     : c.predicted.kind == doctor::CoverageKind::ptx_jit ? "ptx-jit"
                                                                         : "none");
  j.set("target", optional_text(c.predicted.target));
  j.set("why", optional_text(c.predicted.why));
  j.set("steps", strings(c.steps));
  j.set("observed", c.observed);
  j.set("matches", c.matches ? Json(*c.matches) : Json());
  return j;
}
} // namespace

Json check_json(const CheckReport& r, int exit_code) {
  Json j = Json::object();
  j.set("schema", check_schema);
  j.set("env", env_json(r.env));
  j.set("outcome", to_string(r.outcome));
  j.set("exit_code", exit_code);
  j.set("reason", r.reason);
  j.set("sizes", r.sizes_name);
  j.set("wall_ms", r.wall_ms);
  Json llp = Json::object();
  llp.set("value", r.ld_library_path ? Json(*r.ld_library_path) : Json());
  llp.set("hook_applied", r.hook_applied);
  llp.set("source", launch::to_string(r.ld_library_path_source));
  llp.set("planned_folders", strings(r.planned_folders));
  j.set("ld_library_path", std::move(llp));
  j.set("probe", probe_entry(r));
  Json libs = Json::array();
  for (const auto& p : r.plan.libraries) libs.push(library_entry(r, p));
  j.set("libraries", std::move(libs));
  j.set("missing_components", strings(r.plan.missing));
  Json objects = Json::object();
  objects.set("compared", r.objects.compared);
  objects.set("matches", r.objects.matches);
  objects.set("only_in_probe", strings(r.objects.only_in_probe));
  objects.set("only_in_prediction", strings(r.objects.only_in_prediction));
  j.set("loaded_objects", std::move(objects));
  Json coverage = Json::array();
  for (const auto& c : r.coverage) coverage.push(coverage_entry(c));
  j.set("gpu_coverage", std::move(coverage));
  Json driver = driver_json(r.probe.driver);
  driver.set("version_text", optional_text(driver_version_text(r.probe.driver.version)));
  driver.set("init_name", r.probe.driver.init_called ? Json(cu_result_name(r.probe.driver.init_result)) : Json());
  j.set("driver", std::move(driver));
  j.set("device", r.probe.device ? device_json(*r.probe.device) : Json());
  Json phases = Json::array();
  for (const auto& l : r.probe.libraries) {
    Json p = Json::object();
    p.set("name", "dlopen " + util::base_name(l.open));
    p.set("ms", l.load_ms);
    phases.push(std::move(p));
  }
  for (const auto& ph : r.probe.phases) {
    Json p = Json::object();
    p.set("name", ph.name);
    p.set("ms", ph.ms);
    phases.push(std::move(p));
  }
  j.set("phases", std::move(phases));
  Json steps = Json::array();
  for (const auto& s : r.probe.steps) steps.push(step_entry(s, r.probe));
  j.set("steps", std::move(steps));
  Json warnings = Json::array();
  for (const auto& w : r.warnings) {
    Json e = Json::object();
    e.set("code", w.code);
    e.set("message", w.message);
    warnings.push(std::move(e));
  }
  j.set("warnings", std::move(warnings));
  Json findings = Json::array();
  for (const auto& f : r.findings) findings.push(finding_entry(f));
  j.set("findings", std::move(findings));
  if (r.python_requested) {
    Json py = Json::array();
    for (const auto& p : r.python) py.push(python_entry(p));
    j.set("python", std::move(py));
  } else {
    j.set("python", Json());
  }
  return j;
}

// ---- text ---------------------------------------------------------------------

namespace {
std::string percent(const std::optional<double>& f) { return f ? fmt("%.0f %%", *f * 100) : ""; }

std::string rate_text(const StepRates& r) {
  if (!r.rate) return "";
  return (r.unit == "GB/s" ? fmt("%.0f", *r.rate) : fmt("%.1f", *r.rate)) + " " + r.unit;
}

std::string status_cell(const std::string& status, const Style& style) {
  if (status == "pass") return style.green(status);
  if (status == "fail") return style.red(status);
  if (status == "warn" || status == "no-gpu") return style.yellow(status);
  return style.dim(status);
}

std::string libraries_text(const CheckReport& r, const Style& style) {
  Table t({"library", "opened as", "loaded from", "version", "ms", "prediction"});
  for (const auto& p : r.plan.libraries) {
    const LibraryLoad* a = r.probe.library(p.request.component);
    const LibraryComparison* c = comparison_for(r, p.request.component);
    std::string opened = p.request.open.find('/') == std::string::npos ? p.request.open : "path";
    std::string from = !a ? "(not reported)" : a->loaded ? a->path : style.red("failed: ") + a->error;
    t.add({p.soname, opened, from, a ? a->version : "", a ? fmt("%.1f", a->load_ms) : "",
           !c ? "" : c->matches ? "agrees" : style.yellow("differs")});
  }
  return t.render(style, 2);
}

std::string device_text(const CheckReport& r) {
  std::string out;
  const ProbeResult& p = r.probe;
  if (p.driver.init_called) {
    out += "driver   CUDA " + (p.driver.version ? driver_version_text(p.driver.version) : std::string("?")) +
           ", cuInit " + cu_result_name(p.driver.init_result);
    for (const auto& ph : p.phases)
      if (ph.name == "cuInit") out += fmt(" in %.0f ms", ph.ms);
    out += "\n";
  }
  if (p.device) {
    const DeviceInfo& d = *p.device;
    out += "device   " + std::to_string(d.ordinal) + ": " + d.name + ", sm_" + std::to_string(d.facts.cc_major) +
           std::to_string(d.facts.cc_minor) + ", " + std::to_string(d.facts.sms) + " SMs at " +
           fmt("%.0f MHz", d.facts.clock_khz / 1e3) + ", " + fmt("%.1f GiB", static_cast<double>(d.total_memory) / (1ull << 30)) +
           ", L2 " + fmt("%.0f MiB", d.l2_bytes / 1048576.0);
    if (auto bw = peak_bandwidth_gbs(d.facts)) out += fmt(", memory peak %.0f GB/s", *bw);
    if (d.persistence_mode) out += *d.persistence_mode ? ", persistence on" : ", persistence off";
    out += "\n";
  }
  return out;
}

std::string steps_text(const CheckReport& r, const Style& style) {
  Table t({"step", "status", "size", "median", "rate", "of peak", "of copy", "error", "tolerance"});
  std::map<std::string, std::vector<std::string>> skipped; // reason -> steps
  std::vector<std::string> notes;
  for (const auto& s : r.probe.steps) {
    if (s.status == StepStatus::skipped) {
      skipped[s.detail].push_back(s.name);
      continue;
    }
    StepRates rates = step_rates(s, r.probe);
    t.add({s.name, status_cell(to_string(s.status), style), s.size, s.times_ms.empty() ? "" : fmt("%.3f ms", s.median_ms()),
           rate_text(rates), percent(rates.of_peak), percent(rates.of_copy),
           s.max_error ? fmt("%.2g", *s.max_error) : "", s.tolerance ? fmt("%.0e", *s.tolerance) : ""});
    if (!s.error.empty()) notes.push_back(s.name + ": " + s.error);
  }
  std::string out = t.empty() ? "" : t.render(style, 2);
  for (const auto& n : notes) out += "  " + style.red("error") + " " + n + "\n";
  for (const auto& [why, names] : skipped) out += "  " + style.dim("skipped") + " " + util::join(names, ", ") + ": " + why + "\n";
  if (!r.probe.in_progress.empty()) out += "  " + style.red("unfinished") + " " + r.probe.in_progress + "\n";
  return out;
}

// The fatbins' prediction for the device next to what its steps did.
std::string coverage_text(const CheckReport& r, const Style& style) {
  if (r.coverage.empty()) return "";
  Table t({"kernels of", "predicted for " + r.coverage.front().device, "steps", "device", "prediction"});
  for (const auto& c : r.coverage)
    t.add({util::base_name(c.file), coverage_kind_text(c.predicted), util::join(c.steps, ", "), c.observed,
           !c.matches ? style.dim("no evidence") : *c.matches ? "agrees" : style.yellow("differs")});
  return t.render(style, 2);
}

std::string phases_text(const CheckReport& r) {
  std::vector<std::string> parts;
  for (const auto& l : r.probe.libraries) parts.push_back("dlopen " + util::base_name(l.open) + fmt(" %.1f ms", l.load_ms));
  for (const auto& p : r.probe.phases) parts.push_back(p.name + fmt(" %.1f ms", p.ms));
  return parts.empty() ? "" : "phases   " + util::join(parts, ", ") + "\n";
}

std::string python_text(const CheckReport& r, const Style& style) {
  if (!r.python_requested) return "";
  Table t({"framework", "status", "version", "detail"});
  for (const auto& p : r.python) {
    std::string detail = p.error.empty() ? p.detail : p.error;
    if (!p.finding.empty()) detail += " [doctor: " + p.finding + "; fix: " + p.fix + "]";
    t.add({p.framework, status_cell(to_string(p.status), style), p.version, detail});
  }
  const bool never_started = !r.python_child.started && r.python_child.spawn_error.empty();
  std::string out = "python (" + (never_started ? std::string("not run") : describe(r.python_child, r.timeout_s)) + ")\n";
  return out + (t.empty() ? "  no results\n" : t.render(style, 2));
}
} // namespace

std::string check_text(const CheckReport& r, const Style& style) {
  std::string out = style.bold("condacuda check") + ": " + r.env.prefix + " (" + env::to_string(r.env.kind) +
                    (r.plan.cuda_major > 0 ? ", CUDA " + std::to_string(r.plan.cuda_major) : std::string()) + ", " +
                    r.sizes_name + " sizes)\n";
  std::string source = r.ld_library_path_source == launch::ActivatedSource::hook ? "(the env's condacuda hook applied)"
                       : r.ld_library_path_source == launch::ActivatedSource::plan
                           ? "(not repaired: with the folders repair would add, as `condacuda run` gives them)"
                       : r.ld_library_path_source == launch::ActivatedSource::stale_hook
                           ? "(the env changed since its repair: with the folders repair would add today, as `condacuda run` "
                             "gives them)"
                           : "(as this shell has it)";
  out += path_variable_text("LD_LIBRARY_PATH", "LD_LIBRARY_PATH", r.ld_library_path, source) + "\n";
  out += libraries_text(r, style);
  for (const auto& p : r.plan.libraries)
    if (p.request.open.find('/') != std::string::npos) out += "  " + style.dim(p.soname + ": " + p.reason) + "\n";
  out += "\n" + device_text(r) + phases_text(r) + "\n" + steps_text(r, style);
  if (std::string coverage = coverage_text(r, style); !coverage.empty()) out += "\n" + coverage;
  if (!r.warnings.empty()) {
    out += "\nwarnings\n";
    for (const auto& w : r.warnings) out += "  " + style.yellow(w.code) + " " + w.message + "\n";
  }
  out = fit(out); // lines built whole; the findings' commands below are laid out as they must stay
  if (!r.findings.empty()) {
    out += "\ndoctor explains\n";
    for (const auto& f : r.findings)
      out += wrap("  " + style.red(f.code) + " ", 3 + f.code.size(), f.title, 4) + fix_block("    fix: ", 9, f.fix);
  }
  std::string py = python_text(r, style);
  if (!py.empty()) out += fit("\n" + py);
  std::string verdict = r.outcome == Outcome::pass ? style.green("PASS") : r.outcome == Outcome::fail ? style.red("FAIL")
                                                                                                       : style.yellow("NO GPU");
  out += fit("\nresult: " + verdict + ": " + r.reason + fmt(" (%.2f s)", r.wall_ms / 1000) + "\n");
  return out;
}

Rendering check_rendering(const check::CheckReport& report, int exit_code) {
  return {[&report](const Style& style) { return check_text(report, style); }, false,
          [&report, exit_code] { return check_json(report, exit_code); }, check::to_string(report.outcome), {}};
}

} // namespace condacuda::report
