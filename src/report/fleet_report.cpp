#include "report/fleet_report.hpp"

#include "report/layout.hpp"

#include "report/document.hpp"

#include <cstdio>
#include "util/strings.hpp"

namespace condacuda::report {

namespace {
using util::Json;

constexpr std::size_t findings_shown = 3; // per class in the text; --json has them all
constexpr std::size_t cell_width = 60; // a list of sonames in the table; --json has it whole

Json strings(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push(s);
  return a;
}

Json optional_text(const std::optional<std::string>& s) { return s ? Json(*s) : Json(); }

std::string header_of(fleet::Fact f) {
  switch (f) {
  case fleet::Fact::glibc: return "GLIBC";
  case fleet::Fact::driver: return "DRIVER";
  case fleet::Fact::gpus: return "GPUS";
  case fleet::Fact::ld_library_path: return "LD_LIBRARY_PATH";
  case fleet::Fact::system_cuda_folders: return "SYSTEM CUDA";
  case fleet::Fact::ld_so_cache_cuda: return "LD.SO.CACHE CUDA";
  }
  return "";
}

std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000);
  return buf;
}

// What a node's document says, on one line: a document from --from could
// otherwise forge lines of the report (its control bytes are escaped later,
// for the terminal, with the rest).
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string cut(const std::string& s) { return s.size() <= cell_width ? s : s.substr(0, cell_width - 3) + "..."; }

