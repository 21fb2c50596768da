#pragma once
// What the system layer reads from an env (sys/env_scan.cpp) and hands to the
// pure inventory: file names, symlinks, ELF headers and package records.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elf/elf_object.hpp"
#include "inventory/records.hpp"

namespace condacuda::inventory {

struct ScannedFile {
  std::string path;        // relative to the prefix
  bool symlink = false;
  std::string link_target; // symlinks: the target as stored
  std::string resolved;    // symlinks: the final file relative to the prefix ("" outside the env or broken)
  std::uint64_t size = 0;
  std::shared_ptr<const elf::ElfObject> elf; // header and dynamic section; null when not ELF
  std::string elf_error;   // why the ELF parse failed ("" when not attempted or fine)
};

struct EnvSnapshot {
  std::string prefix;                      // absolute
  std::vector<std::string> site_packages;  // relative to the prefix
  std::vector<ScannedFile> shared_objects; // every *.so / *.so.* file or symlink, sorted by path
  std::vector<Distribution> distributions;
  std::vector<CondaPackage> conda_packages;
  std::optional<std::string> python;       // the env's interpreter, relative ("bin/python3")
  std::vector<std::string> warnings;       // unreadable records and the like
};

} // namespace condacuda::inventory
