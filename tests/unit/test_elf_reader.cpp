// The ELF reader against readelf on a real library, then against hostile
// input: every truncation, seeded random corruption, and crafted damage to
// each table the reader touches. The contract (src/elf/elf_object.hpp): an
// error value or a valid parse, never a crash, an over-read or an endless
// loop. Run under -DCONDACUDA_SANITIZE=ON so that an over-read of one byte
// fails; every hostile buffer is its own exact-size heap block for that reason.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "elf/elf_constants.hpp"
#include "elf/elf_object.hpp"
#include "elf/pin.hpp"
#include "util/sha256.hpp"
#include "support/bytes_source.hpp"
#include "support/fixture.hpp"
#include "sys/mapped_file.hpp"

using condacuda::ErrorCode;
using condacuda::elf::ElfObject;
namespace elf = condacuda::elf;
namespace sys = condacuda::sys;

namespace {

using Bytes = std::vector<std::byte>;

// ------------------------------------------------------------ the real library

// A dependency with two versions of one symbol, and a library that needs it,
// libm and libc by version, defines versioned symbols of its own (VERDEF,
// VERNEED and VERSYM all present), has a SONAME and a RUNPATH.
constexpr const char* dep_source = R"(
int dep_old(void) { return 1; }
int dep_new(void) { return 2; }
__asm__(".symver dep_old, dep_fn@DEP_1.0");
__asm__(".symver dep_new, dep_fn@@DEP_2.0");
int dep_plain(void) { return 3; }
)";
constexpr const char* dep_map = "DEP_1.0 { global: dep_plain; dep_fn; local: *; };\nDEP_2.0 { global: dep_fn; } DEP_1.0;\n";

constexpr const char* demo_source = R"(
#include <stdio.h>
#include <math.h>
extern int dep_fn(void);
extern int dep_plain(void);
extern int weak_missing(void) __attribute__((weak));
int demo_counter = 3;
int demo_v1(double x) { printf("%f\n", cos(x)); return dep_fn() + dep_plain() + (weak_missing ? weak_missing() : 0); }
int demo_v2(double x) { return demo_v1(x) + 1; }
__asm__(".symver demo_v1, demo_fn@DEMO_1.0");
__asm__(".symver demo_v2, demo_fn@@DEMO_2.0");
int demo_plain(void) { return demo_counter; }
int demo_other(void) { return 7; }
)";
constexpr const char* demo_map =
    "DEMO_1.0 { global: demo_plain; demo_counter; demo_fn; local: *; };\nDEMO_2.0 { global: demo_fn; demo_other; } DEMO_1.0;\n";

enum class HashStyle { gnu, sysv, both };

const char* to_string(HashStyle h) {
  switch (h) {
  case HashStyle::gnu: return "gnu";
  case HashStyle::sysv: return "sysv";
  case HashStyle::both: return "both";
  }
  return "?";
}

// Many defined symbols, one name in two versions: hash tables with many
// buckets, to be made degenerate by hand.
std::string wide_source() {
  std::string src = "int wide_dup_old(void) { return 1; }\nint wide_dup_new(void) { return 2; }\n"
                    "__asm__(\".symver wide_dup_old, wide_dup@W_1\");\n"
                    "__asm__(\".symver wide_dup_new, wide_dup@@W_2\");\n";
  for (int i = 0; i < 600; ++i) src += "int wide_" + std::to_string(i) + "(void) { return " + std::to_string(i) + "; }\n";
  return src;
}
constexpr const char* wide_map = "W_1 { global: wide_[0-9]*; wide_dup; local: *; };\nW_2 { global: wide_dup; } W_1;\n";

// The libraries are compiled once per test process; the directory goes at exit.
struct BuiltLibraries {
  fixture::TempDir dir{"elf-reader"};
  std::map<HashStyle, std::string> demo, wide;

  BuiltLibraries() {
    fixture::write_file(dir / "wide.map", wide_map);
    fixture::write_file(dir / "dep.map", dep_map);
    fixture::write_file(dir / "demo.map", demo_map);
    fixture::shared_library(dir / "libdep.so", dep_source,
                            {"-Wl,--version-script=" + (dir / "dep.map"), "-Wl,-soname,libdep.so.1"});
    for (HashStyle h : {HashStyle::gnu, HashStyle::sysv, HashStyle::both}) {
      std::string out = dir / (std::string("libdemo-") + to_string(h) + ".so");
      fixture::shared_library(out, demo_source,
                              {"-Wl,--version-script=" + (dir / "demo.map"), "-Wl,-soname,libdemo.so.1",
                               "-L" + dir.path(), "-ldep", "-lm", "-Wl,-rpath,$ORIGIN/../lib",
                               "-Wl,--enable-new-dtags", std::string("-Wl,--hash-style=") + to_string(h)});
      demo[h] = out;
      std::string wide_out = dir / (std::string("libwide-") + to_string(h) + ".so");
      fixture::shared_library(wide_out, wide_source(),
                              {"-Wl,--version-script=" + (dir / "wide.map"), std::string("-Wl,--hash-style=") + to_string(h)});
      wide[h] = wide_out;
    }
  }
};

const BuiltLibraries& built() {
  static BuiltLibraries libs;
  return libs;
}

const std::string& demo_path(HashStyle h) { return built().demo.at(h); }
const std::string& wide_path(HashStyle h) { return built().wide.at(h); }

Bytes file_bytes(const std::string& path) {
  std::string s = fixture::read_file(path);
  Bytes b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// ------------------------------------------------------------ readelf as the oracle

struct ReadelfSymbol {
  std::uint32_t index = 0;
  std::string name;
  std::string version;     // "" when unversioned
  bool hidden = false;     // name@V for a definition (name@@V is the default)
  int version_index = -1;  // readelf's "(N)" after a versioned reference
  bool undefined = false;
  bool local = false;
};

struct ReadelfFacts {
  std::optional<std::string> soname, runpath, rpath;
  std::vector<std::string> needed;
  std::size_t symbol_count = 0;
  std::vector<ReadelfSymbol> symbols;
  struct Def {
    std::uint16_t index;
    bool base;
    std::string name;
  };
  std::vector<Def> defs;
  struct Need {
    std::string file;
    std::vector<std::pair<std::string, std::uint16_t>> versions; // name, index
  };
  std::vector<Need> needs;
  std::vector<std::pair<std::uint32_t, bool>> relocations; // symbol index, PLT; in file order
};

ReadelfFacts run_readelf(const std::string& path) {
  auto r = fixture::run({"/usr/bin/readelf", "-W", "--dyn-syms", "-V", "-d", "-r", path}, {{"LC_ALL", "C"}});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  ReadelfFacts f;
  static const std::regex dyn_re(R"(^\s*0x[0-9a-f]+ \((NEEDED|SONAME|RUNPATH|RPATH)\)\s+[^\[]*\[(.*)\]\s*$)");
  static const std::regex count_re(R"(^Symbol table '\.dynsym' contains (\d+) entr)");
  static const std::regex sym_re(
      R"(^\s*(\d+): [0-9a-f]+\s+\S+\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(\S*)(?: \((\d+)\))?\s*$)");
  static const std::regex def_re(R"(Rev: \d+\s+Flags: (\S+)\s+Index: (\d+)\s+Cnt: \d+\s+Name: (\S+))");
  static const std::regex need_re(R"(Version: \d+\s+File: (\S+)\s+Cnt: \d+)");
  static const std::regex aux_re(R"(Name: (\S+)\s+Flags: .*Version: (\d+))");
  static const std::regex rel_section_re(R"(^Relocation section '([^']+)')");
  static const std::regex rel_re(R"(^([0-9a-f]{8,16})\s+([0-9a-f]{8,16})\s+R_)");
  std::istringstream in(r.out);
  std::string line;
  bool in_dynsym = false, in_plt = false;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, count_re)) {
      f.symbol_count = std::stoul(m[1]);
      in_dynsym = true;
      continue;
    }
    if (line.empty()) in_dynsym = false;
    if (std::regex_match(line, m, dyn_re)) {
      std::string tag = m[1], value = m[2];
      if (tag == "NEEDED") f.needed.push_back(value);
      else if (tag == "SONAME") f.soname = value;
      else if (tag == "RUNPATH") f.runpath = value;
      else f.rpath = value;
    } else if (in_dynsym && std::regex_match(line, m, sym_re)) {
      ReadelfSymbol s;
      s.index = static_cast<std::uint32_t>(std::stoul(m[1]));
      s.local = m[3] == "LOCAL";
      s.undefined = m[5] == "UND";
      std::string name = m[6];
      if (m[7].matched) s.version_index = std::stoi(m[7]);
      auto at = name.find('@');
      if (at != std::string::npos) {
        s.hidden = name.compare(at, 2, "@@") != 0;
        s.version = name.substr(at + (s.hidden ? 1 : 2));
        name.resize(at);
      }
      s.name = name;
      f.symbols.push_back(s);
    } else if (std::regex_search(line, m, def_re)) {
      f.defs.push_back({static_cast<std::uint16_t>(std::stoul(m[2])), m[1] == "BASE", m[3]});
    } else if (std::regex_search(line, m, need_re)) {
      f.needs.push_back({m[1], {}});
    } else if (std::regex_search(line, m, aux_re)) {
      REQUIRE_FALSE(f.needs.empty());
      f.needs.back().versions.emplace_back(m[1], static_cast<std::uint16_t>(std::stoul(m[2])));
    } else if (std::regex_search(line, m, rel_section_re)) {
      in_plt = m[1] == ".rela.plt" || m[1] == ".rel.plt";
    } else if (std::regex_search(line, m, rel_re)) {
      auto sym = static_cast<std::uint32_t>(std::stoull(m[2], nullptr, 16) >> 32);
      if (sym != 0) f.relocations.emplace_back(sym, in_plt);
    }
  }
  return f;
}

std::shared_ptr<const ElfObject> parse_file(const std::string& path, bool with_symbols = true) {
  auto bytes = sys::map_file(path);
  REQUIRE_MESSAGE(bytes.ok(), bytes.error().describe());
  auto parsed = ElfObject::parse(*bytes, with_symbols);
  REQUIRE_MESSAGE(parsed.ok(), parsed.error().describe());
  return *parsed;
}

