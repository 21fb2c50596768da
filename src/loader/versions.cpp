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

bool defines_versioned(const elf::ElfObject& provider, const std::vector<VersionRef>& versions, std::string_view name,
                       const VersionRef& wanted) {
  bool found = false;
  provider.for_each_named(name, [&](std::uint32_t, const elf::Symbol& sym) {
    if (!sym.defined() || sym.bind == elf::stb_local) return true;
    if (sym.visibility == elf::stv_hidden || sym.visibility == elf::stv_internal) return true;
    if (provider.has_versym()) {
      const VersionRef* def = sym.version < versions.size() ? &versions[sym.version] : nullptr;
      bool same = def && def->name == wanted.name;
      if (!same && (wanted.hidden || (def && def->hash != 0) || sym.hidden_version)) return true;
    }
    found = true;
    return false;
  });
  return found;
}

bool satisfies_versioned_references(const elf::ElfObject& requester, const elf::ElfObject& provider,
                                    const std::string& soname) {
  if (!requester.has_symbols() || !provider.has_symbols()) return false;
  const auto wanted = build_version_table(requester);
  const auto defined = build_version_table(provider);
  for (std::uint32_t i : requester.undefined_symbols()) {
    auto sym = requester.symbol(i);
    if (!sym || sym->bind == elf::stb_weak || sym->version < 2 || sym->version >= wanted.size()) continue;
    const VersionRef& need = wanted[sym->version];
    if (need.filename != soname) continue;
    if (!defines_versioned(provider, defined, sym->name, need)) return false;
  }
  return true;
}

bool name_matches(const LoadedObject& obj, const std::string& name) {
  if (!obj.is_main && obj.name == name) return true;
  for (const auto& alias : obj.aliases)
    if (alias == name) return true;
  return obj.soname && *obj.soname == name;
}

} // namespace condacuda::loader
