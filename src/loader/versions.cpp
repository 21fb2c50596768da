#include "loader/versions.hpp"

#include "elf/elf_constants.hpp"

namespace condacuda::loader {

std::vector<VersionRef> build_version_table(const elf::ElfObject& elf) {
  std::vector<VersionRef> table;
  auto slot = [&](std::uint16_t index) -> VersionRef& {
    if (table.size() <= index) table.resize(static_cast<std::size_t>(index) + 1);
    return table[index];
  };
  for (const auto& need : elf.version_needs()) {
    for (const auto& e : need.entries) {
      VersionRef& v = slot(e.other & 0x7fff);
      v.name = std::string(e.name);
      v.hash = e.hash;
      v.hidden = (e.other & elf::versym_hidden) != 0;
      v.filename = std::string(need.file);
    }
  }
  for (const auto& def : elf.version_definitions()) {
    if (def.flags & elf::ver_flg_base) continue; // the soname is not a version to bind to
    VersionRef& v = slot(def.index & 0x7fff);
    v.name = std::string(def.name);
    v.hash = def.hash;
    v.hidden = false;
    v.filename.clear();
  }
  return table;
}

bool name_matches(const LoadedObject& obj, const std::string& name) {
  if (!obj.is_main && obj.name == name) return true;
  for (const auto& alias : obj.aliases)
    if (alias == name) return true;
  return obj.soname && *obj.soname == name;
}

} // namespace condacuda::loader
