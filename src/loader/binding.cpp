// Symbol binding: the l_versions table (_dl_check_map_versions), check_match
// and do_lookup_x of glibc's elf/dl-version.c and elf/dl-lookup.c
// (loader.md §6.3, §6.4, §7).
#include <algorithm>

#include "elf/elf_constants.hpp"
#include "loader/simulator.hpp"
#include "loader/versions.hpp"

namespace condacuda::loader {

const std::vector<VersionRef>& Simulator::versions_of(const elf::ElfObject& elf) {
  auto it = versions_.find(&elf);
  if (it != versions_.end()) return it->second;
  return versions_.emplace(&elf, build_version_table(elf)).first->second;
}

bool Simulator::do_lookup(const LoadedObject& obj, const elf::HashedName& name, const VersionRef* version,
                          bool& assertion, std::uint16_t& found_version) {
  const elf::ElfObject& elf = *obj.elf;
  const std::vector<VersionRef>* defs = nullptr; // looked up with the first candidate: most objects have none
  int num_versions = 0;
  bool found = false, found_versioned = false;
  std::uint8_t found_bind = 0, versioned_bind = 0;
  std::uint16_t versioned_index = 0;
  elf.for_each_named(name, [&](std::uint32_t, const elf::Symbol& sym) {
    // check_match: only real definitions of code or data.
    if (sym.value == 0 && sym.shndx != elf::shn_abs && sym.type != elf::stt_tls) return true;
    if (sym.shndx == elf::shn_undef) return true;
    constexpr unsigned allowed = (1u << elf::stt_notype) | (1u << elf::stt_object) | (1u << elf::stt_func) |
                                 (1u << elf::stt_common) | (1u << elf::stt_tls) | (1u << elf::stt_gnu_ifunc);
    if (sym.type >= 32 || !((1u << sym.type) & allowed)) return true;
    if (sym.visibility == elf::stv_hidden || sym.visibility == elf::stv_internal) return true;
    if (version) {
      if (!elf.has_versym()) {
        // A versioned reference into the very library it names, which has
        // no versym table: ld.so asserts on 2.31-2.40 (E6); 2.41 accepts.
        if (!version->filename.empty() && config_.glibc_minor <= 40 && name_matches(obj, version->filename)) {
          assertion = true;
          return false;
        }
      } else {
        if (!defs) defs = &versions_of(elf);
        const VersionRef* def = sym.version < defs->size() ? &(*defs)[sym.version] : nullptr;
        std::uint32_t def_hash = def ? def->hash : 0;
        bool same = def && def->hash == version->hash && def->name == version->name;
        // A non-hidden reference also accepts an unversioned, non-hidden definition (E5b).
        if (!same && (version->hidden || def_hash != 0 || sym.hidden_version)) return true;
      }
    } else if (elf.has_versym() && sym.version >= 3) {
      // Unversioned reference: indices 0-2 match at once; one non-hidden
      // versioned definition is taken only if it is the only one (E5).
      if (!sym.hidden_version && num_versions++ == 0) {
        found_versioned = true;
        versioned_bind = sym.bind;
        versioned_index = sym.version;
      }
      return true;
    }
    found = true;
    found_bind = sym.bind;
    found_version = sym.version;
    return false;
  });
  if (assertion) return false;
  if (!found && found_versioned && num_versions == 1) {
    found = true;
    found_bind = versioned_bind;
    found_version = versioned_index;
  }
  // Local bindings are ignored: the search goes on with the next object.
  return found && (found_bind == elf::stb_global || found_bind == elf::stb_weak || found_bind == elf::stb_gnu_unique);
}

Simulator::Lookup Simulator::lookup(const Process& p, int referrer, const elf::Symbol& ref, const VersionRef* version,
                                    std::size_t first, std::size_t last) {
  // _dl_lookup_symbol_x: the referrer's scopes in order, each object in
  // order; the first definition wins.
  const LoadedObject& obj = p.objects[static_cast<std::size_t>(referrer)];
  last = std::min(last, obj.scope.size());
  const elf::HashedName name(ref.name); // hashed once for the whole scope
  for (std::size_t s = first; s < last; ++s) {
    const auto& list = obj.scope[s];
    for (int index : list) {
      const LoadedObject& candidate = p.objects[static_cast<std::size_t>(index)];
      if (candidate.faked || !candidate.elf || !candidate.elf->has_symbols()) continue;
      bool assertion = false;
      std::uint16_t found_version = 0;
      if (do_lookup(candidate, name, version, assertion, found_version)) return Lookup{index, false, found_version};
      if (assertion) return Lookup{index, true, 0};
    }
  }
  return Lookup{};
}

Simulator::Cached Simulator::lookup_stable(const Process& p, int referrer, std::uint32_t index, const elf::Symbol& ref,
                                           const VersionRef* version, std::uint64_t global_fingerprint) {
  const LoadedObject& obj = p.objects[static_cast<std::size_t>(referrer)];
  BindKey key{obj.elf.get(), index, global_fingerprint};
  auto it = bind_cache_.find(key);
  if (it != bind_cache_.end()) return it->second;
  Lookup found = lookup(p, referrer, ref, version, 0, obj.stable_scopes);
  Cached result = found.assertion ? Cached::assertion : found.object >= 0 ? Cached::found : Cached::not_found;
  bind_cache_.emplace(key, result);
  return result;
}

Simulator::BoundSymbol Simulator::resolve(const Process& process, int referrer, std::string_view name) {
  const LoadedObject& obj = process.objects[static_cast<std::size_t>(referrer)];
  if (!obj.elf) return {};
  const auto& versions = versions_of(*obj.elf);
  for (std::uint32_t index : obj.elf->undefined_symbols()) {
    auto sym = obj.elf->symbol(index);
    if (!sym || sym->name != name) continue;
    const VersionRef* version = nullptr;
    if (obj.elf->has_versym() && sym->version < versions.size() && versions[sym->version].hash != 0)
      version = &versions[sym->version];
    Lookup found = lookup(process, referrer, *sym, version);
    if (found.object < 0 || found.assertion) return {};
    const auto& defs = versions_of(*process.objects[static_cast<std::size_t>(found.object)].elf);
    std::string vname = found.version < defs.size() ? defs[found.version].name : "";
    return {found.object, vname};
  }
  return {};
}

} // namespace condacuda::loader