std::string count_text(std::size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

Json facts_json(const fleet::NodeClass& c, const fleet::NodeRecord& r) {
  const fleet::Facts& f = r.facts;
  Json j = Json::object();
  j.set("glibc", f.glibc);
  Json driver = Json::object();
  driver.set("branch", f.driver_branch ? Json(f.driver_branch) : Json());
  driver.set("versions", strings(c.driver_versions));
  driver.set("source", f.driver_source);
  j.set("driver", driver);
  j.set("gpus", strings(f.gpus));
  j.set("gpus_source", f.gpus_source);
  j.set("ld_library_path", optional_text(f.ld_library_path));
  j.set("system_cuda_folders", strings(f.system_cuda_folders));
  j.set("ld_so_cache_cuda", strings(f.ld_so_cache_cuda));
  return j;
}

Json finding_json(const fleet::FindingLine& l) {
  Json j = Json::object();
  j.set("code", l.code);
  j.set("severity", l.severity);
  j.set("title", l.title);
  j.set("library", l.library.empty() ? Json() : Json(l.library));
  j.set("via_entry", l.via_entry.empty() ? Json() : Json(l.via_entry));
  j.set("first_error", l.first_error.empty() ? Json() : Json(l.first_error));
  j.set("fix", l.fix);
  return j;
}

// `node`: one node's, with its own detail; else a class's.
Json no_answer_json(const fleet::NoAnswer& n, bool node) {
  Json j = Json::object();
  j.set("kind", fleet::to_string(n.kind));
  j.set("reason", n.reason);
  j.set("exit_code", n.exit_code);
  if (node) j.set("detail", n.detail.empty() ? Json() : Json(n.detail));
  return j;
}

Json class_json(const fleet::NodeClass& c, const fleet::Fleet& f) {
  const fleet::NodeRecord& r = f.example(c);
  Json j = Json::object();
  j.set("hostlist", c.hostlist);
  Json nodes = Json::array();
  for (std::size_t m : c.members) nodes.push(f.nodes[m].node);
  j.set("nodes", nodes);
  j.set("count", static_cast<int>(c.members.size()));
  j.set("exit_code", c.exit_code);
  j.set("verdict", c.verdict);
  j.set("no_answer", r.no_answer ? no_answer_json(*r.no_answer, false) : Json());
  j.set("facts", c.silent ? Json() : facts_json(c, r));
  Json mixed = Json::array();
  for (fleet::Fact fact : c.mixed) mixed.push(fleet::to_string(fact));
  j.set("mixed", mixed);
  Json distinct = Json::object();
  for (const auto& [fact, text] : c.distinct) distinct.set(fleet::to_string(fact), text);
  j.set("distinct", distinct);
  Json findings = Json::array();
  for (const auto& l : r.verdict.findings) findings.push(finding_json(l));
  j.set("findings", findings);
  if (!c.silent && r.verdict.check_outcome) {
    Json check = Json::object();
    check.set("outcome", *r.verdict.check_outcome);
    check.set("exit_code", r.verdict.check_exit_code);
    check.set("reason", r.verdict.check_reason);
    j.set("check", check);
  } else {
    j.set("check", Json());
  }
  j.set("next", c.next.empty() ? Json() : Json(c.next));
  return j;
}

// "next  words", the commands in them each alone on its lines, `indent` in.
std::string next_lines(const std::string& label, std::size_t label_width, const std::string& text, std::size_t indent) {
  return fix_block(std::string(indent, ' ') + label + "  ", indent + label_width + 2, text);
}

std::string class_details(const fleet::NodeClass& c, const fleet::Fleet& f, const Style& style) {
  const fleet::NodeRecord& r = f.example(c);
  std::string out = "\n" + wrap("", 0,
                                style.bold(one_line(c.hostlist)) + "  " + count_text(c.members.size(), "node", "nodes") + ": " +
                                    (c.exit_code == 0 ? style.green(c.verdict) : style.red(c.verdict)),
                                2);
  if (r.no_answer) {
    out += wrap("  " + style.dim("why") + "   ", 8, one_line(r.no_answer->reason), 8);
    if (c.members.size() == 1 && !r.no_answer->detail.empty()) out += wrap("        ", 8, style.dim(one_line(r.no_answer->detail)), 8);
  }
  std::size_t shown = 0;
  for (const auto& l : r.verdict.findings) {
    if (shown == findings_shown) {
      out += "  " + style.dim("... " + std::to_string(r.verdict.findings.size() - shown) + " more (--json)") + "\n";
      break;
    }
    ++shown;
    out += wrap("  " + (l.severity == "error" ? style.red(style.bold("ERROR")) : style.yellow(style.bold("WARN "))) + " " +
                    style.bold(one_line(l.code)) + "  ",
                10 + l.code.size(), one_line(l.title), 8);
    // The loader's error once a class: a second finding with the same one does not repeat it.
    const bool again = std::any_of(r.verdict.findings.begin(), r.verdict.findings.begin() + static_cast<std::ptrdiff_t>(shown - 1),
                                   [&](const auto& earlier) { return earlier.first_error == l.first_error; });
    if (!l.first_error.empty() && !again) out += wrap("    " + style.dim("error") + " ", 10, one_line(l.first_error), 10);
  }
  if (r.verdict.check_outcome && r.verdict.check_exit_code != 0)
    out += wrap("  " + style.dim("check") + " ", 8, one_line(*r.verdict.check_outcome) + ": " + one_line(r.verdict.check_reason), 8);
  if (!c.next.empty()) out += next_lines(style.green("next"), 4, one_line(c.next), 2);
  return out;
}
} // namespace

std::string fleet_outcome(int exit_code) {
  switch (exit_code) {
  case 0: return "healthy";
  case 1: return "problems";
  case 3: return "no-gpu";
  case fleet::exit_no_answer: return "no-answer";
  default: return "error";
  }
}

