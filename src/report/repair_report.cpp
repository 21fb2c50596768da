#include "report/repair_report.hpp"

#include "report/layout.hpp"

#include <algorithm>

#include "report/info_report.hpp"
#include "report/programs_report.hpp"

namespace condacuda::report {

using util::Json;

namespace {
// An array of `items`, each rendered by `to_json`.
template <class T, class ToJson> Json array_of(const std::vector<T>& items, ToJson to_json) {
  Json a = Json::array();
  for (const auto& item : items) a.push(to_json(item));
  return a;
}

// An object with these fields, in this order.
Json object_of(std::initializer_list<std::pair<const char*, Json>> fields) {
  Json o = Json::object();
  for (const auto& [name, value] : fields) o.set(name, value);
  return o;
}

// The error findings that make a scenario fail (package findings do not: no
// repair changes them, the notes name them).
std::size_t blocking_errors(const repair::Scenario& s) {
  return static_cast<std::size_t>(std::count_if(s.report.findings.begin(), s.report.findings.end(),
                                                [&](const doctor::Finding& f) { return s.blocks(f); }));
}
Json pin_changes_json(const repair::ChangeSet& set) {
  Json a = Json::array();
  for (const auto& c : set.pins) {
    Json j = Json::object();
    j.set("path", c.pin.path);
    j.set("action", repair::to_string(c.action));
    j.set("reason", c.reason);
    j.set("original_sha256", c.pin.original_sha256);
    j.set("pinned_sha256", c.pin.pinned_sha256);
    j.set("link_target", c.pin.link_target.empty() ? Json() : Json(c.pin.link_target));
    a.push(j);
  }
  return a;
}

std::string pin_verb(repair::PinChange::Action a) {
  switch (a) {
  case repair::PinChange::Action::pin: return "pin   ";
  case repair::PinChange::Action::keep: return "keep  ";
  case repair::PinChange::Action::unpin: return "unpin ";
  case repair::PinChange::Action::drop: return "drop  ";
  case repair::PinChange::Action::leave: return "leave ";
  case repair::PinChange::Action::conflict: return "REFUSE";
  }
  return "";
}

std::string pin_changes_text(const repair::ChangeSet& set, const Style& style) {
  std::string out;
  for (const auto& c : set.pins)
    out += "  " + (c.action == repair::PinChange::Action::conflict ? style.red(pin_verb(c.action)) : pin_verb(c.action)) +
           " " + c.pin.path + "  " + style.dim("(pin: " + c.reason + ")") + "\n";
  return out;
}

Json changes_json(const repair::ChangeSet& set) {
  Json a = Json::array();
  for (const auto& c : set.changes) {
    Json j = Json::object();
    j.set("path", c.path);
    j.set("kind", c.kind == repair::ManifestEntry::Kind::file ? "file" : "symlink");
    j.set("action", repair::to_string(c.action));
    j.set("reason", c.reason);
    a.push(j);
  }
  return a;
}

Json scenario_json(const repair::Scenario& s) {
  Json j = Json::object();
  j.set("name", s.name);
  j.set("description", s.description);
  j.set("required", s.required);
  j.set("healthy", s.report.healthy());
  j.set("passes", s.passes());
  int fails = 0;
  for (const auto& r : s.report.roots) fails += r.loads ? 0 : 1;
  j.set("roots", static_cast<int>(s.report.roots.size()));
  j.set("fails", fails);
  Json findings = Json::array();
  for (const auto& f : s.report.findings) {
    Json fj = Json::object();
    fj.set("code", f.code);
    fj.set("severity", doctor::to_string(f.severity));
    fj.set("title", f.title);
    fj.set("fix", f.fix);
    findings.push(fj);
  }
  j.set("findings", findings);
  return j;
}

std::string verb(repair::Change::Action a) {
  switch (a) {
  case repair::Change::Action::create: return "create";
  case repair::Change::Action::update: return "update";
  case repair::Change::Action::keep: return "keep  ";
  case repair::Change::Action::remove: return "remove";
  case repair::Change::Action::leave: return "leave ";
  case repair::Change::Action::conflict: return "REFUSE";
  }
  return "";
}
} // namespace

Json repair_json(const app::RepairOutcome& r) {
  Json j = Json::object();
  j.set("schema", "condacuda.repair/1");
  j.set("env", env_json(r.env));
  j.set("dry_run", r.dry_run);
  j.set("outcome", app::to_string(r.status));
  Json plan = Json::object();
  Json folders = Json::array();
  for (const auto& f : r.plan.folders) {
    Json fj = Json::object();
    fj.set("path", f.path);
    Json s = Json::array();
    for (const auto& so : f.sonames) s.push(so);
    fj.set("sonames", s);
    folders.push(fj);
  }
  plan.set("folders", folders);
  plan.set("links", array_of(r.plan.links, [](const repair::PlannedLink& l) {
    return object_of({{"path", l.path}, {"target", l.target}, {"soname", l.soname}, {"needed_by", l.needed_by}});
  }));
  plan.set("pin", r.plan.pin);
  plan.set("pins", array_of(r.plan.pins, [](const repair::PlannedPin& p) {
    return object_of({{"path", p.path}, {"runpath", p.runpath}, {"reason", p.reason}, {"private_copy", p.private_copy}});
  }));
  plan.set("unpinnable", array_of(r.plan.unpinnable, [](const repair::UnpinnableRoot& u) {
    return object_of({{"root", u.root}, {"error", u.error}, {"why", u.why}});
  }));
  plan.set("copies", array_of(r.plan.copies, [](const repair::OneCopy& c) {
    return object_of({{"soname", c.soname}, {"file", c.file}});
  }));
  plan.set("order_limits", array_of(r.plan.order_limits, [](const repair::OrderLimit& l) {
    return object_of({{"launch", l.activated ? "activated" : "not-activated"}, {"soname", l.soname}, {"copy", l.copy},
                      {"requester", l.requester}, {"why", l.why}});
  }));
  Json hooks = Json::array();
  for (const auto& h : r.hooks) hooks.push(h);
  plan.set("hooks", hooks);
  Json launches = Json::array();
  for (const auto& l : r.plan.launches) launches.push(l ? Json(*l) : Json());
  plan.set("launches", launches);
  j.set("plan", plan);
  Json ver = Json::object();
  ver.set("ok", r.verification.ok);
  Json scenarios = Json::array();
  for (const auto& s : r.verification.scenarios) scenarios.push(scenario_json(s));
  ver.set("scenarios", scenarios);
  j.set("verification", ver);
  j.set("changes", r.changes ? changes_json(*r.changes) : Json());
  j.set("pin_changes", r.changes ? pin_changes_json(*r.changes) : Json());
  j.set("failure", r.failure ? Json(*r.failure) : Json());
  Json notes = Json::array();
  for (const auto& n : r.notes) notes.push(n);
  j.set("notes", notes);
  j.set("kernels", kernels_json(r.kernels));
  Json still = Json::array();
  for (const auto& f : r.still_failing) still.push(f.what + ". Fix: " + f.fix);
  j.set("still_failing", still);
  j.set("next_step", r.next_step.empty() ? Json() : Json(r.next_step));
  if (r.after) {
    Json a = Json::object();
    a.set("healthy", r.after->first == 0);
    a.set("errors", r.after->first);
    a.set("warnings", r.after->second);
    j.set("after", a);
  } else {
    j.set("after", Json());
  }
  return j;
}

namespace {
// A fix under its finding, `indent` in: "fix" and its words, then each
// command alone on a line that pastes.
std::string fix_lines(const std::string& fix, const Style& style, std::size_t indent) {
  return fix_block(std::string(indent, ' ') + style.green("fix") + "  ", indent + 5, fix);
}
} // namespace

std::string repair_text(const app::RepairOutcome& r, const Style& style) {
  std::string out = style.bold("env") + "  " + r.env.name + " (" + env::to_string(r.env.kind) + ")  " + r.env.prefix + "\n";
  out += "\n" + style.bold("Plan") + (r.dry_run ? " (dry run: nothing is written)" : "") + "\n";
  if (r.plan.empty()) out += "  nothing to add: no CUDA library of this env is needed through a search path\n";
  if (!r.plan.folders.empty()) {
    out += r.plan.activation ? "  first on LD_LIBRARY_PATH when the env is activated, in this order:\n"
                             : "  first on LD_LIBRARY_PATH under `condacuda run` (no hook: nothing activates a venv's "
                               "libraries), in this order:\n";
    for (const auto& f : r.plan.folders) {
      std::string sonames;
      for (const auto& s : f.sonames) sonames += (sonames.empty() ? "" : " ") + s;
      out += "    " + f.path + "  " + style.dim("(" + sonames + ")") + "\n";
    }
  }
  if (!r.plan.links.empty()) {
    out += "  symlinks, so the libraries' own search path finds them without activation:\n";
    for (const auto& l : r.plan.links)
      out += "    " + l.path + " -> " + l.target + "  " + style.dim("(needed by " + l.needed_by + ")") + "\n";
  }
  if (!r.plan.pins.empty()) {
    out += "  pinned (their own search path then comes before LD_LIBRARY_PATH; one tag per file), so LD_LIBRARY_PATH "
           "cannot shadow the env's copies:\n";
    for (const auto& p : r.plan.pins)
      out += "    " + p.path + "  " + style.dim("(searches '" + p.runpath + "' first; not activated " + p.reason + ")") + "\n";
  }
  if (!r.plan.unpinnable.empty()) {
    out += "  " + style.yellow("cannot be pinned") +
           (r.plan.activation ? " (load them activated, or with `condacuda run`):\n" : " (load them with `condacuda run`):\n");
    for (const auto& u : r.plan.unpinnable)
      out += "    " + u.root + "  " + style.dim(u.why) + "\n        " + u.error + "\n";
  }
  if (!r.plan.copies.empty()) {
    out += "  one copy per soname, so that every import order binds to the same one:\n";
    for (const auto& c : r.plan.copies) out += "    " + c.soname + "  " + style.dim(c.file) + "\n";
  }
  if (!r.plan.order_limits.empty()) {
    out += "  " + style.yellow("import order left for you") + " (no search path repair controls leads there):\n";
    for (const auto& l : r.plan.order_limits)
      out += "    " + std::string(l.activated ? "activated" : "not activated") + ": " + l.requester + " gets " + l.soname +
             " from " + l.copy + "  " + style.dim("(" + l.why + ")") + "\n";
  }
  // Lines built whole are fitted (fit); a fix's commands are laid out by fix_lines and stay as they are.
  out = fit(out);
  out += "\n" + style.bold("Verified") + " with the loader model, every CUDA library and what needs it, plan applied:\n";
  for (const auto& s : r.verification.scenarios) {
    int fails = 0;
    for (const auto& root : s.report.roots) fails += root.loads ? 0 : 1;
    std::string verdict = s.passes() ? style.green("ok") : (s.required ? style.red("FAILS") : style.yellow("fails"));
    out += fit("  " + verdict + "  " + s.name + ": " + std::to_string(s.report.roots.size() - static_cast<std::size_t>(fails)) + "/" +
           std::to_string(s.report.roots.size()) + " files load" +
           (fails == 0 && !s.passes() ? ", but " + std::to_string(blocking_errors(s)) + " error finding(s)" : std::string()) +
           "  " + style.dim("(" + s.description + ")") + "\n");
    if (!s.passes())
      for (const auto& f : s.report.findings)
        if (s.blocks(f)) out += wrap("        ", 8, f.code + ": " + f.title, 10) + fix_lines(f.fix, style, 8);
  }
  if (r.changes && (!r.changes->changes.empty() || !r.changes->pins.empty())) { // no empty heading
    std::string changes = "\n" + style.bold("Changes") + "\n";
    for (const auto& c : r.changes->changes)
      changes += "  " + (c.action == repair::Change::Action::conflict ? style.red(verb(c.action)) : verb(c.action)) + " " +
                 c.path + "  " + style.dim(c.reason) + "\n";
    out += fit(changes + pin_changes_text(*r.changes, style));
  }
  for (const auto& n : r.notes) {
    // "what. Fix: fix" (a finding repair leaves to the user): the fix's commands alone on lines.
    const auto at = n.find(". Fix: ");
    out += "\n" + wrap(style.bold("note") + ": ", 6, at == std::string::npos ? n : n.substr(0, at), 2);
    if (at != std::string::npos) out += fix_lines(n.substr(at + 7), style, 2);
  }
  if (r.failure) out += "\n" + wrap(style.red("nothing written: "), 17, *r.failure, 2);
  if (!r.kernels.empty())
    out += fit("\n" + style.bold("Jupyter kernels, verified after") + "\n" + kernels_text(r.kernels, style).substr(1));
  if (r.after) {
    // Never "healthy" alone while a known launch still fails (a launch without activation, a kernel).
    const std::string verdict = r.after->first != 0        ? style.red("not healthy")
                                : !r.still_failing.empty() ? style.yellow("healthy once activated")
                                                           : style.green("healthy");
    out += fit("\n" + style.bold("doctor after") + ": " + verdict + " (" + std::to_string(r.after->first) + " error(s), " +
               std::to_string(r.after->second) + " warning(s))" + (r.still_failing.empty() ? "" : "; still failing:") + "\n");
    for (const auto& f : r.still_failing) out += wrap("  - ", 4, f.what, 4) + fix_lines(f.fix, style, 4);
  }
  if (!r.next_step.empty())
    out += "\n" + style.bold("next") +
           (r.next_step.starts_with("condacuda run")
                ? ": nothing activates a venv's libraries; to load them here, start python through condacuda:\n"
                : ": this shell activated the env before its hook existed; to load it here:\n") +
           command_block(r.next_step, 4);
  return out;
}

Json undo_json(const app::UndoOutcome& u) {
  Json j = Json::object();
  j.set("schema", "condacuda.undo/1");
  j.set("env", env_json(u.env));
  j.set("had_manifest", u.had_manifest);
  j.set("changes", changes_json(u.changes));
  j.set("pin_changes", pin_changes_json(u.changes));
  return j;
}

std::string undo_text(const app::UndoOutcome& u, const Style& style) {
  if (!u.had_manifest) return "nothing to undo: " + u.env.prefix + " has no condacuda manifest\n";
  std::string out;
  for (const auto& c : u.changes.changes)
    out += verb(c.action) + " " + c.path + "  " + style.dim(c.reason) + "\n";
  for (const auto& c : u.changes.pins)
    out += pin_verb(c.action) + " " + c.pin.path + "  " + style.dim("(pin: " + c.reason + ")") + "\n";
  return fit(out);
}

Rendering repair_rendering(const app::RepairOutcome& r) {
  return {[&r](const Style& style) { return repair_text(r, style); }, false, [&r] { return repair_json(r); },
          app::to_string(r.status), {}};
}

Rendering undo_rendering(const app::UndoOutcome& u) {
  return {[&u](const Style& style) { return undo_text(u, style); }, false, [&u] { return undo_json(u); },
          u.left_something() ? "left-something" : u.had_manifest ? "undone" : "nothing-to-undo", {}};
}

std::string post_link_message(const app::PostLinkOutcome& outcome) {
  if (!outcome.repair)
    return "condacuda (" + outcome.prefix + "): repair skipped: this prefix is not a conda env (no conda-meta/history).\n";
  const app::RepairOutcome& o = *outcome.repair;
  std::string head = "condacuda (" + o.env.prefix + "): ";
  if (o.error) return head + "repair skipped: " + o.error->describe() + "\n";
  if (o.status == app::RepairStatus::repaired)
    return head + "repaired CUDA library loading: " + std::to_string(o.plan.folders.size()) +
           " folder(s) of this env go first on LD_LIBRARY_PATH when it is activated, " +
           std::to_string(o.plan.links.size()) +
           " symlink(s) let the libraries' own search path find them without activation" +
           (o.plan.pins.empty() ? std::string()
                                : ", " + std::to_string(o.plan.pins.size()) +
                                      " librar(ies) pinned (their own search path before LD_LIBRARY_PATH) so that it cannot shadow "
                                      "the env's copies") +
           ". `condacuda doctor` shows the result; `condacuda undo` takes it back.\n";
  if (o.status == app::RepairStatus::unchanged || o.status == app::RepairStatus::nothing_to_do) return "";
  std::string why;
  for (const auto& s : o.verification.scenarios)
    for (const auto& f : s.report.findings)
      if (why.empty() && f.severity == doctor::Severity::error) why = f.title + ". Fix: " + f.fix;
  if (o.status == app::RepairStatus::conflict) why = "files condacuda did not create are in the way under etc/conda";
  return head + "could not make the CUDA libraries load, nothing was changed: " + why +
         ". Run `condacuda doctor -p " + o.env.prefix + "` for details.\n";
}

} // namespace condacuda::report
