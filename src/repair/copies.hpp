#pragma once
// Copies and links: which of the env's copies of a soname answers whom (one
// copy per soname for the whole env where one serves every consumer), the
// folders that provide them in the order the hook puts them first, and the
// symlinks that let a consumer's own $ORIGIN RUNPATH find a dependency
// without activation. Steps of plan_repair (repair/plan.cpp).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "inventory/inventory.hpp"
#include "loader/file_system_view.hpp"
#include "repair/overlay_view.hpp"
#include "repair/plan.hpp"

namespace condacuda::repair {

// The env's copies of `soname`: by DT_SONAME, then by file name, each in
// inventory order.
std::vector<const inventory::Library*> copies_of(const inventory::Inventory& inv, const std::string& soname);
// The env's first copy of `soname`, if it has one.
const inventory::Library* provider_by_soname(const inventory::Inventory& inv, const std::string& soname);

// A DT_NEEDED by soname on a root's loading chain: who needs it, the env copy
// its search found (null: none, or not the env's), and how.
struct Need {
  std::string requester; // absolute
  std::string found;     // the env library's file (prefix-relative), "" : none or not the env's
  loader::FoundVia via = loader::FoundVia::not_found;
};
using Needs = std::map<std::string, std::vector<Need>>; // soname -> every need of it

// Every need of the report's roots but those of the stray-major libraries.
Needs needs_of(const doctor::DoctorReport& report, loader::FileSystemView& files);

// One copy per soname for the whole env; a soname no copy serves alone is absent.
std::map<std::string, const inventory::Library*> one_copy_per_soname(const Needs& needs, const inventory::Inventory& inv,
                                                                      loader::FileSystemView& files, const std::string& prefix);

// Links that make a not-found dependency findable through $ORIGIN
// (`planned`: the links planned already, absolute).
std::vector<PlannedLink> links_for(const doctor::DoctorReport& report, loader::FileSystemView& files,
                                   const std::set<std::string>& planned);
// The links, as the overlay shows them once written.
void add_links(OverlayFileView& overlay, const std::string& prefix, const std::vector<PlannedLink>& links);

// For every need, the env folder whose copy should answer (folder -> the sonames it provides).
std::map<std::string, std::set<std::string>> needed_folders(const Needs& needs,
                                                            const std::map<std::string, const inventory::Library*>& one_copy,
                                                            const doctor::DoctorInputs& in, loader::FileSystemView& files);
// Those folders, in the order the hook puts them first.
std::vector<PlannedFolder> order_folders(const std::map<std::string, std::set<std::string>>& chosen,
                                         const inventory::Inventory& inv);

} // namespace condacuda::repair