std::string version_name(const ElfObject& o, std::uint16_t index) {
  for (const auto& need : o.version_needs())
    for (const auto& e : need.entries)
      if ((e.other & 0x7fff) == index) return std::string(e.name);
  for (const auto& d : o.version_definitions())
    if (d.index == index) return std::string(d.name);
  return {};
}

// ------------------------------------------------------------ exercising a parsed object

// Everything a consumer (loader/simulator.cpp, loader/binding.cpp) does with
// an object. Each lookup may visit a symbol at most once per chain step, so
// more visits than symbols means a walk that did not stop.
void exercise(const ElfObject& o, const std::vector<std::string>& extra_names = {}) {
  (void)o.dynamic();
  (void)o.is_pie();
  for (const auto& d : o.version_definitions()) (void)d.name.size();
  for (const auto& n : o.version_needs())
    for (const auto& e : n.entries) (void)e.name.size();
  if (!o.has_symbols()) return;
  std::uint32_t count = o.symbol_count();
  for (std::uint32_t i = 0; i < count && i < (1u << 20); ++i) (void)o.symbol(i);
  (void)o.symbol(count);
  (void)o.symbol(0xffffffffu);
  std::vector<std::string> names(extra_names);
  for (std::uint32_t index : o.undefined_symbols()) {
    if (index >= count) FAIL_CHECK("undefined symbol index " << index << " >= count " << count);
    if (auto s = o.symbol(index)) names.emplace_back(s->name);
  }
  for (const auto& name : names) {
    std::uint64_t visits = 0;
    o.for_each_named(name, [&](std::uint32_t i, const elf::Symbol& s) {
      ++visits;
      if (i >= count || s.name != name) FAIL_CHECK("lookup of " << name << " visited symbol " << i);
      return true;
    });
    if (visits > std::uint64_t{count} + 1) FAIL_CHECK("lookup of " << name << " visited " << visits << " symbols");
  }
  for (const auto& ref : o.relocation_order()) (void)o.symbol(ref.symbol);
}

const std::vector<std::string>& probe_names() {
  static const std::vector<std::string> names = {"demo_fn", "demo_plain", "demo_counter", "demo_other", "printf",
                                                 "dep_fn", "", "x", "DEMO_2.0"};
  return names;
}

// What a parse says of the dynamic section, as text (the error, when it
// fails): a parse reading copies (elf/table_source.hpp) must say the same.
std::string dynamic_facts(const condacuda::Result<std::shared_ptr<const ElfObject>>& parsed) {
  if (!parsed) return "error: " + parsed.error().message;
  const ElfObject& o = **parsed;
  const elf::DynamicInfo& d = o.dynamic();
  std::string out = "dynamic " + std::to_string(o.has_dynamic()) + "\n";
  auto one = [&](const char* tag, const std::optional<std::string_view>& v) {
    out += std::string(tag) + (v ? " '" + std::string(*v) + "'" : " none") + "\n";
  };
  auto many = [&](const char* tag, const std::vector<std::string_view>& v) {
    for (auto x : v) out += std::string(tag) + " '" + std::string(x) + "'\n";
  };
  one("soname", d.soname);
  one("rpath", d.rpath);
  one("runpath", d.runpath);
  many("needed", d.needed);
  many("filter", d.filters);
  many("auxiliary", d.auxiliaries);
  out += "flags " + std::to_string(d.flags) + " " + std::to_string(d.flags_1) + " " + std::to_string(d.symbolic) +
         std::to_string(d.bind_now) + std::to_string(d.has_relr) + "\n";
  for (std::int64_t tag : {elf::dt_needed, elf::dt_runpath, elf::dt_rpath, elf::dt_null})
    for (auto at : o.dynamic_entry_offsets(tag)) out += "entry " + std::to_string(tag) + " at " + std::to_string(at) + "\n";
  return out;
}

// Parses a hostile buffer every way the tool does and uses the result.
// Returns "" for a valid parse, else the error message (which must say what).
std::string probe_bytes(const Bytes& input) {
  elf::FileBytes fb = elf::bytes_from_vector(input); // an exact-size copy: ASan sees one byte too far
  const elf::HeaderCheck header = elf::verify_header(fb.data, elf::em_x86_64);
  auto headers = ElfObject::parse(fb, false);
  if (headers) exercise(**headers);
  // Read through a copy source, as the env scan and the file view do: the same facts, the same errors.
  const fixture::BytesSource copies(input, false);
  const elf::HeaderCheck copied_header = elf::verify_header(fb.data, elf::em_x86_64, &copies);
  CHECK(copied_header.verdict == header.verdict);
  CHECK(copied_header.fatal_reason == header.fatal_reason);
  CHECK(copied_header.abi_tag.read == header.abi_tag.read);
  CHECK(copied_header.abi_tag.version == header.abi_tag.version);
  auto copied = ElfObject::parse(fb, false, &copies);
  CHECK(dynamic_facts(copied) == dynamic_facts(headers));
  if (copied && headers) exercise(**copied);
  auto full = ElfObject::parse(fb, true);
  CHECK(dynamic_facts(ElfObject::parse(fb, true, &copies)) == dynamic_facts(full));
  if (!full) {
    const auto& e = full.error();
    if (e.message.empty()) FAIL_CHECK("an error without a message");
    if (e.code != ErrorCode::corrupt && e.code != ErrorCode::unsupported)
      FAIL_CHECK("unexpected error code " << condacuda::to_string(e.code) << ": " << e.message);
    return e.message.empty() ? "?" : e.message;
  }
  exercise(**full, probe_names());
  return {};
}

// ------------------------------------------------------------ finding and patching tables

// Test-side field access; a miss is a bug in the test, reported as such.
template <class T>
T get(const Bytes& b, std::uint64_t at) {
  if (at + sizeof(T) > b.size()) FAIL("test reads past its buffer at " << at);
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

template <class T>
void put(Bytes& b, std::uint64_t at, T v) {
  if (at + sizeof(T) > b.size()) FAIL("test writes past its buffer at " << at);
  std::memcpy(b.data() + at, &v, sizeof(T));
}

struct Range {
  std::uint64_t offset = 0, size = 0;
};

// Section file ranges by name, from the section headers (the reader itself
// does not use them; the test does, to aim its damage).
std::map<std::string, Range> sections_of(const Bytes& b) {
  std::map<std::string, Range> out;
  auto shoff = get<std::uint64_t>(b, 40);
  auto shnum = get<std::uint16_t>(b, 60);
  auto shstrndx = get<std::uint16_t>(b, 62);
  auto strings = get<std::uint64_t>(b, shoff + 64ull * shstrndx + 24);
  for (std::uint16_t i = 1; i < shnum; ++i) {
    std::uint64_t sh = shoff + 64ull * i;
    const char* name = reinterpret_cast<const char*>(b.data() + strings + get<std::uint32_t>(b, sh));
    out[name] = Range{get<std::uint64_t>(b, sh + 24), get<std::uint64_t>(b, sh + 32)};
  }
  return out;
}

// File offset of the program header of the first segment of `type`.
std::uint64_t phdr_of(const Bytes& b, std::uint32_t type) {
  auto phoff = get<std::uint64_t>(b, 32);
  auto phnum = get<std::uint16_t>(b, 56);
  for (std::uint16_t i = 0; i < phnum; ++i)
    if (get<std::uint32_t>(b, phoff + 56ull * i) == type) return phoff + 56ull * i;
  FAIL("no program header of type " << type);
  return 0;
}

// File offset of the value of the first dynamic entry with `tag`.
std::optional<std::uint64_t> dyn_slot(const Bytes& b, std::int64_t tag) {
  std::uint64_t p = phdr_of(b, elf::pt_dynamic);
  auto offset = get<std::uint64_t>(b, p + 8), size = get<std::uint64_t>(b, p + 32);
  for (std::uint64_t at = offset; at + 16 <= offset + size; at += 16) {
    auto t = get<std::int64_t>(b, at);
    if (t == tag) return at + 8;
    if (t == elf::dt_null) break;
  }
  return std::nullopt;
}

std::uint64_t dyn(const Bytes& b, std::int64_t tag) {
  auto slot = dyn_slot(b, tag);
  REQUIRE_MESSAGE(slot, "no dynamic tag " << tag);
  return get<std::uint64_t>(b, *slot);
}

void set_dyn(Bytes& b, std::int64_t tag, std::uint64_t value) {
  auto slot = dyn_slot(b, tag);
  REQUIRE_MESSAGE(slot, "no dynamic tag " << tag);
  put(b, *slot, value);
}

// Makes the last PT_LOAD cover the file up to its end and returns the virtual
// address of file offset `offset` under it (to aim a table at the file's end).
std::uint64_t map_to_end(Bytes& b, std::uint64_t offset) {
  auto phoff = get<std::uint64_t>(b, 32);
  auto phnum = get<std::uint16_t>(b, 56);
  std::uint64_t last = 0;
  for (std::uint16_t i = 0; i < phnum; ++i)
    if (get<std::uint32_t>(b, phoff + 56ull * i) == elf::pt_load) last = phoff + 56ull * i;
  REQUIRE(last != 0);
  auto seg_offset = get<std::uint64_t>(b, last + 8), seg_vaddr = get<std::uint64_t>(b, last + 16);
  REQUIRE(offset >= seg_offset);
  put<std::uint64_t>(b, last + 32, b.size() - seg_offset);
  return seg_vaddr + (offset - seg_offset);
}

// In the fixtures the first PT_LOAD starts at offset 0 and virtual address 0,
// and holds every table but .dynamic: a file offset there is its address.
void require_identity_mapped(const Bytes& b) {
  std::uint64_t p = phdr_of(b, elf::pt_load);
  REQUIRE(get<std::uint64_t>(b, p + 8) == 0);
  REQUIRE(get<std::uint64_t>(b, p + 16) == 0);
}

} // namespace

// ============================================================ agreement with readelf

