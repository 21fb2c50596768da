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

// _dl_name_match_p plus the soname: does `name` name this object?
bool name_matches(const LoadedObject& obj, const std::string& name);

} // namespace condacuda::loader
