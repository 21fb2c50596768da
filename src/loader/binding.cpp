// Symbol binding: the l_versions table (_dl_check_map_versions), check_match
// and do_lookup_x of glibc's elf/dl-version.c and elf/dl-lookup.c
// (docs/loader-model.md §6.3, §6.4, §7).
#include <algorithm>

#include "elf/elf_constants.hpp"
#include "loader/simulator.hpp"
#include "loader/versions.hpp"
#include "util/memo_text.hpp"

namespace condacuda::loader {

namespace {
// The version a reference asks for: its versym entry's, when the object has
// a versym table and the entry names a version (hash 0: none, the
// unversioned indices 0 and 1).
const VersionRef* version_of_reference(const elf::ElfObject& elf, const std::vector<VersionRef>& versions,
                                       const elf::Symbol& sym) {
  if (elf.has_versym() && sym.version < versions.size() && versions[sym.version].hash != 0) return &versions[sym.version];
  return nullptr;
}
} // namespace

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

const std::vector<Simulator::StableMiss>& Simulator::stable_misses(const Process& p, int referrer, std::uint64_t global) {
  const LoadedObject& obj = p.objects[static_cast<std::size_t>(referrer)];
  const MissKey key{obj.elf.get(), global};
  if (auto it = stable_misses_.find(key); it != stable_misses_.end()) return it->second;
  const auto& versions = versions_of(*obj.elf);
  std::vector<StableMiss> misses;
  for (std::uint32_t index : obj.elf->undefined_symbols()) {
    auto sym = obj.elf->symbol(index);
    if (!sym || sym->bind == elf::stb_weak) continue; // weak references never fail (E7)
    if (sym->visibility == elf::stv_hidden || sym->visibility == elf::stv_internal) continue;
    const VersionRef* version = version_of_reference(*obj.elf, versions, *sym);
    Lookup found = lookup(p, referrer, *sym, version, 0, obj.stable_scopes);
    if (found.assertion) misses.push_back({index, true});
    else if (found.object < 0) misses.push_back({index, false});
  }
  return stable_misses_.emplace(key, std::move(misses)).first->second;
}

Simulator::BoundSymbol Simulator::resolve(const Process& process, int referrer, std::string_view name) {
  const LoadedObject& obj = process.objects[static_cast<std::size_t>(referrer)];
  if (!obj.elf) return {};
  const auto& versions = versions_of(*obj.elf);
  for (std::uint32_t index : obj.elf->undefined_symbols()) {
    auto sym = obj.elf->symbol(index);
    if (!sym || sym->name != name) continue;
    const VersionRef* version = version_of_reference(*obj.elf, versions, *sym);
    Lookup found = lookup(process, referrer, *sym, version);
    if (found.object < 0 || found.assertion) return {};
    const auto& defs = versions_of(*process.objects[static_cast<std::size_t>(found.object)].elf);
    std::string vname = found.version < defs.size() ? defs[found.version].name : "";
    return {found.object, vname};
  }
  return {};
}

// ---------------------------------------------------------------- binding an object's references

namespace {
// The assertion's text names its line of elf/dl-lookup.c: 111 in glibc 2.31,
// 107 in 2.36 (both measured; the releases between are not, and take 2.36's).
std::string check_match_assertion(int glibc_minor) {
  return std::string("Inconsistency detected by ld.so: dl-lookup.c: ") + (glibc_minor <= 31 ? "111" : "107") +
         ": check_match: Assertion `version->filename == NULL || ! _dl_name_match_p (version->filename, map)' failed!";
}

// FNV-1a over the files of the global scope: the key under which binding
// results in the root-independent scopes are cached.
std::uint64_t global_scope_fingerprint(const Process& p) {
  std::uint64_t global = 1469598103934665603ull;
  for (int g : p.global_scope) {
    global ^= reinterpret_cast<std::uintptr_t>(p.objects[static_cast<std::size_t>(g)].elf.get());
    global *= 1099511628211ull;
  }
  return global;
}

// The failures in the order ld.so meets them: relocation order. A symbol no
// relocation uses is never looked up (dropped); one only PLT relocations use
// waits for its first call under lazy binding (lazy_only).
std::vector<UnboundReference> in_relocation_order(const elf::ElfObject& elf, std::vector<UnboundReference> unbound,
                                                    bool immediate) {
  auto relocs = elf.relocation_order();
  std::vector<std::pair<std::size_t, UnboundReference>> met;
  for (auto& u : unbound) {
    std::size_t first_use = relocs.empty() ? u.index : relocs.size();
    bool plt_only = true, used = relocs.empty();
    for (std::size_t r = 0; r < relocs.size(); ++r) {
      if (relocs[r].symbol != u.index) continue;
      if (!used) first_use = r;
      used = true;
      plt_only = plt_only && relocs[r].plt;
    }
    if (!used) continue;
    u.lazy_only = !immediate && plt_only;
    met.emplace_back(first_use, std::move(u));
  }
  std::stable_sort(met.begin(), met.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<UnboundReference> out;
  for (auto& m : met) out.push_back(std::move(m.second));
  return out;
}

// What ld.so says about one reference that did not bind (elf/dl-lookup.c
// _dl_lookup_symbol_x: "undefined symbol: NAME, version VERSION").
LoadError unbound_error(const Process& p, int object, const UnboundReference& u, int glibc_minor) {
  const LoadedObject& obj = p.objects[static_cast<std::size_t>(object)];
  LoadError e;
  e.object = object;
  e.name = std::string(u.symbol.name);
  e.lazy_only = u.lazy_only;
  if (u.assertion) {
    e.kind = ErrorKind::assertion;
    e.text = check_match_assertion(glibc_minor);
    return e;
  }
  e.kind = ErrorKind::undefined_symbol;
  e.objname = obj.is_main ? p.argv0 : obj.name;
  e.text = "undefined symbol: " + e.name;
  if (u.version) {
    e.text += ", version " + u.version->name;
    e.version = u.version->name;
    e.library = u.version->filename;
  }
  return e;
}

// A reference that did not bind, as ld.so meets it: one only PLT slots use
// is reported but the load succeeds (it fails when first called); any other
// fails the load.
void report_unbound(LoadReport& report, LoadError e) {
  if (e.lazy_only) report.errors.push_back(std::move(e));
  else report.fail(std::move(e));
}
} // namespace

std::vector<UnboundReference> Simulator::unbound_references(const Process& p, int object, std::uint64_t global) {
  const LoadedObject& obj = p.objects[static_cast<std::size_t>(object)];
  const auto& versions = versions_of(*obj.elf);
  std::vector<UnboundReference> out;
  // What the root-independent scopes left unbound is looked up in the rest.
  for (const StableMiss& miss : stable_misses(p, object, global)) {
    auto sym = obj.elf->symbol(miss.index);
    const VersionRef* version = version_of_reference(*obj.elf, versions, *sym);
    if (miss.assertion) {
      out.push_back({miss.index, *sym, version, true, false});
      continue;
    }
    Lookup found = lookup(p, object, *sym, version, obj.stable_scopes);
    if (found.object < 0 || found.assertion) out.push_back({miss.index, *sym, version, found.assertion, false});
  }
  return out;
}

// ---------------------------------------------------------------- binding's outcome kept across runs

namespace {
// One reference that did not bind, as kept: its object's position in the
// binding order, its symbol index, whether it is check_match's assertion,
// whether only PLT slots use it.
void keep(std::string& kept, std::size_t position, const UnboundReference& u) {
  util::put_number_field(kept, position);
  util::put_number_field(kept, u.index);
  util::put_number_field(kept, u.assertion);
  util::put_number_field(kept, u.lazy_only);
}
} // namespace

std::string Simulator::binding_inputs(const Process& p, const std::vector<int>& order, Binding binding) const {
  // What lookup reads: each object's file (its symbol, hash and version
  // tables, its DT_BIND_NOW) and, for one without a versym table, the names
  // it goes by (check_match's assertion, E6); each bound object's scope
  // lists; the release and whether every reference binds at once.
  std::string in = "bindings 1";
  util::put_raw(in, config_.glibc_minor);
  util::put_raw(in, static_cast<char>(binding == Binding::now || config_.bind_now));
  util::put_raw(in, p.objects.size());
  for (const LoadedObject& o : p.objects) {
    if (o.faked || !o.elf) {
      in += 'n';
      continue;
    }
    if (!o.stamp.known()) return {};
    in += 'f';
    put_stamp(in, o.stamp);
    if (o.elf->has_versym()) continue;
    util::put_raw_text(in, o.is_main ? std::string_view() : std::string_view(o.name));
    util::put_raw(in, o.aliases.size());
    for (const auto& a : o.aliases) util::put_raw_text(in, a);
    util::put_raw_text(in, o.soname ? std::string_view(*o.soname) : std::string_view("\n"));
  }
  util::put_raw(in, order.size());
  for (int l : order) {
    const LoadedObject& o = p.objects[static_cast<std::size_t>(l)];
    util::put_raw(in, l);
    util::put_raw(in, o.scope.size());
    for (const auto& list : o.scope) {
      util::put_raw(in, list.size());
      in.append(reinterpret_cast<const char*>(list.data()), list.size() * sizeof(int));
    }
  }
  return in;
}

bool Simulator::replay_bindings(const Process& p, const std::vector<int>& order, std::string_view kept,
                                LoadReport& report) {
  // Every entry is checked against the files before any is reported: one
  // that does not fit makes the whole value a miss.
  std::vector<std::pair<int, UnboundReference>> met;
  util::FieldReader fields(kept);
  while (!fields.done()) {
    std::uint64_t position = 0, index = 0, assertion = 0, lazy_only = 0;
    if (!fields.number(position) || !fields.number(index) || !fields.number(assertion) || !fields.number(lazy_only) ||
        position >= order.size() || index > UINT32_MAX || assertion > 1 || lazy_only > 1)
      return false;
    const int object = order[position];
    const LoadedObject& obj = p.objects[static_cast<std::size_t>(object)];
    if (obj.faked || !obj.elf || !obj.elf->has_symbols()) return false;
    auto sym = obj.elf->symbol(static_cast<std::uint32_t>(index));
    if (!sym || sym->defined()) return false;
    const auto& versions = versions_of(*obj.elf);
    const VersionRef* version = version_of_reference(*obj.elf, versions, *sym);
    met.push_back({object, UnboundReference{static_cast<std::uint32_t>(index), *sym, version, assertion == 1, lazy_only == 1}});
  }
  for (const auto& [object, u] : met) report_unbound(report, unbound_error(p, object, u, config_.glibc_minor));
  return true;
}

void Simulator::bind_symbols(const Process& p, const std::vector<int>& order, Binding binding, LoadReport& report) {
  // A repeated run binds nothing again: the outcome is kept under the files'
  // stamps and the scopes, and replayed (an eighth of its time went to
  // looking up the symbols of the CUDA 13 env's 31 roots).
  ResultMemo* memo = files_.result_memo();
  const std::string inputs = memo ? binding_inputs(p, order, binding) : std::string();
  if (!inputs.empty())
    if (auto kept = memo->find(inputs); kept && replay_bindings(p, order, *kept, report)) return;
  std::string kept;
  const std::uint64_t global = global_scope_fingerprint(p);
  for (std::size_t position = 0; position < order.size(); ++position) {
    const int l = order[position];
    const LoadedObject& obj = p.objects[static_cast<std::size_t>(l)];
    if (obj.faked || !obj.elf || !obj.elf->has_symbols()) continue;
    std::vector<UnboundReference> unbound = unbound_references(p, l, global);
    if (unbound.empty()) continue;
    bool immediate = binding == Binding::now || config_.bind_now || obj.elf->dynamic().bind_now;
    for (const UnboundReference& u : in_relocation_order(*obj.elf, std::move(unbound), immediate)) {
      keep(kept, position, u);
      report_unbound(report, unbound_error(p, l, u, config_.glibc_minor));
    }
  }
  if (!inputs.empty()) memo->remember(inputs, kept);
}

} // namespace condacuda::loader
