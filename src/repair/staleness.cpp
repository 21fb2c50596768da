#include "repair/staleness.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "launch/launch.hpp"
#include "repair/hooks.hpp"

namespace condacuda::repair {

namespace {
namespace fs = std::filesystem;

std::set<std::string> recorded_links(const Manifest& m) {
  std::set<std::string> out;
  for (const auto& e : m.entries)
    if (e.kind == ManifestEntry::Kind::symlink) out.insert(e.path + " -> " + e.target);
  return out;
}

std::set<std::string> planned_links(const RepairPlan& plan) {
  std::set<std::string> out;
  for (const auto& l : plan.links) out.insert(l.path + " -> " + l.target);
  return out;
}

// "+ what x" for each of `now` not in `was`, "- what x" for the reverse.
void add_set_difference(std::vector<std::string>& out, const char* what, const std::set<std::string>& was,
                        const std::set<std::string>& now) {
  for (const auto& x : now)
    if (!was.count(x)) out.push_back(std::string("+ ") + what + " " + x);
  for (const auto& x : was)
    if (!now.count(x)) out.push_back(std::string("- ") + what + " " + x);
}
} // namespace

std::vector<std::string> plan_difference(const Manifest& recorded, const RepairPlan& today) {
  std::vector<std::string> out;
  const std::vector<std::string> now = today.folder_paths();
  std::set<std::string> was_folders(recorded.folders.begin(), recorded.folders.end()), now_folders(now.begin(), now.end());
  add_set_difference(out, "folder", was_folders, now_folders);
  if (out.empty() && recorded.folders != now) {
    std::string order;
    for (const auto& f : now) order += (order.empty() ? "" : ", ") + f;
    out.push_back("folder order: " + order);
  }
  add_set_difference(out, "link", recorded_links(recorded), planned_links(today));
  if (recorded.pin || today.pin) {
    std::set<std::string> was_pins, now_pins;
    for (const auto& p : recorded.pins) was_pins.insert(p.path);
    for (const auto& p : today.pins) now_pins.insert(p.path);
    add_set_difference(out, "pin", was_pins, now_pins);
  }
  return out;
}

std::vector<std::string> dangling_links(const Manifest& recorded, const std::string& prefix,
                                        loader::FileSystemView& files,
                                        const std::map<std::string, std::vector<std::string>>& folder_names) {
  std::set<std::string> links;
  for (const auto& e : recorded.entries)
    if (e.kind == ManifestEntry::Kind::symlink) links.insert(e.path);
  std::vector<std::string> out;
  for (const auto& e : recorded.entries) {
    if (e.kind != ManifestEntry::Kind::symlink) continue;
    fs::path link = fs::path(prefix) / e.path;
    std::string target = (link.parent_path() / e.target).lexically_normal().string();
    std::string folder = fs::path(e.path).parent_path().generic_string();
    auto names = folder_names.find(folder);
    bool alone = names != folder_names.end() && std::all_of(names->second.begin(), names->second.end(), [&](const std::string& n) {
                   return links.count(folder.empty() ? n : folder + "/" + n) > 0;
                 });
    if (!files.open_verify(target).opened() || alone) out.push_back(e.path);
  }
  return out;
}

doctor::Finding stale_repair_finding(const std::string& prefix, const std::vector<std::string>& difference) {
  doctor::Finding f;
  f.code = doctor::code::stale_repair;
  f.severity = doctor::Severity::warning;
  f.title = "the env changed since `condacuda repair`: its hooks and links are out of date";
  f.evidence = {"the manifest records the plan of that repair; planned today, it differs:"};
  for (const auto& d : difference) f.evidence.push_back("  " + d);
  f.evidence.push_back("until repaired again, `condacuda run` and `check` use today's plan; activation uses the old one");
  f.fix = "run `condacuda repair -p " + quote_posix(prefix) + "` (updates the hooks and links in one step)";
  return f;
}

doctor::Finding unreadable_record_finding(const std::string& prefix, const Error& why) {
  doctor::Finding f;
  f.code = doctor::code::unreadable_repair_record;
  f.severity = doctor::Severity::error;
  const std::string manifest = prefix + "/" + std::string(manifest_path);
  const bool newer = why.code == ErrorCode::unsupported;
  f.title = newer ? "the record of this env's repair was written by a newer condacuda"
                  : "the record of this env's repair is corrupt: " + std::string(manifest_path);
  f.affects = {std::string(manifest_path)};
  f.evidence = {why.message,
                "condacuda does not guess what its repair created: `repair` and `undo` refuse this env until the "
                "record is mended",
                "doctor judges the env as if it had no condacuda hook"};
  f.fix = newer ? "use that condacuda (or a newer one) for `repair` and `undo` on this env"
                : "restore " + quote_posix(manifest) + " from a backup, or move it away and run `condacuda repair -p " +
                      quote_posix(prefix) + "` (it takes hooks and links that are what it writes as its own)";
  return f;
}

doctor::Finding unverified_launch_finding(const std::string& prefix, const std::optional<std::string>& shell,
                                          const std::vector<std::optional<std::string>>& recorded,
                                          const std::vector<std::string>& difference, bool needs_pins) {
  doctor::Finding f;
  f.code = doctor::code::unverified_launch;
  const bool changes = !difference.empty() || needs_pins;
  f.severity = changes ? doctor::Severity::warning : doctor::Severity::info;
  f.title = "this shell's LD_LIBRARY_PATH differs from every launch `condacuda repair` verified" +
            std::string(!changes ? " (it needs nothing more)"
                        : needs_pins ? ": without activation it fails (not-activated), and a repair --pin from here fixes it"
                                     : ": a repair from here would change the env");
  f.evidence = {"this shell, without the env's hook: LD_LIBRARY_PATH " + launch::describe(shell),
                "the launches the repair verified:"};
  for (const auto& l : recorded) f.evidence.push_back("  " + launch::describe(l));
  if (!difference.empty()) {
    f.evidence.push_back("planned with this launch too, the repair differs:");
    for (const auto& d : difference) f.evidence.push_back("  " + d);
  }
  f.evidence.push_back("the env itself did not change since the repair");
  f.fix = "run `condacuda repair " + std::string(needs_pins ? "--pin " : "") + "-p " + quote_posix(prefix) +
          "` from this shell: it adds this launch and keeps every recorded one working";
  return f;
}

doctor::Finding dangling_link_finding(const std::string& prefix, const std::vector<std::string>& links) {
  doctor::Finding f;
  f.code = doctor::code::dangling_repair_link;
  f.severity = doctor::Severity::warning;
  f.title = std::to_string(links.size()) +
            " symlink(s) condacuda repair made outlived what they were for (a package was removed)";
  f.affects = links;
  f.evidence = {"each points at nothing, or is all that is left in its folder",
                "a link left in a package's folder keeps that folder alive after the package is gone"};
  f.fix = "run `condacuda repair -p " + quote_posix(prefix) + "` (or `condacuda undo`): both remove them";
  return f;
}

} // namespace condacuda::repair