TEST_CASE("a real library parses as readelf reads it") {
  for (HashStyle h : {HashStyle::gnu, HashStyle::sysv, HashStyle::both}) {
    const std::string style = to_string(h);
    CAPTURE(style);
    const std::string& path = demo_path(h);
    ReadelfFacts want = run_readelf(path);
    auto o = parse_file(path);
    REQUIRE(o->has_dynamic());
    CHECK(o->elf_class() == elf::elfclass64);
    CHECK(o->machine() == elf::em_x86_64);
    CHECK(o->type() == elf::et_dyn);

    // Dynamic section.
    const auto& d = o->dynamic();
    REQUIRE(want.soname);
    REQUIRE(d.soname);
    CHECK(std::string(*d.soname) == *want.soname);
    REQUIRE(want.runpath);
    REQUIRE(d.runpath);
    CHECK(std::string(*d.runpath) == *want.runpath);
    CHECK(*d.runpath == "$ORIGIN/../lib");
    CHECK_FALSE(d.rpath);
    std::vector<std::string> needed(d.needed.begin(), d.needed.end());
    CHECK(needed == want.needed);
    CHECK(needed.size() == 3);

    // Version definitions and requirements, in file order.
    REQUIRE(o->version_definitions().size() == want.defs.size());
    for (std::size_t i = 0; i < want.defs.size(); ++i) {
      const auto& got = o->version_definitions()[i];
      CHECK(got.index == want.defs[i].index);
      CHECK(got.name == want.defs[i].name);
      CHECK(((got.flags & elf::ver_flg_base) != 0) == want.defs[i].base);
      CHECK(got.hash == elf::sysv_hash(got.name));
    }
    REQUIRE(o->version_needs().size() == want.needs.size());
    for (std::size_t i = 0; i < want.needs.size(); ++i) {
      const auto& got = o->version_needs()[i];
      CHECK(got.file == want.needs[i].file);
      REQUIRE(got.entries.size() == want.needs[i].versions.size());
      for (std::size_t k = 0; k < got.entries.size(); ++k) {
        CHECK(got.entries[k].name == want.needs[i].versions[k].first);
        CHECK((got.entries[k].other & 0x7fff) == want.needs[i].versions[k].second);
        CHECK(got.entries[k].hash == elf::sysv_hash(got.entries[k].name));
      }
    }

    // Symbols: count, every symbol's name and version, the undefined list.
    REQUIRE(o->has_versym());
    CHECK(o->symbol_count() == want.symbol_count);
    REQUIRE(want.symbols.size() == want.symbol_count);
    std::vector<std::uint32_t> want_undefined;
    for (const auto& ws : want.symbols) {
      CAPTURE(ws.name);
      if (ws.index == 0) continue;
      auto s = o->symbol(ws.index);
      REQUIRE(s);
      CHECK(s->name == ws.name);
      CHECK(s->defined() == !ws.undefined);
      if (ws.version.empty()) {
        // readelf leaves the version off a version's own ABS symbol ("DEMO_2.0").
        CHECK((s->version <= 1 || version_name(*o, s->version) == ws.name));
      } else {
        CHECK(version_name(*o, s->version) == ws.version);
        if (ws.version_index >= 0) CHECK(s->version == ws.version_index);
        if (!ws.undefined) CHECK(s->hidden_version == ws.hidden);
      }
      if (ws.undefined && !ws.local && !ws.name.empty()) want_undefined.push_back(ws.index);
    }
    CHECK(o->undefined_symbols() == want_undefined);
    CHECK(want_undefined.size() >= 6);

    // The versioned reference to the dependency's default version.
    bool saw_dep_fn = false;
    for (std::uint32_t index : o->undefined_symbols()) {
      auto s = o->symbol(index);
      REQUIRE(s);
      if (s->name == "dep_fn") {
        saw_dep_fn = true;
        CHECK(version_name(*o, s->version) == "DEP_2.0");
      }
    }
    CHECK(saw_dep_fn);

    // Lookups through the hash table find every defined dynamic symbol, and
    // only symbols of that name; an absent name finds nothing.
    for (const auto& ws : want.symbols) {
      if (ws.undefined || ws.index == 0 || ws.name.empty()) continue;
      CAPTURE(ws.name);
      std::vector<std::uint32_t> seen;
      o->for_each_named(ws.name, [&](std::uint32_t i, const elf::Symbol& s) {
        CHECK(s.name == ws.name);
        seen.push_back(i);
        return true;
      });
      CHECK(std::find(seen.begin(), seen.end(), ws.index) != seen.end());
    }
    // Both definitions of demo_fn: DEMO_1.0 (hidden, demo_fn@DEMO_1.0) and the default @@DEMO_2.0.
    std::vector<std::pair<std::string, bool>> demo_fn;
    o->for_each_named("demo_fn", [&](std::uint32_t, const elf::Symbol& s) {
      if (s.defined()) demo_fn.emplace_back(version_name(*o, s.version), s.hidden_version);
      return true;
    });
    std::sort(demo_fn.begin(), demo_fn.end());
    CHECK(demo_fn == std::vector<std::pair<std::string, bool>>{{"DEMO_1.0", true}, {"DEMO_2.0", false}});
    int absent = 0;
    o->for_each_named("no_such_symbol_anywhere", [&](std::uint32_t, const elf::Symbol&) { return ++absent, true; });
    CHECK(absent == 0);

    // Relocation order: .rela.dyn, then .rela.plt, as readelf lists them.
    std::vector<std::pair<std::uint32_t, bool>> got_relocs;
    for (const auto& ref : o->relocation_order()) got_relocs.emplace_back(ref.symbol, ref.plt);
    CHECK(got_relocs == want.relocations);
    CHECK_FALSE(want.relocations.empty());

    // A header-only parse reads the same dynamic section and no symbols.
    auto headers = parse_file(path, false);
    CHECK_FALSE(headers->has_symbols());
    CHECK(headers->dynamic().needed.size() == 3);
    CHECK(headers->symbol_count() == 0);
  }
}

TEST_CASE("verify_header agrees with open_verify on good and bad headers") {
  Bytes good = file_bytes(demo_path(HashStyle::gnu));
  CHECK(elf::verify_header(good, elf::em_x86_64).verdict == elf::HeaderVerdict::ok);
  CHECK(elf::verify_header(good, elf::em_aarch64).verdict == elf::HeaderVerdict::wrong_machine);
  auto with = [&](std::size_t at, std::uint8_t v) {
    Bytes b = good;
    b[at] = std::byte{v};
    return elf::verify_header(b, elf::em_x86_64);
  };
  CHECK(with(4, 1).verdict == elf::HeaderVerdict::wrong_class);
  CHECK(with(0, 0).fatal_reason == "invalid ELF header");
  CHECK(with(5, 2).fatal_reason == "ELF file data encoding not little-endian");
  CHECK(with(6, 0).fatal_reason == "ELF file version ident does not match current one");
  CHECK(with(7, 9).fatal_reason == "ELF file OS ABI invalid");
  CHECK(with(9, 1).fatal_reason == "nonzero padding in e_ident");
  CHECK(with(16, 1).fatal_reason == "only ET_DYN and ET_EXEC can be loaded");
  CHECK(with(54, 32).fatal_reason == "ELF file's phentsize not the expected size");
  CHECK(elf::verify_header(std::span<const std::byte>(), elf::em_x86_64).fatal_reason == "file too short");
  Bytes short_file(good.begin(), good.begin() + 63);
  CHECK(elf::verify_header(short_file, elf::em_x86_64).fatal_reason == "file too short");
}

// ============================================================ hostile input

TEST_CASE("every truncation of a real library errors or parses to the same facts") {
  for (HashStyle h : {HashStyle::gnu, HashStyle::sysv}) {
    const std::string style = to_string(h);
    CAPTURE(style);
    const Bytes full = file_bytes(demo_path(h));
    auto whole = ElfObject::parse(elf::bytes_from_vector(full), true);
    REQUIRE(whole.ok());
    std::size_t parsed = 0;
    for (std::size_t n = 0; n < full.size(); ++n) {
      CAPTURE(n);
      Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      std::string error = probe_bytes(prefix);
      if (n < 64) CHECK(error.find("too short") != std::string::npos);
      if (!error.empty()) continue;
      // A prefix that parses holds every byte the parse read: same answers.
      ++parsed;
      auto o = ElfObject::parse(elf::bytes_from_vector(prefix), true);
      REQUIRE(o.ok());
      CHECK((*o)->symbol_count() == (*whole)->symbol_count());
      CHECK((*o)->undefined_symbols() == (*whole)->undefined_symbols());
      CHECK((*o)->dynamic().needed == (*whole)->dynamic().needed);
      CHECK((*o)->dynamic().soname == (*whole)->dynamic().soname);
      CHECK((*o)->version_needs().size() == (*whole)->version_needs().size());
    }
    // The tables sit before the section headers, .symtab and .comment: those can go.
    CHECK(parsed > 0);
  }
}

TEST_CASE("the dynamic section and its names are read from the copy source where there is one, the map where it refuses") {
  const Bytes original = file_bytes(demo_path(HashStyle::gnu));
  // A map whose dynamic section and soname differ from the file the source
  // reads: which bytes a parse took shows in what it says.
  Bytes mapped = original;
  const std::uint64_t soname = dyn(mapped, elf::dt_strtab) + dyn(mapped, elf::dt_soname);
  REQUIRE(mapped[soname] == std::byte{'l'});
  mapped[soname] = std::byte{'X'};
  set_dyn(mapped, elf::dt_runpath, dyn(mapped, elf::dt_soname));
  const elf::FileBytes map = elf::bytes_from_vector(mapped);

  const fixture::BytesSource file(original, false);
  auto copied = ElfObject::parse(map, false, &file);
  REQUIRE(copied.ok());
  CHECK((*copied)->dynamic().soname == "libdemo.so.1");
  CHECK((*copied)->dynamic().runpath == "$ORIGIN/../lib");
  // One piece of the dynamic array, and one of the strings for each name
  // that does not end in the piece copied before.
  CHECK(file.copies >= 2);
  CHECK(file.copies <= 1 + 1 + static_cast<int>((*copied)->dynamic().needed.size()) + 1);
  // The names belong to the object: its symbol tables parsed later (a copy
  // of it) still have them, after the first object has gone.
  auto later = ElfObject::with_symbols(**copied);
  REQUIRE(later.ok());
  copied = condacuda::make_error(condacuda::ErrorCode::io, "gone");
  CHECK((*later)->dynamic().soname == "libdemo.so.1");
  CHECK(dynamic_facts(later) == dynamic_facts(ElfObject::parse(elf::bytes_from_vector(original), true)));

  // A source that cannot copy (the file changed): the map is read.
  const fixture::BytesSource refusing(original, true);
  auto from_map = ElfObject::parse(map, false, &refusing);
  REQUIRE(from_map.ok());
  CHECK((*from_map)->dynamic().soname == "Xibdemo.so.1");
  CHECK((*from_map)->dynamic().runpath == "Xibdemo.so.1");
  CHECK(dynamic_facts(from_map) == dynamic_facts(ElfObject::parse(map, false)));
}

