#include "report/lock_report.hpp"

#include "report/layout.hpp"

#include <cstdio>

#include "report/document.hpp"
#include "util/strings.hpp"

namespace condacuda::report {

using util::Json;

Json lock_json(const lock::Lockfile& lock, const env::EnvRecord& env, const std::string& output) {
  Json j = Json::object();
  j.set("schema", "condacuda.lock/2");
  j.set("env", env_json(env));
  j.set("output", output.empty() ? Json() : Json(output));
  j.set("version", lock.version);
  Json table = Json::object();
  table.set("name", lock.release_table);
  table.set("sha256", lock.release_table_sha256);
  j.set("release_table", table);
  Json alignment = Json::object();
  alignment.set("series", lock.alignment.series);
  alignment.set("aligned", lock.alignment.aligned);
  Json rules = Json::array();
  for (const auto& r : lock.alignment.rules) {
    Json rj = Json::object();
    rj.set("rule", r.rule);
    rj.set("result", lock::to_string(r.result));
    rj.set("min_release", r.min_release.empty() ? Json() : Json(r.min_release));
    Json evidence = Json::array();
    for (const auto& e : r.evidence) evidence.push(e);
    rj.set("evidence", evidence);
    rules.push(rj);
  }
  alignment.set("rules", rules);
  j.set("alignment", alignment);
  Json components = Json::array();
  for (const auto& c : lock.components) {
    Json cj = Json::object();
    cj.set("component", c.component);
    cj.set("soname", c.soname);
    cj.set("path", c.path);
    cj.set("manager", c.manager);
    cj.set("package", c.package);
    cj.set("version", c.version);
    cj.set("build", c.build.empty() ? Json() : Json(c.build));
    cj.set("sha256", c.sha256);
    cj.set("toolkit", c.toolkit);
    cj.set("cuda_major", c.cuda_major > 0 ? Json(c.cuda_major) : Json());
    cj.set("cuda_release", c.cuda_release);
    components.push(cj);
  }
  j.set("components", components);
  return j;
}

std::string lock_check_text(const lock::LockDiff& diff, const std::string& lock_name, const std::string& env_name,
                            const Style& style, const lock::LoadsHere& loads) {
  std::string out;
  std::string verdict = diff.aligned ? "aligned to " + diff.series : "NOT aligned (series " + diff.series + ")";
  const bool here = loads.loads() && diff.rules_here.empty();
  if (diff.matches()) {
    out += lock_name + ": env '" + env_name + "' " + style.green("matches") + " (" + std::to_string(diff.components) +
           " libraries, " + verdict + ")" + (here ? "" : " but " + style.red("does not load here")) + "\n";
  } else {
    out += lock_name + ": env '" + env_name + "' " + style.red("has drifted") + ": " + std::to_string(diff.changes.size()) +
           " change" + (diff.changes.size() == 1 ? "" : "s") + "\n";
    Table table({"CHANGE", "WHAT", "LOCKED", "NOW"});
    for (const auto& c : diff.changes) table.add({lock::to_string(c.kind), c.what, c.locked, c.now});
    out += table.render(style, 2);
    for (const auto& c : diff.changes)
      for (const auto& why : c.why) out += fit("  " + c.what + " now: " + why + "\n");
    if (!here) out += "  and it does not load here:\n";
  }
  // Lines built whole are fitted to 100 columns; a fix's commands are laid out by fix_block.
  out = fit(out);
  if (!loads.loads()) {
    const std::size_t n = loads.failures.size();
    out += fit("  " + std::to_string(n) + " locked librar" + (n == 1 ? "y does" : "ies do") +
               " not load with this shell's LD_LIBRARY_PATH (" +
               (loads.ld_library_path ? (loads.ld_library_path->empty() ? "empty" : *loads.ld_library_path) : "unset") +
               "), as condacuda doctor finds it:\n");
    for (const auto& f : loads.failures) {
      out += wrap("  " + style.red(f.code) + " ", 3 + f.code.size(), f.component + " " + f.library + ": " + f.first_error, 4);
      if (!f.fix.empty()) out += fix_block("    fix: ", 9, f.fix);
    }
  }
  std::string rest;
  for (const auto& r : diff.rules_here) {
    rest += "  " + style.red("rule " + r.rule + " fails here") + " (" + r.locked + " when locked)";
    rest += r.why.empty() ? "\n" : ": " + util::join(r.why, "; ") + "\n";
  }
  for (const auto& n : diff.notes) rest += "  " + style.dim("note: " + n) + "\n";
  return out + fit(rest);
}

Json lock_check_json(const lock::LockDiff& diff, const std::string& lock_path, const env::EnvRecord& env,
                     const lock::LoadsHere& loads) {
  Json j = Json::object();
  j.set("schema", "condacuda.lock-check/1");
  j.set("env", env_json(env));
  j.set("lock", lock_path);
  j.set("matches", lock::check_outcome(diff, loads) == lock::CheckOutcome::matches);
  Json changes = Json::array();
  for (const auto& c : diff.changes) {
    Json cj = Json::object();
    cj.set("kind", lock::to_string(c.kind));
    cj.set("what", c.what);
    cj.set("locked", c.locked);
    cj.set("now", c.now);
    Json why = Json::array();
    for (const auto& w : c.why) why.push(w);
    cj.set("why", why);
    changes.push(cj);
  }
  j.set("changes", changes);
  Json here = Json::object();
  here.set("ld_library_path", loads.ld_library_path ? Json(*loads.ld_library_path) : Json());
  here.set("loads", loads.loads());
  Json failures = Json::array();
  for (const auto& f : loads.failures) {
    Json fj = Json::object();
    fj.set("library", f.library);
    fj.set("component", f.component);
    fj.set("code", f.code);
    fj.set("first_error", f.first_error);
    fj.set("fix", f.fix);
    failures.push(fj);
  }
  here.set("failures", failures);
  j.set("loads_here", here);
  Json rules = Json::array();
  for (const auto& r : diff.rules_here) {
    Json rj = Json::object();
    rj.set("rule", r.rule);
    rj.set("locked", r.locked);
    Json why = Json::array();
    for (const auto& w : r.why) why.push(w);
    rj.set("why", why);
    rules.push(rj);
  }
  j.set("rules_here", rules);
  Json notes = Json::array();
  for (const auto& n : diff.notes) notes.push(n);
  j.set("notes", notes);
  Json current = Json::object();
  current.set("series", diff.series);
  current.set("aligned", diff.aligned);
  current.set("components", diff.components);
  j.set("now", current);
  return j;
}

std::string hash_stats_text(const app::LockedEnv& locked) {
  const auto& s = locked.stats;
  char line[160];
  std::snprintf(line, sizeof line, "hashed %zu files: %zu from the cache, %zu read (%.1f MB) in %.2f s", s.files,
                s.from_cache, s.hashed, double(s.bytes_hashed) / 1e6, s.seconds);
  return line;
}

Rendering lock_rendering(const app::LockOutcome& o, const app::LockOptions& options) {
  if (o.status == app::LockStatus::checked)
    return {[&o, &options](const Style& style) { return lock_check_text(o.check->diff, options.check, o.env->name, style, o.check->loads); },
            false, [&o, &options] { return lock_check_json(o.check->diff, options.check, *o.env, o.check->loads); },
            lock::to_string(o.check->outcome), {}};
  return {[&o, &options](const Style&) { return options.output.empty() ? o.yaml : std::string(); }, true,
          [&o, &options] { return lock_json(o.current->lock, *o.env, options.output); },
          o.current->lock.alignment.aligned ? "aligned" : "misaligned", {}};
}

} // namespace condacuda::report