std::string fleet_text(const app::FleetOutcome& o, const Style& style) {
  const fleet::Fleet& f = o.fleet;
  std::string out = style.bold("fleet") + "  ";
  out += o.env ? one_line(o.env->name + "  " + o.env->prefix) : count_text(o.inputs.size(), "file", "files");
  out += "\n" + count_text(f.nodes.size(), "node", "nodes") + ", " + std::to_string(f.answered()) + " answered, " +
         count_text(f.classes.size(), "class", "classes") + style.dim("  (" + std::string(app::to_string(o.source)) + ", " +
                                                                       (o.context ? std::string(doctor::to_string(*o.context)) + " launch, " : "") +
                                                                       seconds(o.wall_ms) + ")") +
         "\n\n";
  std::vector<std::string> headers = {"NODES", "N", "VERDICT"};
  for (fleet::Fact fact : f.differing) headers.push_back(header_of(fact));
  Table t(headers);
  for (const auto& c : f.classes) {
    std::vector<std::string> row = {one_line(c.hostlist), std::to_string(c.members.size()), one_line(c.verdict)};
    for (fleet::Fact fact : f.differing) {
      std::string cell;
      for (const auto& [which, text] : c.distinct)
        if (which == fact) cell = one_line(fact == fleet::Fact::ld_so_cache_cuda ? cut(text) : text); // paths are never cut
      row.push_back(c.silent ? "" : cell);
    }
    t.add(row);
  }
  out = fit(out + t.render(style, 2)); // the header and the table's long cells within 100 columns
  for (const auto& c : f.classes)
    if (c.exit_code != 0 || !f.example(c).verdict.findings.empty()) out += class_details(c, f, style);
  if (f.shared_repair_note) out += "\n" + next_lines(style.yellow("one env, several launches:"), 26, one_line(*f.shared_repair_note), 0);
  if (!f.repeated.empty())
    out += "\n" + wrap("", 0, style.dim(count_text(f.repeated.size(), "node", "nodes") + " came with more than one document (the last kept): " +
                                      one_line(util::join(f.repeated, ", "))), 2);
  // (no fit() over the rest: a command's lines are laid out by fix_block and must stay as they are)
  return out;
}

Json fleet_json(const app::FleetOutcome& o) {
  const fleet::Fleet& f = o.fleet;
  Json j = Json::object();
  j.set("schema", "condacuda.fleet/1");
  if (o.env) j.set("env", env_json(*o.env));
  j.set("source", app::to_string(o.source));
  j.set("context", o.context ? Json(doctor::to_string(*o.context)) : Json());
  j.set("commands", strings(o.commands));
  j.set("inputs", strings(o.inputs));
  j.set("wall_ms", o.wall_ms);
  Json summary = Json::object();
  summary.set("nodes", static_cast<int>(f.nodes.size()));
  summary.set("answered", static_cast<int>(f.answered()));
  summary.set("classes", static_cast<int>(f.classes.size()));
  j.set("summary", summary);
  Json differing = Json::array();
  for (fleet::Fact fact : f.differing) differing.push(fleet::to_string(fact));
  j.set("differing", differing);
  Json classes = Json::array();
  for (const auto& c : f.classes) classes.push(class_json(c, f));
  j.set("classes", classes);
  j.set("shared_repair_note", optional_text(f.shared_repair_note));
  j.set("repeated", strings(f.repeated));
  std::vector<int> class_of(f.nodes.size(), 0);
  for (std::size_t i = 0; i < f.classes.size(); ++i)
    for (std::size_t m : f.classes[i].members) class_of[m] = static_cast<int>(i);
  Json nodes = Json::array();
  for (std::size_t i = 0; i < f.nodes.size(); ++i) {
    const fleet::NodeRecord& r = f.nodes[i];
    Json n = Json::object();
    n.set("name", r.node);
    n.set("class", class_of[i]);
    n.set("exit_code", r.exit_code());
    n.set("no_answer", r.no_answer ? no_answer_json(*r.no_answer, true) : Json());
    n.set("doctor", r.doctor);
    n.set("check", r.check);
    nodes.push(std::move(n));
  }
  j.set("nodes", nodes);
  return j;
}

Rendering fleet_rendering(const app::FleetOutcome& outcome) {
  return {[&outcome](const Style& style) { return fleet_text(outcome, style); }, false,
          [&outcome] { return fleet_json(outcome); }, fleet_outcome(outcome.fleet.exit_code), {}};
}

} // namespace condacuda::report
