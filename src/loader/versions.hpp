#pragma once
// Symbol-version facts shared by the simulator and the alignment rules.
#include <cstdint>
#include <string>
#include <vector>

#include "elf/elf_object.hpp"
#include "loader/process.hpp"

namespace condacuda::loader {

// One entry of an object's l_versions table.
struct VersionRef {
  std::string name;
  std::uint32_t hash = 0; // 0: no version (index 0, 1, or the base definition)
  bool hidden = false;
  std::string filename;   // for requirements: the soname they are required from
};

// l_versions as _dl_check_map_versions builds it: requirements by their
// vna_other index, non-base definitions by vd_ndx.
std::vector<VersionRef> build_version_table(const elf::ElfObject& elf);

// check_match of glibc's elf/dl-lookup.c for one object: a visible
// definition of `name` with version `wanted`, or an unversioned one a
// non-hidden reference accepts (docs/loader-model.md §6.4 E5b).
// loader/binding.cpp has the full rules, tied to a simulated process; this is
// "is it there at all". `versions`: build_version_table(provider).
bool defines_versioned(const elf::ElfObject& provider, const std::vector<VersionRef>& versions, std::string_view name,
                       const VersionRef& wanted);

// Whether `provider` defines every non-weak symbol `requester` references
// under a version node required from `soname`: a copy the requester can bind
// to, where another copy of that soname may lack newer entry points.
bool satisfies_versioned_references(const elf::ElfObject& requester, const elf::ElfObject& provider,
                                    const std::string& soname);

// _dl_name_match_p plus the soname: does `name` name this object?
bool name_matches(const LoadedObject& obj, const std::string& name);

} // namespace condacuda::loader