TEST_CASE("seeded random corruption: anywhere, in the first 4 KiB, and in the tables") {
  for (HashStyle h : {HashStyle::gnu, HashStyle::sysv}) {
    const std::string style = to_string(h);
    CAPTURE(style);
    const Bytes good = file_bytes(demo_path(h));
    auto sections = sections_of(good);
    std::vector<Range> tables;
    tables.push_back({0, 64});                                                     // ELF header
    tables.push_back({get<std::uint64_t>(good, 32), 56ull * get<std::uint16_t>(good, 56)}); // program headers
    for (const char* name : {".dynamic", ".gnu.hash", ".hash", ".dynsym", ".dynstr", ".gnu.version",
                             ".gnu.version_d", ".gnu.version_r", ".rela.dyn", ".rela.plt"}) {
      auto it = sections.find(name);
      if (it != sections.end() && it->second.size > 0) tables.push_back(it->second);
    }
    REQUIRE(tables.size() >= 10);
    std::mt19937_64 rng(h == HashStyle::gnu ? 0x5eed0001u : 0x5eed0002u); // deterministic: failures reproduce
    auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng); };
    const std::uint64_t size = good.size();
    const std::uint64_t interesting[] = {0,          1,           2,          0x7f,       0x80,          0xff,
                                         0xffff,     0x7fffffff,  0x80000000, 0xffffffff, size,          size - 1,
                                         size + 1,   size / 2,    ~0ull,      ~0ull - 7,  1ull << 32,    1ull << 63};
    const int rounds = h == HashStyle::gnu ? 2000 : 1000;
    std::size_t errors = 0, parses = 0;
    for (int round = 0; round < rounds; ++round) {
      CAPTURE(round);
      Bytes b = good;
      int region = round % 3; // 0: anywhere, 1: first 4 KiB, 2: one of the tables
      int edits = 1 + static_cast<int>(pick(4));
      for (int e = 0; e < edits; ++e) {
        Range r = region == 0 ? Range{0, size} : region == 1 ? Range{0, std::min<std::uint64_t>(4096, size)}
                                                             : tables[pick(tables.size())];
        std::uint64_t at = r.offset + pick(r.size);
        switch (pick(4)) {
        case 0: b[at] ^= std::byte{static_cast<unsigned char>(1u << pick(8))}; break;
        case 1: b[at] = std::byte{static_cast<unsigned char>(pick(256))}; break;
        case 2:
          if (at + 4 <= size) put(b, at & ~std::uint64_t{3}, static_cast<std::uint32_t>(interesting[pick(std::size(interesting))]));
          break;
        default:
          if (at + 8 <= size) put(b, at & ~std::uint64_t{7}, interesting[pick(std::size(interesting))]);
          break;
        }
      }
      (probe_bytes(b).empty() ? parses : errors)++;
    }
    MESSAGE(std::string(to_string(h)) << ": " << rounds << " corruptions, " << errors << " errors, " << parses << " parses");
    CHECK(errors > 0);
    CHECK(parses > 0);
  }
}

namespace {

struct Crafted {
  const char* what;
  std::function<void(Bytes&)> damage;
  // "": must parse (and every lookup of the probe names must end); else
  // words of the error it must give. Every case has one: a damage that
  // changed the outcome (a wrong parse, another error) fails the test, not
  // only a sanitizer's crash.
  const char* expect;
};

void run_crafted(HashStyle h, const std::vector<Crafted>& cases) {
  const Bytes good = file_bytes(demo_path(h));
  require_identity_mapped(good);
  for (const auto& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    Bytes b = good;
    c.damage(b);
    std::string error = probe_bytes(b);
    if (*c.expect == '\0') CHECK_MESSAGE(error.empty(), error);
    else CHECK_MESSAGE(error.find(c.expect) != std::string::npos, "error: [" << error << "]");
  }
}

} // namespace

TEST_CASE("crafted damage to the header and program headers") {
  run_crafted(HashStyle::gnu, {
      {"empty", [](Bytes& b) { b.clear(); }, "too short"},
      {"bad magic", [](Bytes& b) { b[1] = std::byte{'X'}; }, "not an ELF file"},
      {"ELFCLASS32", [](Bytes& b) { b[4] = std::byte{1}; }, "32-bit"},
      {"big-endian", [](Bytes& b) { b[5] = std::byte{2}; }, "big-endian"},
      {"ELF class byte 7", [](Bytes& b) { b[4] = std::byte{7}; }, "invalid ELF class byte 7"},
      {"ELF data byte 0", [](Bytes& b) { b[5] = std::byte{0}; }, "invalid ELF data encoding byte 0"},
      {"e_phnum huge", [](Bytes& b) { put<std::uint16_t>(b, 56, 0xffff); }, "program headers"},
      {"e_phnum 0", [](Bytes& b) { put<std::uint16_t>(b, 56, 0); }, ""},
      {"e_phoff at EOF", [](Bytes& b) { put<std::uint64_t>(b, 32, b.size()); }, "program headers"},
      {"e_phoff wraps", [](Bytes& b) { put<std::uint64_t>(b, 32, ~0ull - 8); }, "program headers"},
      {"e_phentsize 32", [](Bytes& b) { put<std::uint16_t>(b, 54, 32); }, "program header size"},
      // ld.so reads the dynamic section at p_vaddr in the mapped image, up to
      // DT_NULL (elf/get-dynamic-info.h, elf/dl-deps.c): p_offset is never
      // used, p_filesz only to tell an empty PT_DYNAMIC (debuginfo) apart.
      {"PT_DYNAMIC offset past EOF",
       [](Bytes& b) { put<std::uint64_t>(b, phdr_of(b, elf::pt_dynamic) + 8, b.size()); }, ""},
      {"PT_DYNAMIC size huge", [](Bytes& b) { put<std::uint64_t>(b, phdr_of(b, elf::pt_dynamic) + 32, 1ull << 62); }, ""},
      {"PT_DYNAMIC offset + size wraps",
       [](Bytes& b) {
         put<std::uint64_t>(b, phdr_of(b, elf::pt_dynamic) + 8, ~0ull - 7);
         put<std::uint64_t>(b, phdr_of(b, elf::pt_dynamic) + 32, 16);
       },
       ""},
      {"PT_DYNAMIC size not a multiple of 16",
       [](Bytes& b) { put<std::uint64_t>(b, phdr_of(b, elf::pt_dynamic) + 32, 17); }, ""},
      {"PT_DYNAMIC at p_vaddr 0: no dynamic section (l_ld null)",
       [](Bytes& b) { put<std::uint64_t>(b, phdr_of(b, elf::pt_dynamic) + 16, 0); }, ""},
      {"PT_DYNAMIC in a hole between the segments",
       [](Bytes& b) { put<std::uint64_t>(b, phdr_of(b, elf::pt_dynamic) + 16, 1ull << 40); },
       "dynamic section lies outside the loaded segments"},
      {"PT_DYNAMIC over the rest of the file, no DT_NULL",
       [](Bytes& b) {
         std::uint64_t p = phdr_of(b, elf::pt_dynamic);
         put<std::uint64_t>(b, p + 32, b.size() - get<std::uint64_t>(b, p + 8));
         put<std::int64_t>(b, *dyn_slot(b, elf::dt_null) - 8, 21); // DT_DEBUG: ignored
       },
       ""},
      {"PT_LOAD filesz past EOF", [](Bytes& b) { put<std::uint64_t>(b, phdr_of(b, elf::pt_load) + 32, 1ull << 40); }, ""},
      {"PT_LOAD vaddr + filesz wraps",
       [](Bytes& b) {
         std::uint64_t p = phdr_of(b, elf::pt_load);
         put<std::uint64_t>(b, p + 16, ~0ull - 0x10);
         put<std::uint64_t>(b, p + 32, ~0ull);
       },
       "DT_STRTAB points outside the file"},
      {"PT_LOAD offset huge", [](Bytes& b) { put<std::uint64_t>(b, phdr_of(b, elf::pt_load) + 8, ~0ull - 0x100); }, "DT_STRTAB points outside the file"},
  });
}

