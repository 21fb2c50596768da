#pragma once
// A repair the env has outgrown: envs change after `repair` (a wheel
// installed, `conda update`, `pip uninstall`), while the hook keeps the
// folders and links planned then. Compares what the manifest records with
// today's plan, and finds the links repair made whose target is gone. Pure:
// doctor reports both as findings, `run` and `check` use today's plan when the
// hook is stale.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/findings.hpp"
#include "loader/file_system_view.hpp"
#include "repair/manifest.hpp"
#include "repair/plan.hpp"

namespace condacuda::repair {

// What a repair today would change in the recorded one, one line each
// ("+ folder X", "- link Y -> T", "folder order: ..."); empty when it is current.
std::vector<std::string> plan_difference(const Manifest& recorded, const RepairPlan& today);

// The symlinks the manifest lists whose target does not exist, or whose
// folder holds nothing else (`folder_names`: the names in each link's folder,
// by folder, prefix-relative; a package removed as pip does leaves its folder
// with only condacuda's link in it). Prefix-relative, in manifest order.
std::vector<std::string> dangling_links(const Manifest& recorded, const std::string& prefix,
                                        loader::FileSystemView& files,
                                        const std::map<std::string, std::vector<std::string>>& folder_names);

// The findings: `stale-repair` (warning) and `dangling-repair-link` (warning).
doctor::Finding stale_repair_finding(const std::string& prefix, const std::vector<std::string>& difference);
doctor::Finding dangling_link_finding(const std::string& prefix, const std::vector<std::string>& links);
// `unreadable-repair-record` (error): the manifest is there but cannot be
// read (`why`: corrupt, cut short, not a regular file, or written by a newer
// condacuda); repair and undo refuse the env until it is mended.
doctor::Finding unreadable_record_finding(const std::string& prefix, const Error& why);

// `unverified-launch`: this shell's launch (`shell`: its LD_LIBRARY_PATH
// without the hook) is none of those the repair verified (`recorded`).
// `difference`: what a repair from this shell would change (plan_difference);
// a warning when it would change something, else information (a repair
// from here only records the launch). `needs_pins`: this launch fails
// without activation (a not-activated finding): a warning whose fix is
// `repair --pin`, never "it needs nothing more" beside that finding.
doctor::Finding unverified_launch_finding(const std::string& prefix, const std::optional<std::string>& shell,
                                          const std::vector<std::optional<std::string>>& recorded,
                                          const std::vector<std::string>& difference, bool needs_pins = false);

} // namespace condacuda::repair