TEST_CASE("crafted damage to the dynamic section and its strings") {
  run_crafted(HashStyle::gnu, {
      {"DT_STRTAB outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_strtab, 0xdead00000000ull); }, "DT_STRTAB"},
      {"DT_STRTAB missing", [](Bytes& b) { put<std::int64_t>(b, *dyn_slot(b, elf::dt_strtab) - 8, 21); }, "DT_STRTAB"},
      {"DT_STRSZ huge", [](Bytes& b) { set_dyn(b, elf::dt_strsz, 1ull << 60); }, "string table"},
      {"DT_STRSZ all ones", [](Bytes& b) { set_dyn(b, elf::dt_strsz, ~0ull); }, "string table"},
      {"DT_STRSZ zero", [](Bytes& b) { set_dyn(b, elf::dt_strsz, 0); }, "outside the string table"},
      {"DT_NEEDED offset past the table",
       [](Bytes& b) { set_dyn(b, elf::dt_needed, dyn(b, elf::dt_strsz) + 10); }, "DT_NEEDED"},
      {"DT_SONAME offset all ones", [](Bytes& b) { set_dyn(b, elf::dt_soname, ~0ull); }, "DT_SONAME"},
      {"DT_RUNPATH offset one past the table",
       [](Bytes& b) { set_dyn(b, elf::dt_runpath, dyn(b, elf::dt_strsz)); }, "DT_RUNPATH"},
      {"unterminated string: the table ends inside the soname",
       [](Bytes& b) { set_dyn(b, elf::dt_strsz, dyn(b, elf::dt_soname) + 3); }, "outside the string table"},
      {"unterminated string: no NUL after the soname up to the table's end",
       [](Bytes& b) {
         std::uint64_t strtab = dyn(b, elf::dt_strtab), end = strtab + dyn(b, elf::dt_strsz);
         for (std::uint64_t at = strtab + dyn(b, elf::dt_soname); at < end; ++at) b[at] = std::byte{'A'};
       },
       "DT_SONAME string offset"},
      {"a string table without any NUL",
       [](Bytes& b) {
         std::uint64_t strtab = dyn(b, elf::dt_strtab), end = strtab + dyn(b, elf::dt_strsz);
         for (std::uint64_t at = strtab; at < end; ++at) b[at] = std::byte{'A'};
       },
       "outside the string table"},
      {"every unused tag made DT_NEEDED",
       [](Bytes& b) {
         std::uint64_t p = phdr_of(b, elf::pt_dynamic);
         std::uint64_t offset = get<std::uint64_t>(b, p + 8), size = get<std::uint64_t>(b, p + 32);
         for (std::uint64_t at = offset; at + 16 <= offset + size; at += 16) {
           auto tag = get<std::int64_t>(b, at);
           if (tag == elf::dt_null) break;
           if (tag >= 12 && tag <= 13) { put<std::int64_t>(b, at, elf::dt_needed); put<std::uint64_t>(b, at + 8, 1); }
         }
       },
       ""},
      {"DT_FILTER and DT_AUXILIARY with bad offsets",
       [](Bytes& b) {
         put<std::int64_t>(b, *dyn_slot(b, 12) - 8, elf::dt_filter);   // DT_INIT
         put<std::int64_t>(b, *dyn_slot(b, 13) - 8, elf::dt_auxiliary); // DT_FINI
       },
       "DT_FILTER"},
  });
}

TEST_CASE("crafted damage to the symbol table and version symbols") {
  run_crafted(HashStyle::gnu, {
      {"DT_SYMTAB outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_symtab, 0xdead00000000ull); }, "DT_SYMTAB"},
      {"symbol table past EOF", [](Bytes& b) { set_dyn(b, elf::dt_symtab, map_to_end(b, b.size() - 48)); },
       "symbol table extends past"},
      {"symbol names past the string table",
       [](Bytes& b) {
         auto s = sections_of(b).at(".dynsym");
         for (std::uint64_t at = s.offset + 24; at < s.offset + s.size; at += 24) put<std::uint32_t>(b, at, 0xfffffff0u);
       },
       ""},
      {"symbol section indices and infos all ones",
       [](Bytes& b) {
         auto s = sections_of(b).at(".dynsym");
         for (std::uint64_t at = s.offset + 24; at < s.offset + s.size; at += 24) {
           put<std::uint8_t>(b, at + 4, 0xff);
           put<std::uint8_t>(b, at + 5, 0xff);
           put<std::uint16_t>(b, at + 6, 0xffff);
         }
       },
       ""},
      {"versym shorter than the symbol table", [](Bytes& b) { set_dyn(b, elf::dt_versym, map_to_end(b, b.size() - 6)); },
       "DT_VERSYM"},
      {"versym outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_versym, ~0ull - 1); }, "DT_VERSYM"},
      {"versym indices all 0x7fff and hidden",
       [](Bytes& b) {
         auto s = sections_of(b).at(".gnu.version");
         for (std::uint64_t at = s.offset; at + 2 <= s.offset + s.size; at += 2) put<std::uint16_t>(b, at, 0xffff);
       },
       ""},
  });
}

TEST_CASE("crafted damage to the GNU hash table") {
  auto gnu = [](const Bytes& b) { return sections_of(b).at(".gnu.hash"); };
  auto chain_words = [](const Bytes& b, Range g) {
    auto nbuckets = get<std::uint32_t>(b, g.offset), bloom = get<std::uint32_t>(b, g.offset + 8);
    std::uint64_t chain = g.offset + 16 + 8ull * bloom + 4ull * nbuckets;
    return Range{chain, g.offset + g.size - chain};
  };
  auto buckets = [](const Bytes& b, Range g) {
    auto nbuckets = get<std::uint32_t>(b, g.offset), bloom = get<std::uint32_t>(b, g.offset + 8);
    return Range{g.offset + 16 + 8ull * bloom, 4ull * nbuckets};
  };
  run_crafted(HashStyle::gnu, {
      {"nbuckets 0", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset, 0); }, ""},
      {"nbuckets all ones", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset, 0xffffffffu); }, ""},
      {"symoffset 0", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset + 4, 0); }, ""},
      {"symoffset all ones", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset + 4, 0xffffffffu); }, "dynamic symbol table extends past the end of the file"},
      {"bloom_size 0", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset + 8, 0); }, ""},
      {"bloom_size 3 (not a power of two)", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset + 8, 3); }, ""},
      {"bloom_size huge", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset + 8, 0x80000000u); }, ""},
      {"bloom shift 40", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset + 12, 40); }, ""},
      {"bloom shift all ones", [&](Bytes& b) { put<std::uint32_t>(b, gnu(b).offset + 12, 0xffffffffu); }, ""},
      {"bloom words all ones (every lookup walks its chain)",
       [&](Bytes& b) {
         Range g = gnu(b);
         auto bloom = get<std::uint32_t>(b, g.offset + 8);
         for (std::uint32_t i = 0; i < bloom; ++i) put<std::uint64_t>(b, g.offset + 16 + 8ull * i, ~0ull);
       },
       ""},
      {"bucket index >= symbol count",
       [&](Bytes& b) {
         Range r = buckets(b, gnu(b));
         for (std::uint64_t at = r.offset; at < r.offset + r.size; at += 4) put<std::uint32_t>(b, at, 0x7fffffffu);
       },
       ""},
      {"bucket index below symoffset",
       [&](Bytes& b) {
         Range r = buckets(b, gnu(b));
         for (std::uint64_t at = r.offset; at < r.offset + r.size; at += 4) put<std::uint32_t>(b, at, 1);
       },
       ""},
      {"chain never terminated",
       [&](Bytes& b) {
         Range c = chain_words(b, gnu(b));
         for (std::uint64_t at = c.offset; at + 4 <= c.offset + c.size; at += 4)
           put<std::uint32_t>(b, at, get<std::uint32_t>(b, at) & ~1u);
       },
       ""},
      {"chain never terminated and no section headers",
       [&](Bytes& b) {
         Range c = chain_words(b, gnu(b));
         for (std::uint64_t at = c.offset; at + 4 <= c.offset + c.size; at += 4) put<std::uint32_t>(b, at, 0);
         put<std::uint64_t>(b, 40, 0);
       },
       ""},
      {"no section headers at all (a stripped file still parses)",
       [](Bytes& b) { put<std::uint64_t>(b, 40, 0); put<std::uint16_t>(b, 60, 0); }, ""},
      {"DT_GNU_HASH outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_gnu_hash, 0xdead00000000ull); }, "DT_GNU_HASH"},
      {"DT_GNU_HASH at the last bytes of the file",
       [](Bytes& b) { set_dyn(b, elf::dt_gnu_hash, map_to_end(b, b.size() - 8)); }, ""},
  });
}

TEST_CASE("crafted damage to the SysV hash table") {
  auto hash = [](const Bytes& b) { return sections_of(b).at(".hash"); };
  run_crafted(HashStyle::sysv, {
      {"nchain huge", [&](Bytes& b) { put<std::uint32_t>(b, hash(b).offset + 4, 0xffffffffu); }, "symbol table extends past"},
      {"nchain 0", [&](Bytes& b) { put<std::uint32_t>(b, hash(b).offset + 4, 0); }, ""},
      {"nbucket 0", [&](Bytes& b) { put<std::uint32_t>(b, hash(b).offset, 0); }, ""},
      {"nbucket all ones", [&](Bytes& b) { put<std::uint32_t>(b, hash(b).offset, 0xffffffffu); }, ""},
      {"every chain points at itself",
       [&](Bytes& b) {
         Range h = hash(b);
         auto nbucket = get<std::uint32_t>(b, h.offset), nchain = get<std::uint32_t>(b, h.offset + 4);
         for (std::uint32_t i = 0; i < nbucket; ++i) put<std::uint32_t>(b, h.offset + 8 + 4ull * i, 1);
         for (std::uint32_t i = 0; i < nchain; ++i) put<std::uint32_t>(b, h.offset + 8 + 4ull * nbucket + 4ull * i, i);
       },
       ""},
      {"chains form one cycle through every symbol",
       [&](Bytes& b) {
         Range h = hash(b);
         auto nbucket = get<std::uint32_t>(b, h.offset), nchain = get<std::uint32_t>(b, h.offset + 4);
         for (std::uint32_t i = 0; i < nchain; ++i)
           put<std::uint32_t>(b, h.offset + 8 + 4ull * nbucket + 4ull * i, i + 1 < nchain ? i + 1 : 1);
       },
       ""},
      {"bucket entries past nchain",
       [&](Bytes& b) {
         Range h = hash(b);
         auto nbucket = get<std::uint32_t>(b, h.offset);
         for (std::uint32_t i = 0; i < nbucket; ++i) put<std::uint32_t>(b, h.offset + 8 + 4ull * i, 0xfffffff0u);
       },
       ""},
      {"DT_HASH outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_hash, 0xdead00000000ull); }, "DT_HASH"},
      {"DT_HASH at the last bytes of the file, no section headers",
       [](Bytes& b) {
         set_dyn(b, elf::dt_hash, map_to_end(b, b.size() - 4));
         put<std::uint64_t>(b, 40, 0);
       },
       "number of dynamic symbols"},
  });
}

TEST_CASE("crafted damage to the version definitions and requirements") {
  auto vd = [](const Bytes& b) { return sections_of(b).at(".gnu.version_d").offset; };
  auto vn = [](const Bytes& b) { return sections_of(b).at(".gnu.version_r").offset; };
  run_crafted(HashStyle::gnu, {
      // vd_next/vn_next/vna_next are unsigned offsets from the current record:
      // a chain cannot point backwards, and 0 (pointing at itself) ends it.
      {"verdef chain ends at itself, DT_VERDEFNUM huge",
       [&](Bytes& b) { put<std::uint32_t>(b, vd(b) + 16, 0); set_dyn(b, elf::dt_verdefnum, ~0ull); }, ""},
      {"verdef chain runs off the end", [&](Bytes& b) { put<std::uint32_t>(b, vd(b) + 16, 0xffffffffu); },
       "version definition record"},
      {"verdef chain steps of one byte, DT_VERDEFNUM huge",
       [&](Bytes& b) { put<std::uint32_t>(b, vd(b) + 16, 1); set_dyn(b, elf::dt_verdefnum, ~0ull); }, "Verdef record"},
      {"verdef vd_aux huge", [&](Bytes& b) { put<std::uint32_t>(b, vd(b) + 12, 0xfffffff0u); }, "version definition name"},
      {"verdef name past the string table",
       [&](Bytes& b) { put<std::uint32_t>(b, vd(b) + get<std::uint32_t>(b, vd(b) + 12), 0xfffffff0u); },
       "version definition name"},
      {"verdef version 2", [&](Bytes& b) { put<std::uint16_t>(b, vd(b), 2); }, "unsupported version"},
      {"DT_VERDEF outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_verdef, 0xdead00000000ull); }, "DT_VERDEF"},
      {"DT_VERDEF at EOF", [](Bytes& b) { set_dyn(b, elf::dt_verdef, map_to_end(b, b.size() - 10)); }, "version definition"},
      {"verneed chain ends at itself, DT_VERNEEDNUM huge",
       [&](Bytes& b) { put<std::uint32_t>(b, vn(b) + 12, 0); set_dyn(b, elf::dt_verneednum, ~0ull); }, ""},
      {"verneed chain runs off the end", [&](Bytes& b) { put<std::uint32_t>(b, vn(b) + 12, 0xfffffff0u); },
       "version requirement record"},
      {"verneed vn_cnt huge, vna_next ends at itself",
       [&](Bytes& b) {
         put<std::uint16_t>(b, vn(b) + 2, 0xffff);
         put<std::uint32_t>(b, vn(b) + get<std::uint32_t>(b, vn(b) + 8) + 12, 0);
       },
       ""},
      {"verneed vn_cnt huge, vna_next steps of one byte",
       [&](Bytes& b) {
         put<std::uint16_t>(b, vn(b) + 2, 0xffff);
         put<std::uint32_t>(b, vn(b) + get<std::uint32_t>(b, vn(b) + 8) + 12, 1);
       },
       "version requirement name outside the string table"},
      {"verneed vn_cnt huge, entries run on to the end",
       [&](Bytes& b) {
         Range r = sections_of(b).at(".gnu.version_r");
         for (std::uint64_t at = r.offset; at + 16 <= r.offset + r.size; at += 16) {
           put<std::uint16_t>(b, at + 2, 0xffff);
           put<std::uint32_t>(b, at + 12, 16);
         }
       },
       "Verneed record"},
      {"verneed vn_aux huge", [&](Bytes& b) { put<std::uint32_t>(b, vn(b) + 8, 0xfffffff0u); }, "version requirement entry"},
      {"verneed file name past the string table", [&](Bytes& b) { put<std::uint32_t>(b, vn(b) + 4, 0xfffffff0u); },
       "file name"},
      {"vernaux name past the string table",
       [&](Bytes& b) { put<std::uint32_t>(b, vn(b) + get<std::uint32_t>(b, vn(b) + 8) + 8, 0xfffffff0u); },
       "version requirement name"},
      {"verneed version 0", [&](Bytes& b) { put<std::uint16_t>(b, vn(b), 0); }, "unsupported version"},
      {"DT_VERNEED outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_verneed, 0xdead00000000ull); }, "DT_VERNEED"},
  });
}

TEST_CASE("crafted damage to the relocation tables: relocation_order stays in range") {
  run_crafted(HashStyle::gnu, {
      {"DT_RELASZ huge", [](Bytes& b) { set_dyn(b, elf::dt_relasz, 1ull << 62); }, ""},
      {"DT_RELASZ all ones", [](Bytes& b) { set_dyn(b, elf::dt_relasz, ~0ull); }, ""},
      {"DT_RELASZ not a multiple of 24", [](Bytes& b) { set_dyn(b, elf::dt_relasz, 25); }, ""},
      {"DT_RELA outside every PT_LOAD", [](Bytes& b) { set_dyn(b, elf::dt_rela, 0xdead00000000ull); }, ""},
      {"DT_RELA at the last bytes", [](Bytes& b) { set_dyn(b, elf::dt_rela, map_to_end(b, b.size() - 8)); }, ""},
      {"DT_JMPREL at the last bytes", [](Bytes& b) { set_dyn(b, elf::dt_jmprel, map_to_end(b, b.size() - 8)); }, ""},
      {"DT_PLTRELSZ wraps", [](Bytes& b) { set_dyn(b, elf::dt_pltrelsz, ~0ull - 0x10); }, ""},
      {"DT_PLTREL is DT_REL", [](Bytes& b) { set_dyn(b, elf::dt_pltrel, elf::dt_rel); }, ""},
      {"relocation symbol indices all ones",
       [](Bytes& b) {
         for (const char* name : {".rela.dyn", ".rela.plt"}) {
           Range r = sections_of(b).at(name);
           for (std::uint64_t at = r.offset; at + 24 <= r.offset + r.size; at += 24) put<std::uint32_t>(b, at + 12, 0xffffffffu);
         }
       },
       ""},
  });
  // The relocation tables are only read on request: out-of-range ones are skipped.
  Bytes b = file_bytes(demo_path(HashStyle::gnu));
  set_dyn(b, elf::dt_relasz, ~0ull);
  auto o = ElfObject::parse(elf::bytes_from_vector(b), true);
  REQUIRE(o.ok());
  for (const auto& ref : (*o)->relocation_order()) CHECK(ref.plt); // only .rela.plt is left
}


// ============================================================ tables at the very end of the file

namespace {

// Copies `table` to the end of the file (8-aligned) and points `tag` at the
// copy, so that the file ends exactly where the table does.
void move_to_end(Bytes& b, Range table, std::int64_t tag) {
  while (b.size() % 8) b.push_back(std::byte{0});
  const std::uint64_t at = b.size();
  const Bytes copy(b.begin() + static_cast<std::ptrdiff_t>(table.offset),
                   b.begin() + static_cast<std::ptrdiff_t>(table.offset + table.size));
  b.insert(b.end(), copy.begin(), copy.end());
  set_dyn(b, tag, map_to_end(b, at));
}

struct Facts {
  std::uint32_t count = 0;
  std::vector<std::uint32_t> undefined;
  std::vector<std::string> needed;
  std::size_t verneeds = 0;
  std::vector<std::pair<std::uint32_t, bool>> relocations;
  std::vector<std::vector<std::uint32_t>> lookups;
};

Facts facts_of(const ElfObject& o) {
  Facts f;
  f.count = o.symbol_count();
  f.undefined = o.undefined_symbols();
  for (auto n : o.dynamic().needed) f.needed.emplace_back(n);
  f.verneeds = o.version_needs().size();
  for (const auto& r : o.relocation_order()) f.relocations.emplace_back(r.symbol, r.plt);
  for (const auto& name : probe_names()) {
    std::vector<std::uint32_t> met;
    o.for_each_named(name, [&](std::uint32_t i, const elf::Symbol&) { return met.push_back(i), true; });
    f.lookups.push_back(met);
  }
  return f;
}

bool operator==(const Facts& a, const Facts& b) {
  return a.count == b.count && a.undefined == b.undefined && a.needed == b.needed && a.verneeds == b.verneeds &&
         a.relocations == b.relocations && a.lookups == b.lookups;
}

} // namespace

TEST_CASE("each table ending exactly at the end of the file parses; one byte less is refused or skipped") {
  // The boundary a bounds check exists for: `offset + n == size` is in
  // range, `size + 1` is not. With the table cut by one byte, ASan reports
  // any read of that byte, and the checks below report an accepted table.
  const Bytes good = file_bytes(demo_path(HashStyle::gnu));
  auto whole = ElfObject::parse(elf::bytes_from_vector(good), true);
  REQUIRE(whole.ok());
  const Facts want = facts_of(**whole);
  const auto sections = sections_of(good);
  struct Case {
    const char* section;
    std::int64_t tag;
    const char* short_error; // nullptr: a one-byte-short table is skipped, not an error
  };
  const Case cases[] = {
      {".dynsym", elf::dt_symtab, "dynamic symbol table extends past"},
      {".gnu.version", elf::dt_versym, "DT_VERSYM"},
      {".dynstr", elf::dt_strtab, "string table extends past"},
      {".gnu.version_r", elf::dt_verneed, "version requirement"},
      {".gnu.version_d", elf::dt_verdef, "version definition"},
      {".gnu.hash", elf::dt_gnu_hash, nullptr},
      {".rela.plt", elf::dt_jmprel, nullptr},
      {".rela.dyn", elf::dt_rela, nullptr},
  };
  for (const auto& c : cases) {
    const std::string section = c.section;
    CAPTURE(section);
    Bytes exact = good;
    move_to_end(exact, sections.at(c.section), c.tag);
    auto o = ElfObject::parse(elf::bytes_from_vector(exact), true);
    REQUIRE_MESSAGE(o.ok(), o.error().message);
    CHECK(facts_of(**o) == want);
    Bytes cut(exact.begin(), exact.end() - 1); // the table's last byte is gone
    std::string error = probe_bytes(cut);
    if (c.short_error) {
      CHECK_MESSAGE(error.find(c.short_error) != std::string::npos, "error: [" << error << "]");
    } else {
      CHECK_MESSAGE(error.empty(), error);
    }
  }
  // The dynamic section itself is read where p_vaddr maps it (ld.so never
  // reads p_offset): a copy at the end of the file named by p_offset alone
  // changes nothing, whole or cut by a byte.
  Bytes exact = good;
  const std::uint64_t p = phdr_of(exact, elf::pt_dynamic);
  const std::uint64_t used = *dyn_slot(exact, elf::dt_null) + 8 - get<std::uint64_t>(exact, p + 8);
  while (exact.size() % 8) exact.push_back(std::byte{0});
  const std::uint64_t at = exact.size();
  const Bytes entries(exact.begin() + static_cast<std::ptrdiff_t>(get<std::uint64_t>(exact, p + 8)),
                      exact.begin() + static_cast<std::ptrdiff_t>(get<std::uint64_t>(exact, p + 8) + used));
  exact.insert(exact.end(), entries.begin(), entries.end());
  put<std::uint64_t>(exact, p + 8, at);
  put<std::uint64_t>(exact, p + 32, used);
  auto o = ElfObject::parse(elf::bytes_from_vector(exact), true);
  REQUIRE_MESSAGE(o.ok(), o.error().message);
  CHECK(facts_of(**o) == want);
  Bytes cut(exact.begin(), exact.end() - 1);
  auto c = ElfObject::parse(elf::bytes_from_vector(cut), true);
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  CHECK(facts_of(**c) == want);
}

// ============================================================ degenerate hash tables

namespace {

// do_lookup_x's walks written plainly from the raw table: the indices whose
// symbol is named `name`, in the order the walk meets them, each once (a loop
// is followed once around). for_each_named must yield exactly these, whether
// it walks the table or uses its index for degenerate tables.
std::vector<std::uint32_t> reference_gnu_walk(const Bytes& b, Range gh, const ElfObject& o, const std::string& name) {
  auto nbuckets = get<std::uint32_t>(b, gh.offset), symoffset = get<std::uint32_t>(b, gh.offset + 4);
  auto bloom_size = get<std::uint32_t>(b, gh.offset + 8), shift = get<std::uint32_t>(b, gh.offset + 12) & 31;
  std::uint64_t bloom = gh.offset + 16, buckets = bloom + 8ull * bloom_size, chain = buckets + 4ull * nbuckets;
  std::uint32_t h = elf::gnu_hash(name);
  auto word = get<std::uint64_t>(b, bloom + 8ull * ((h / 64) & (bloom_size - 1)));
  std::uint64_t mask = (1ull << (h % 64)) | (1ull << ((h >> shift) % 64));
  std::vector<std::uint32_t> out;
  if ((word & mask) != mask) return out;
  auto idx = get<std::uint32_t>(b, buckets + 4ull * (h % nbuckets));
  if (idx == 0 || idx < symoffset) return out;
  for (std::uint32_t i = idx; i < o.symbol_count(); ++i) {
    std::uint64_t at = chain + 4ull * (i - symoffset);
    if (at + 4 > b.size()) break;
    auto hv = get<std::uint32_t>(b, at);
    if (((hv ^ h) >> 1) == 0) {
      auto s = o.symbol(i);
      if (s && s->name == name) out.push_back(i);
    }
    if (hv & 1u) break;
  }
  return out;
}

std::vector<std::uint32_t> reference_sysv_walk(const Bytes& b, Range hash, const ElfObject& o, const std::string& name) {
  auto nbucket = get<std::uint32_t>(b, hash.offset), nchain = get<std::uint32_t>(b, hash.offset + 4);
  std::uint64_t buckets = hash.offset + 8, chains = buckets + 4ull * nbucket;
  std::vector<std::uint32_t> out;
  std::set<std::uint32_t> met;
  auto idx = get<std::uint32_t>(b, buckets + 4ull * (elf::sysv_hash(name) % nbucket));
  while (idx != 0 && idx < nchain && met.insert(idx).second) {
    auto s = o.symbol(idx);
    if (s && s->name == name) out.push_back(idx);
    if (chains + 4ull * idx + 4 > b.size()) break;
    idx = get<std::uint32_t>(b, chains + 4ull * idx);
  }
  return out;
}

std::vector<std::uint32_t> lookup(const ElfObject& o, const std::string& name) {
  std::vector<std::uint32_t> out;
  o.for_each_named(name, [&](std::uint32_t i, const elf::Symbol&) { return out.push_back(i), true; });
  return out;
}

std::vector<std::string> wide_names() {
  std::vector<std::string> names = {"wide_dup", "no_such_symbol", "wide_dup_old"};
  for (int i = 0; i < 600; i += 7) names.push_back("wide_" + std::to_string(i));
  return names;
}

} // namespace

TEST_CASE("degenerate SysV tables: lookups meet exactly what the chain walk meets") {
  const Bytes good = file_bytes(wide_path(HashStyle::sysv));
  const Range hash = sections_of(good).at(".hash");
  const auto nbucket = get<std::uint32_t>(good, hash.offset), nchain = get<std::uint32_t>(good, hash.offset + 4);
  REQUIRE(nchain > 600);
  const std::uint64_t buckets = hash.offset + 8, chains = buckets + 4ull * nbucket;
  std::mt19937_64 rng(0xc4a1u);
  auto below = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };
  for (int round = 0; round < 80; ++round) {
    CAPTURE(round);
    Bytes b = good;
    switch (round % 4) {
    case 0: // one sound chain through every entry: long, so the index is used
      for (std::uint32_t k = 0; k < nbucket; ++k) put<std::uint32_t>(b, buckets + 4ull * k, nchain - 1);
      for (std::uint32_t i = 0; i < nchain; ++i) put<std::uint32_t>(b, chains + 4ull * i, i > 0 ? i - 1 : 0);
      break;
    case 1: // random successors: shared tails and loops
      for (std::uint32_t i = 0; i < nchain; ++i) put<std::uint32_t>(b, chains + 4ull * i, below(nchain + 4));
      break;
    case 2: // random buckets into mostly descending chains with a few jumps back
      for (std::uint32_t k = 0; k < nbucket; ++k) put<std::uint32_t>(b, buckets + 4ull * k, below(nchain + 2));
      for (std::uint32_t i = 0; i < nchain; ++i)
        put<std::uint32_t>(b, chains + 4ull * i, rng() % 50 == 0 ? below(nchain) : (i > 0 ? i - 1 : 0));
      break;
    default: // a few damaged links: the table may still be sound and walked directly
      for (int k = 0; k < 3; ++k) put<std::uint32_t>(b, chains + 4ull * below(nchain), below(nchain));
      break;
    }
    auto o = ElfObject::parse(elf::bytes_from_vector(b), true);
    REQUIRE(o.ok());
    for (const auto& name : wide_names()) {
      CAPTURE(name);
      CHECK(lookup(**o, name) == reference_sysv_walk(b, hash, **o, name));
    }
  }
}

TEST_CASE("degenerate GNU tables: lookups meet exactly what the chain walk meets") {
  const Bytes good = file_bytes(wide_path(HashStyle::gnu));
  const Range gh = sections_of(good).at(".gnu.hash");
  const auto nbuckets = get<std::uint32_t>(good, gh.offset), symoffset = get<std::uint32_t>(good, gh.offset + 4);
  const auto bloom_size = get<std::uint32_t>(good, gh.offset + 8);
  const std::uint64_t bloom = gh.offset + 16, buckets = bloom + 8ull * bloom_size, chain = buckets + 4ull * nbuckets;
  const std::uint64_t chain_words = (gh.offset + gh.size - chain) / 4;
  REQUIRE(chain_words > 600);
  std::mt19937_64 rng(0x9a5u);
  auto below = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };
  int errors = 0;
  for (int round = 0; round < 80; ++round) {
    CAPTURE(round);
    Bytes b = good;
    auto set_end_bit = [&](std::uint64_t k, bool end) {
      auto w = get<std::uint32_t>(b, chain + 4 * k);
      put<std::uint32_t>(b, chain + 4 * k, end ? (w | 1u) : (w & ~1u));
    };
    switch (round % 4) {
    case 0: // one run through every entry: every walk goes to the end
      for (std::uint64_t k = 0; k < chain_words; ++k) set_end_bit(k, k + 1 == chain_words);
      break;
    case 1: // rare run ends and random bucket starts
      for (std::uint64_t k = 0; k < chain_words; ++k) set_end_bit(k, rng() % 300 == 0);
      for (std::uint32_t k = 0; k < nbuckets; ++k)
        put<std::uint32_t>(b, buckets + 4ull * k, rng() % 8 == 0 ? 0 : symoffset + below(chain_words + 4));
      break;
    case 2: // one run, and bloom words that let through only some names
      for (std::uint64_t k = 0; k < chain_words; ++k) set_end_bit(k, k + 1 == chain_words);
      for (std::uint32_t k = 0; k < bloom_size; ++k) put<std::uint64_t>(b, bloom + 8ull * k, rng() | rng());
      break;
    default: // a few damaged words: the table may stay sound and be walked directly
      for (int k = 0; k < 3; ++k) set_end_bit(below(chain_words), rng() % 2 == 0);
      break;
    }
    auto o = ElfObject::parse(elf::bytes_from_vector(b), true);
    if (!o) { // random bucket starts past the chain can make the symbol count unreadable
      ++errors;
      continue;
    }
    for (const auto& name : wide_names()) {
      CAPTURE(name);
      CHECK(lookup(**o, name) == reference_gnu_walk(b, gh, **o, name));
    }
  }
  CHECK(errors < 10);
}

TEST_CASE("a table whose chain runs through 200,000 symbols costs linear time, not quadratic") {
  // Appends a string table, a symbol table of n undefined symbols and a SysV
  // hash table with one chain through all of them, then looks up every
  // undefined symbol (as the loader simulation does). Walking the chain per
  // lookup would take n * n / 2 = 2e10 steps: hours, caught by the CTest
  // timeout; the index keeps it to seconds.
  Bytes b = file_bytes(demo_path(HashStyle::gnu));
  const Range dynstr = sections_of(b).at(".dynstr");
  constexpr std::uint32_t n = 200000;
  const Bytes old_strings(b.begin() + static_cast<std::ptrdiff_t>(dynstr.offset),
                          b.begin() + static_cast<std::ptrdiff_t>(dynstr.offset + dynstr.size));
  auto align8 = [&] {
    while (b.size() % 8) b.push_back(std::byte{0});
  };
  align8();
  const std::uint64_t strtab = b.size();
  b.insert(b.end(), old_strings.begin(), old_strings.end()); // the old offsets stay valid
  std::vector<std::uint32_t> name_at(n);
  for (std::uint32_t i = 1; i < n; ++i) {
    name_at[i] = static_cast<std::uint32_t>(b.size() - strtab);
    std::string name = "s" + std::to_string(i);
    for (char c : name) b.push_back(static_cast<std::byte>(c));
    b.push_back(std::byte{0});
  }
  const std::uint64_t strsz = b.size() - strtab;
  align8();
  const std::uint64_t symtab = b.size();
  b.resize(b.size() + 24ull * n);
  for (std::uint32_t i = 1; i < n; ++i) {
    put<std::uint32_t>(b, symtab + 24ull * i, name_at[i]);
    put<std::uint8_t>(b, symtab + 24ull * i + 4, 0x12); // GLOBAL FUNC, undefined
  }
  const std::uint64_t hash = b.size();
  b.resize(b.size() + 4ull * (3 + n));
  put<std::uint32_t>(b, hash, 1);
  put<std::uint32_t>(b, hash + 4, n);
  put<std::uint32_t>(b, hash + 8, n - 1);
  for (std::uint32_t i = 1; i < n; ++i) put<std::uint32_t>(b, hash + 12 + 4ull * i, i - 1);
  set_dyn(b, elf::dt_strtab, map_to_end(b, strtab));
  set_dyn(b, elf::dt_strsz, strsz);
  set_dyn(b, elf::dt_symtab, map_to_end(b, symtab));
  put<std::int64_t>(b, *dyn_slot(b, elf::dt_gnu_hash) - 8, elf::dt_hash);
  set_dyn(b, elf::dt_hash, map_to_end(b, hash));
  put<std::int64_t>(b, *dyn_slot(b, elf::dt_versym) - 8, 21); // its table is for the old symbols

  auto o = ElfObject::parse(elf::bytes_from_vector(b), true);
  REQUIRE_MESSAGE(o.ok(), o.error().message);
  REQUIRE((*o)->symbol_count() == n);
  REQUIRE((*o)->undefined_symbols().size() == n - 1);
  std::size_t mismatches = 0;
  for (std::uint32_t index : (*o)->undefined_symbols()) {
    auto s = (*o)->symbol(index);
    REQUIRE(s);
    if (lookup(**o, std::string(s->name)) != std::vector<std::uint32_t>{index}) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("retag: a pinned library is the original with its DT_RUNPATH tag now DT_RPATH, as readelf reads it") {
  const std::string& path = demo_path(HashStyle::gnu);
  auto o = parse_file(path);
  auto offsets = elf::runpath_tag_offsets(*o);
  REQUIRE(offsets.size() == 1);
  const std::string original = fixture::read_file(path);
  auto pinned = elf::retag(original, offsets, elf::runpath_tag, elf::rpath_tag);
  REQUIRE(pinned.ok());
  CHECK(pinned->size() == original.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < original.size(); ++i) differ += original[i] != (*pinned)[i] ? 1 : 0;
  CHECK(differ == 1); // 29 -> 15: one byte of the little-endian d_tag
  fixture::TempDir t("retag");
  const std::string out = t.path() + "/pinned.so";
  fixture::write_file(out, *pinned);
  ReadelfFacts want = run_readelf(out);
  CHECK_FALSE(want.runpath);
  REQUIRE(want.rpath);
  CHECK(*want.rpath == "$ORIGIN/../lib");
  auto p = parse_file(out);
  REQUIRE(p->dynamic().rpath);
  CHECK_FALSE(p->dynamic().runpath);
  CHECK(elf::runpath_tag_offsets(*p).empty());
  // Back: the original byte for byte. Twice, or at a wrong offset: an error.
  auto back = elf::retag(*pinned, offsets, elf::rpath_tag, elf::runpath_tag);
  REQUIRE(back.ok());
  CHECK(*back == original);
  CHECK_FALSE(elf::retag(*pinned, offsets, elf::runpath_tag, elf::rpath_tag).ok());
  CHECK_FALSE(elf::retag(original, {offsets[0] + 1}, elf::runpath_tag, elf::rpath_tag).ok());
  CHECK_FALSE(elf::retag(original, {original.size() - 4}, elf::runpath_tag, elf::rpath_tag).ok());
}

TEST_CASE("RetagHasher: the digests of a file and of it retagged, from pieces of any size, as sha256(retag()) gives") {
  const std::string original = fixture::read_file(demo_path(HashStyle::gnu));
  auto o = parse_file(demo_path(HashStyle::gnu));
  auto offsets = elf::runpath_tag_offsets(*o);
  REQUIRE(offsets.size() == 1);
  auto pinned = elf::retag(original, offsets, elf::runpath_tag, elf::rpath_tag);
  REQUIRE(pinned.ok());
  const std::string want = condacuda::util::to_hex(condacuda::util::sha256(original)),
                    want_pinned = condacuda::util::to_hex(condacuda::util::sha256(*pinned));
  auto hash_in_pieces = [&](const std::string& bytes, const elf::TagEdit& edit, std::size_t piece) {
    elf::RetagHasher h(edit);
    for (std::size_t at = 0; at < bytes.size(); at += piece) h.update(std::string_view(bytes).substr(at, piece));
    return h.finish();
  };
  // Pieces that split the tag (3, 5, 7) or start on it, a piece ending at it, the whole file at once.
  for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{5}, std::size_t{7}, std::size_t{8},
                            std::size_t{4096}, static_cast<std::size_t>(offsets[0]), original.size()}) {
    CAPTURE(piece);
    auto d = hash_in_pieces(original, elf::pin_edit(offsets), piece);
    CHECK(d.sha256 == want);
    CHECK(d.retagged_sha256 == want_pinned);
    auto back = hash_in_pieces(*pinned, elf::unpin_edit(offsets), piece);
    CHECK(back.sha256 == want_pinned);
    CHECK(back.retagged_sha256 == want);
    // Where retag fails, no retagged digest: pinned already, a wrong offset, past the end, given twice.
    CHECK(hash_in_pieces(*pinned, elf::pin_edit(offsets), piece).retagged_sha256.empty());
    CHECK(hash_in_pieces(original, elf::pin_edit({offsets[0] + 1}), piece).retagged_sha256.empty());
    CHECK(hash_in_pieces(original, elf::pin_edit({original.size() - 4}), piece).retagged_sha256.empty());
    CHECK(hash_in_pieces(original, elf::pin_edit({offsets[0], offsets[0]}), piece).retagged_sha256.empty());
    // No edit: both digests are the file's.
    auto plain = hash_in_pieces(original, {}, piece);
    CHECK(plain.sha256 == want);
    CHECK(plain.retagged_sha256 == want);
  }
  // The patches: 8 bytes at the offset, the same file as retag makes.
  auto patches = elf::retag_patches(original, elf::pin_edit(offsets));
  REQUIRE(patches.ok());
  REQUIRE(patches->size() == 1);
  CHECK((*patches)[0] == elf::BytePatch{offsets[0], elf::tag_bytes(elf::rpath_tag)});
  CHECK(*elf::apply_patches(original, *patches) == *pinned);
  CHECK_FALSE(elf::apply_patches(original, {{original.size() - 4, "12345678"}}).ok());
  CHECK_FALSE(elf::retag_patches(*pinned, elf::pin_edit(offsets)).ok());
}

TEST_CASE("ByteReader::cstring_equals says what cstring(...) == text says, at every offset, limit and text") {
  using condacuda::elf::ByteReader;
  const char bytes[] = "abc\0ab\0\0xyz"; // 12 bytes and a final NUL: "abc", "ab", "", "xyz"
  const ByteReader r(bytes, sizeof bytes - 1); // the last string has no NUL inside the data
  const std::vector<std::string> texts = {"", "a", "ab", "abc", "abcd", "b", "bc", "xyz", "yz", std::string("ab\0", 3)};
  int compared = 0;
  for (std::uint64_t offset = 0; offset <= sizeof bytes; ++offset)
    for (std::uint64_t limit = 0; limit <= sizeof bytes + 1; ++limit)
      for (const auto& text : texts) {
        auto s = r.cstring(offset, limit);
        CHECK_MESSAGE(r.cstring_equals(offset, limit, text) == (s && *s == text),
                      "offset " << offset << " limit " << limit << " text '" << text << "'");
        ++compared;
      }
  CHECK(compared > 1000);
}

TEST_CASE("pin_refusal: the DT_RPATH that ld.so would keep once flipped is the last one, compared with the last DT_RUNPATH") {
  // glibc keeps the last entry of each tag (_dl_get_dynamic_info): flipping
  // every DT_RUNPATH to DT_RPATH is safe unless a DT_RPATH comes after the
  // last DT_RUNPATH. The library's DT_NEEDED entries, retagged, give every
  // order; where the first and the last entries would say otherwise, the
  // last decide.
  fixture::TempDir t("pin-refusal");
  const std::string lib = t.path() + "/libccorder.so";
  fixture::shared_library(lib, "int cc_order(void) { return 1; }\n",
                          {"-Wl,--no-as-needed", "-lm", "-lrt", "-ldl", "-Wl,--enable-new-dtags,-rpath,$ORIGIN"});
  const std::string original = fixture::read_file(lib);
  auto o = parse_file(lib);
  const auto needed = o->dynamic_entry_offsets(elf::dt_needed);
  const auto runpath = elf::runpath_tag_offsets(*o);
  REQUIRE(needed.size() >= 2);
  REQUIRE(runpath.size() == 1);
  REQUIRE(needed[1] < runpath[0]); // the linker puts DT_NEEDED first
  // order: the new tag of needed[0], needed[1], and of the DT_RUNPATH (0: unchanged).
  struct Order {
    std::int64_t first, second, last;
    bool refused;
  };
  const std::int64_t rp = elf::rpath_tag, ru = elf::runpath_tag, keep = 0;
  for (const Order& order : {Order{rp, keep, keep, false},  // a DT_RPATH before the DT_RUNPATH: pinnable
                             Order{ru, keep, rp, true},     // the only DT_RPATH after the last DT_RUNPATH
                             Order{ru, rp, keep, false},    // RUNPATH, RPATH, RUNPATH: the last RUNPATH is after it
                             Order{rp, ru, rp, true}}) {    // RPATH, RUNPATH, RPATH: the last RPATH is after it
    CAPTURE(order.first);
    CAPTURE(order.second);
    CAPTURE(order.last);
    std::string bytes = original;
    auto retag_one = [&](std::uint64_t at, std::int64_t from, std::int64_t to) {
      if (to == keep) return;
      auto r = elf::retag(bytes, {at}, from, to);
      REQUIRE(r.ok());
      bytes = *r;
    };
    retag_one(needed[0], elf::dt_needed, order.first);
    retag_one(needed[1], elf::dt_needed, order.second);
    retag_one(runpath[0], elf::runpath_tag, order.last);
    const std::string out = t.path() + "/variant.so";
    fixture::write_file(out, bytes);
    auto v = parse_file(out);
    CHECK(elf::pin_refusal(*v).has_value() == order.refused);
  }
}
