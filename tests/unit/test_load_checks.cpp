// The file checks of elf/load_checks.hpp, one rule at a time: a real library
// compiled here, one field changed, and the verdict compared with the real
// ld.so (the dlopen probe in a fresh process: exit 0 loads, exit 1 refuses,
// a signal or ld.so's assertion exit 127 crashes). Each case names the glibc
// 2.36 source of the rule.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "elf/elf_constants.hpp"
#include "elf/elf_object.hpp"
#include "elf/load_checks.hpp"
#include "support/bytes_source.hpp"
#include "support/fixture.hpp"
#include "support/oracle.hpp"

namespace elf = condacuda::elf;
using Outcome = elf::LoadCheck::Outcome;

namespace {

using Bytes = std::vector<std::byte>;

// A library with what the rules touch: a constructor (DT_INIT_ARRAY), a PLT
// call into libm (DT_JMPREL), a GOT reference to its own global (a lookup of
// its own definition), versioned definitions and requirements.
const char* const source = R"(
#include <math.h>
int counter = 1;
double lc_scale(double x) { return cos(x) * counter; }
static int ready;
__attribute__((constructor)) static void lc_init(void) { ready = counter; }
int lc_ready(void) { return ready; }
)";
const char* const version_script = "LC_1 { global: lc_scale; lc_ready; counter; local: *; };\n";

struct Library {
  fixture::TempDir dir{"loadcheck"};
  Bytes bytes;

  explicit Library(const std::vector<std::string>& extra = {}) {
    fixture::write_file(dir / "lc.map", version_script);
    std::vector<std::string> args{"-O1", "-Wl,--version-script=" + (dir / "lc.map"), "-lm"};
    args.insert(args.end(), extra.begin(), extra.end());
    fixture::shared_library(dir / "base.so", source, args);
    std::string text = fixture::read_file(dir / "base.so");
    bytes.resize(text.size());
    std::memcpy(bytes.data(), text.data(), text.size());
  }

  template <class T>
  T get(std::uint64_t at) const {
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    return v;
  }
  template <class T>
  void put(std::uint64_t at, T v) {
    std::memcpy(bytes.data() + at, &v, sizeof v);
  }

  // File offset of program header i of type `type` (the first), or 0.
  std::uint64_t phdr(std::uint32_t type, int nth = 0) const {
    auto phoff = get<std::uint64_t>(32);
    auto phnum = get<std::uint16_t>(56);
    for (std::uint16_t i = 0; i < phnum; ++i)
      if (get<std::uint32_t>(phoff + 56ull * i) == type && nth-- == 0) return phoff + 56ull * i;
    return 0;
  }
  // File offset of the dynamic entry with `tag` (its tag field), or 0.
  std::uint64_t dyn(std::int64_t tag) const {
    std::uint64_t d = get<std::uint64_t>(phdr(elf::pt_dynamic) + 8);
    for (std::uint64_t at = d; get<std::int64_t>(at) != 0; at += 16)
      if (get<std::int64_t>(at) == tag) return at;
    return 0;
  }
  std::uint64_t vaddr_to_offset(std::uint64_t vaddr) const {
    for (int i = 0; std::uint64_t p = phdr(elf::pt_load, i); ++i) {
      auto offset = get<std::uint64_t>(p + 8), va = get<std::uint64_t>(p + 16), filesz = get<std::uint64_t>(p + 32);
      if (vaddr >= va && vaddr < va + filesz) return offset + (vaddr - va);
    }
    FAIL("address outside the file");
    return 0;
  }

  elf::LoadCheck check() const { return elf::check_load(bytes, elf::em_x86_64); }
  elf::LoadCheck check(int glibc_minor) const { return elf::check_load(bytes, elf::em_x86_64, 4096, UINT64_MAX, glibc_minor); }

  // The real ld.so's outcome for these bytes (then calling `call` from it, if given).
  Outcome real(const std::string& call = "") const {
    std::string path = dir / "variant.so";
    fixture::write_file(path, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    std::vector<std::string> argv{fixture::probe_path(), path};
    if (!call.empty()) argv.insert(argv.end(), {"--call", call});
    auto r = fixture::run(argv);
    if (r.status == 0) return Outcome::ok;
    if (r.status == 1 && r.out.rfind("ERR ", 0) == 0) return Outcome::refuses;
    return Outcome::crashes;
  }
};

// The model and ld.so agree, and the model says `outcome` with `words` in its reason.
void expect(const Library& lib, Outcome outcome, const std::string& words) {
  auto c = lib.check();
  INFO("model: " << c.reason);
  CHECK(c.outcome == outcome);
  CHECK(c.reason.find(words) != std::string::npos);
  CHECK(lib.real() == outcome);
}

} // namespace

TEST_CASE("the base library loads, in the model and in ld.so") {
  Library lib;
  CHECK(lib.check().ok());
  CHECK(lib.real() == Outcome::ok);
  Library both({"-Wl,--hash-style=both", "-Wl,-z,now"});
  CHECK(both.check().ok());
  CHECK(both.real() == Outcome::ok);
}

TEST_CASE("_dl_map_object_from_fd (elf/dl-load.c): load commands") {
  SUBCASE("p_vaddr - p_offset not a multiple of the page size") {
    Library lib;
    std::uint64_t p = lib.phdr(elf::pt_load, 1);
    lib.put<std::uint64_t>(p + 8, lib.get<std::uint64_t>(p + 8) + 1);
    expect(lib, Outcome::refuses, "ELF load command address/offset not page-aligned");
  }
  SUBCASE("no PT_LOAD") {
    Library lib;
    while (std::uint64_t p = lib.phdr(elf::pt_load)) lib.put<std::uint32_t>(p, 0);
    expect(lib, Outcome::refuses, "object file has no loadable segments");
  }
  SUBCASE("a PT_DYNAMIC of size 0 (separate debuginfo)") {
    Library lib;
    lib.put<std::uint64_t>(lib.phdr(elf::pt_dynamic) + 32, 0);
    expect(lib, Outcome::refuses, "object file has no dynamic section");
  }
  SUBCASE("load commands out of order: one maps over another") {
    Library lib;
    std::uint64_t p = lib.phdr(elf::pt_load, 0);
    lib.put<std::uint64_t>(p + 40, lib.get<std::uint64_t>(p + 40) + 0x100000);
    auto c = lib.check();
    CHECK(c.outcome == Outcome::crashes);
    CHECK(lib.real() != Outcome::ok);
  }
}

TEST_CASE("the load commands' alignment rules on both sides of their switch: 2.34 and 2.35 (163f625cf9, BZ #28688)") {
  SUBCASE("a p_align that is no page multiple, p_vaddr - p_offset page-aligned: refused up to 2.34, loads from 2.35") {
    Library lib;
    const std::uint64_t p = lib.phdr(elf::pt_load, 0);
    lib.put<std::uint64_t>(p + 48, 0x800);
    CHECK(lib.check(34).reason == "ELF load command alignment not page-aligned");
    CHECK(lib.check(35).ok());
    CHECK(lib.check(36).ok());
    CHECK(lib.real() == Outcome::ok); // this machine's 2.36 is on the 2.35 side
  }
  SUBCASE("a p_align larger than the address space can reserve: maps up to 2.34, refused from 2.35 (_dl_map_segment)") {
    Library lib;
    const std::uint64_t p = lib.phdr(elf::pt_load, 0);
    lib.put<std::uint64_t>(p + 48, std::uint64_t{1} << 46);
    CHECK(lib.check(34).ok());
    CHECK(lib.check(35).reason == "failed to map segment from shared object");
    CHECK(lib.real() == Outcome::refuses);
  }
}

TEST_CASE("_dl_map_segments (elf/dl-map-segments.h): an mmap the kernel refuses is 'failed to map segment'") {
  // mmap of a file at an offset past its end succeeds (the pages fault when
  // touched); the kernel refuses with EOVERFLOW only an end past
  // MAX_LFS_FILESIZE (do_mmap, file_mmap_ok in mm/mmap.c).
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    Library lib;
    std::uint64_t p = lib.phdr(elf::pt_load, i);
    REQUIRE(p != 0);
    // Page-aligned, so p_vaddr - p_offset stays a multiple of the page size.
    lib.put<std::uint64_t>(p + 8, lib.get<std::uint64_t>(p + 8) + 0x7ffffffffffff000ull);
    expect(lib, Outcome::refuses, "failed to map segment from shared object");
  }
  SUBCASE("a segment past the end of the file that nothing reads loads") {
    Library lib;
    std::uint64_t eh = 0; // the read-only segment after the code (.eh_frame): ld.so never reads it
    for (int i = 0; std::uint64_t p = lib.phdr(elf::pt_load, i); ++i)
      if (lib.get<std::uint32_t>(p + 4) == 4 && i > 0) eh = p;
    REQUIRE(eh != 0);
    lib.put<std::uint64_t>(eh + 8, lib.get<std::uint64_t>(eh + 8) + (1ull << 40));
    CHECK(lib.check().ok());
    CHECK(lib.real() == Outcome::ok);
  }
  SUBCASE("the writable segment past the end of the file: relocation faults") {
    Library lib;
    std::uint64_t rw = 0;
    for (int i = 0; std::uint64_t p = lib.phdr(elf::pt_load, i); ++i)
      if (lib.get<std::uint32_t>(p + 4) & 2) rw = p;
    REQUIRE(rw != 0);
    lib.put<std::uint64_t>(rw + 8, lib.get<std::uint64_t>(rw + 8) + (1ull << 40));
    expect(lib, Outcome::crashes, "");
  }
  SUBCASE("a writable segment whose file pages reach past the end of the file: its data faults when touched") {
    // A constructor that stores to the last page of a 3-page bss; p_filesz
    // raised to p_memsz and the file cut after the segment's file bytes: that
    // page is mapped from past the end of the file and the store dies of
    // SIGBUS. (Pages past the end that nothing touches would load: the model
    // calls every such writable segment a crash.)
    fixture::TempDir dir{"pastend"};
    fixture::shared_library(dir / "big.so",
                            "static char big[3 * 4096];\n"
                            "__attribute__((constructor)) static void init(void) { big[sizeof big - 1] = 1; }\n"
                            "char *get(void) { return big; }\n",
                            {"-O1"});
    std::string text = fixture::read_file(dir / "big.so");
    Library lib;
    lib.bytes.assign(reinterpret_cast<const std::byte*>(text.data()), reinterpret_cast<const std::byte*>(text.data()) + text.size());
    std::uint64_t rw = 0;
    for (int i = 0; std::uint64_t p = lib.phdr(elf::pt_load, i); ++i)
      if (lib.get<std::uint32_t>(p + 4) & 2) rw = p;
    REQUIRE(rw != 0);
    std::uint64_t end = lib.get<std::uint64_t>(rw + 8) + lib.get<std::uint64_t>(rw + 32);
    REQUIRE(end <= lib.bytes.size());
    lib.put<std::uint64_t>(rw + 32, lib.get<std::uint64_t>(rw + 40));
    lib.put<std::uint64_t>(40, 0); // e_shoff: the section headers are cut off with the rest
    lib.put<std::uint16_t>(60, 0);
    lib.put<std::uint16_t>(62, 0);
    lib.bytes.resize(end);
    expect(lib, Outcome::crashes, "past the end of the file");
  }
  SUBCASE("[2.35+] _dl_map_segment reserves maplength + p_align first: a huge power-of-two p_align") {
    for (std::uint64_t align : {1ull << 46, 1ull << 47, 1ull << 62, 1ull << 63}) {
      CAPTURE(align);
      Library lib;
      lib.put<std::uint64_t>(lib.phdr(elf::pt_load, 0) + 48, align);
      expect(lib, Outcome::refuses, "failed to map segment from shared object");
    }
    Library fine; // 1 GiB: reserved, then unmapped around the aligned object
    fine.put<std::uint64_t>(fine.phdr(elf::pt_load, 0) + 48, 1ull << 30);
    CHECK(fine.check().ok());
    CHECK(fine.real() == Outcome::ok);
    Library odd; // not a power of two: ignored (powerof2 in dl-load.c)
    odd.put<std::uint64_t>(odd.phdr(elf::pt_load, 0) + 48, (1ull << 62) + 1);
    CHECK(odd.check().ok());
    CHECK(odd.real() == Outcome::ok);
  }
}

TEST_CASE("_dl_map_object_from_fd: a PT_DYNAMIC at p_vaddr 0 leaves l_ld null: no dynamic section") {
  Library lib;
  lib.put<std::uint64_t>(lib.phdr(elf::pt_dynamic) + 16, 0);
  expect(lib, Outcome::refuses, "object file has no dynamic section");
  auto o = elf::ElfObject::parse(elf::bytes_from_vector(lib.bytes), true);
  REQUIRE(o.ok());
  CHECK(!(*o)->has_dynamic());
}

TEST_CASE("_dl_map_object_deps (elf/dl-deps.c) walks DT_NEEDED up to DT_NULL: an entry past p_filesz is a dependency") {
  // libroot.so needs libgone.so, which is nowhere to be found. Its DT_NEEDED
  // entry is moved to the end of the dynamic array and PT_DYNAMIC's p_filesz
  // made odd and short of it: ld.so still reads it and fails to find the
  // library; the simulator must see it too.
  fixture::TempDir dir{"dynbounds"};
  fixture::shared_library(dir / "libgone.so", "int gone(void) { return 1; }\n", {"-Wl,-soname,libgone.so"});
  fixture::shared_library(dir / "libroot.so", "int gone(void);\nint root(void) { return gone(); }\n",
                          {"-L" + dir.path(), "-lgone"});
  fixture::run({"rm", dir / "libgone.so"});
  std::string text = fixture::read_file(dir / "libroot.so");
  Library lib;
  lib.bytes.assign(reinterpret_cast<const std::byte*>(text.data()), reinterpret_cast<const std::byte*>(text.data()) + text.size());
  std::uint64_t p = lib.phdr(elf::pt_dynamic);
  std::uint64_t first = lib.get<std::uint64_t>(p + 8), needed = lib.dyn(elf::dt_needed), last = needed;
  REQUIRE(needed != 0);
  while (lib.get<std::int64_t>(last + 16) != 0) last += 16; // the entry before DT_NULL
  REQUIRE(last != needed);
  for (int half = 0; half < 2; ++half) { // swap the two entries
    auto a = lib.get<std::uint64_t>(needed + 8 * half), b = lib.get<std::uint64_t>(last + 8 * half);
    lib.put<std::uint64_t>(needed + 8 * half, b);
    lib.put<std::uint64_t>(last + 8 * half, a);
  }
  lib.put<std::uint64_t>(p + 32, last - first + 7); // odd, and ends inside the moved DT_NEEDED
  auto parsed = elf::ElfObject::parse(elf::bytes_from_vector(lib.bytes), true);
  REQUIRE_MESSAGE(parsed.ok(), parsed.error().message);
  REQUIRE((*parsed)->dynamic().needed.size() == 1);
  CHECK((*parsed)->dynamic().needed[0] == "libgone.so");
  CHECK(lib.check().ok());
  std::string path = dir / "variant.so";
  fixture::write_file(path, std::string(reinterpret_cast<const char*>(lib.bytes.data()), lib.bytes.size()));
  auto real = oracle::real({{path}});
  auto sim = oracle::simulated({{path}});
  CHECK(!real.ok);
  CHECK(real.error.find("libgone.so: cannot open shared object file") != std::string::npos);
  CHECK(sim == real);
}

TEST_CASE("_dl_map_segments: a name read in place stops where the hole between load commands begins") {
  // Two load commands far apart (-z max-page-size=2 MiB, code and data in
  // one file page: -z noseparate-code): the first command maps the whole
  // reservation from the file, and the hole after its last page is made
  // PROT_NONE. A DT_NEEDED name that starts on that page and runs on past
  // it is read, in the file, from the data bytes that follow; in memory
  // ld.so reads on into the hole and faults.
  Library lib({"-Wl,-z,noseparate-code", "-Wl,-z,max-page-size=0x200000", "-Wl,-z,common-page-size=0x1000"});
  const std::uint64_t code = lib.phdr(elf::pt_load, 0), data = lib.phdr(elf::pt_load, 1);
  REQUIRE(code != 0);
  REQUIRE(data != 0);
  const std::uint64_t code_end = (lib.get<std::uint64_t>(code + 16) + lib.get<std::uint64_t>(code + 32) + 0xfff) & ~0xfffull;
  REQUIRE(lib.get<std::uint64_t>(code + 8) == 0);
  REQUIRE(lib.get<std::uint64_t>(code + 16) == 0);
  REQUIRE(lib.get<std::uint64_t>(data + 16) > code_end);             // the hole
  REQUIRE(lib.bytes.size() > code_end + 64);                        // file bytes go on past it
  const std::uint64_t strtab = lib.get<std::uint64_t>(lib.dyn(elf::dt_strtab) + 8);
  REQUIRE(strtab < code_end);
  lib.put<char>(code_end - 1, 'x');
  lib.put<std::uint64_t>(lib.dyn(elf::dt_needed) + 8, code_end - 1 - strtab);
  bool nul_in_file = false; // what the model read before: a name ended in the file's next bytes
  for (std::uint64_t at = code_end; at < lib.bytes.size() && !nul_in_file; ++at)
    nul_in_file = lib.bytes[at] == std::byte{0};
  REQUIRE(nul_in_file);
  expect(lib, Outcome::crashes, "DT_NEEDED name");
}

TEST_CASE("elf_get_dynamic_info (elf/get-dynamic-info.h): the assertions") {
  SUBCASE("DT_PLTREL other than DT_RELA (ELF_MACHINE_NO_REL)") {
    Library lib;
    lib.put<std::uint64_t>(lib.dyn(elf::dt_pltrel) + 8, elf::dt_rel);
    expect(lib, Outcome::crashes, "DT_PLTREL");
  }
  SUBCASE("DT_RELAENT other than sizeof (Elf64_Rela)") {
    Library lib;
    lib.put<std::uint64_t>(lib.dyn(elf::dt_relaent) + 8, 16);
    expect(lib, Outcome::crashes, "DT_RELAENT");
  }
}

TEST_CASE("_dl_setup_hash (elf/dl-setup_hash.c): the bloom filter's size is asserted a power of two") {
  Library lib;
  std::uint64_t gh = lib.vaddr_to_offset(lib.get<std::uint64_t>(lib.dyn(elf::dt_gnu_hash) + 8));
  lib.put<std::uint32_t>(gh + 8, 3);
  expect(lib, Outcome::crashes, "bitmask_nwords");
}

TEST_CASE("_dl_setup_hash: with DT_GNU_HASH, DT_HASH is never read (a zero DT_HASH loads)") {
  Library lib({"-Wl,--hash-style=both"});
  lib.put<std::uint64_t>(lib.dyn(elf::dt_hash) + 8, 0);
  CHECK(lib.check().ok());
  CHECK(lib.real() == Outcome::ok);
}

TEST_CASE("_dl_check_map_versions (elf/dl-version.c)") {
  SUBCASE("a Verneed record of another version") {
    Library lib;
    std::uint64_t vn = lib.vaddr_to_offset(lib.get<std::uint64_t>(lib.dyn(elf::dt_verneed) + 8));
    lib.put<std::uint16_t>(vn, 2);
    expect(lib, Outcome::refuses, "unsupported version 2 of Verneed record");
  }
  SUBCASE("version records without DT_VERSYM: l_versyms is read from a null entry") {
    Library lib;
    lib.put<std::int64_t>(lib.dyn(elf::dt_versym), 21); // DT_DEBUG, ignored
    expect(lib, Outcome::crashes, "DT_VERSYM");
  }
}

TEST_CASE("_dl_relocate_object (elf/dl-reloc.c, elf/do-rel.h, sysdeps/x86_64/dl-machine.h)") {
  SUBCASE("no DT_SYMTAB: every relocation range reads it") {
    Library lib;
    lib.put<std::int64_t>(lib.dyn(elf::dt_symtab), 21);
    expect(lib, Outcome::crashes, "DT_SYMTAB");
  }
  SUBCASE("a relocation type elf_machine_rela does not handle") {
    Library lib;
    std::uint64_t rela = lib.vaddr_to_offset(lib.get<std::uint64_t>(lib.dyn(elf::dt_jmprel) + 8));
    auto info = lib.get<std::uint64_t>(rela + 8);
    lib.put<std::uint64_t>(rela + 8, (info & ~0xffffffffull) | 0x99);
    expect(lib, Outcome::refuses, "unexpected reloc type 0x99");
  }
  SUBCASE("DT_RELACOUNT past the relative relocations: elf_machine_rela_relative asserts") {
    Library lib;
    std::uint64_t at = lib.dyn(0x6ffffff9);
    REQUIRE(at != 0);
    lib.put<std::uint64_t>(at + 8, lib.get<std::uint64_t>(lib.dyn(elf::dt_relasz) + 8) / 24);
    expect(lib, Outcome::crashes, "R_X86_64_RELATIVE");
  }
  SUBCASE("DT_JMPREL without DT_PLTREL: the PLT is never relocated, the first call through it faults") {
    Library lib;
    lib.put<std::int64_t>(lib.dyn(elf::dt_pltrel), 21);
    auto c = lib.check();
    CHECK(c.outcome == Outcome::crashes);
    CHECK(c.reason.find("DT_JMPREL") != std::string::npos);
    CHECK(lib.real("lc_scale") == Outcome::crashes); // lc_scale calls cos through the PLT
  }
}

TEST_CASE("call_init (elf/dl-init.c): DT_INIT_ARRAY without its size") {
  Library lib;
  lib.put<std::int64_t>(lib.dyn(27), 21); // DT_INIT_ARRAYSZ -> DT_DEBUG
  expect(lib, Outcome::crashes, "DT_INIT_ARRAY");
}

TEST_CASE("the dynamic section is read in memory up to DT_NULL, not to p_filesz") {
  Library lib;
  std::uint64_t p = lib.phdr(elf::pt_dynamic);
  // A PT_DYNAMIC that claims one entry: ld.so reads on to the real DT_NULL.
  lib.put<std::uint64_t>(p + 32, 16);
  lib.put<std::uint64_t>(p + 40, 16);
  CHECK(lib.check().ok());
  CHECK(lib.real() == Outcome::ok);
}

TEST_CASE("do_lookup_x (elf/dl-lookup.c) shifts the 32-bit new_hash: a bloom shift of 32 or more is taken modulo 32") {
  // For each shift, the model finds the library's own `counter` exactly when ld.so does.
  for (std::uint32_t shift : {5u, 6u, 37u, 0x7b3de65u, 0xffffffffu}) {
    Library lib;
    std::uint64_t gh = lib.vaddr_to_offset(lib.get<std::uint64_t>(lib.dyn(elf::dt_gnu_hash) + 8));
    lib.put<std::uint32_t>(gh + 12, shift);
    INFO("shift " << shift << ": " << lib.check().reason);
    CHECK(lib.check().ok() == (lib.real() == Outcome::ok));
  }
}

TEST_CASE("a bloom shift of 32..63 on which the 32-bit and a 64-bit shift disagree: the model follows ld.so") {
  // With a 64-bit new_hash such a shift would test bit 0 of the word; ld.so
  // tests bit (h >> (shift - 32)) % 64. Pick a shift where the two bits differ.
  Library lib;
  std::uint64_t gh = lib.vaddr_to_offset(lib.get<std::uint64_t>(lib.dyn(elf::dt_gnu_hash) + 8));
  auto nwords = lib.get<std::uint32_t>(gh + 8);
  std::uint32_t h = elf::gnu_hash("counter");
  auto word = lib.get<std::uint64_t>(gh + 16 + 8ull * ((h / 64) & (nwords - 1)));
  std::optional<std::uint32_t> shift;
  for (std::uint32_t k = 0; k < 32 && !shift; ++k)
    if (((word >> ((h >> k) % 64)) & 1) != (word & 1)) shift = 32 + k;
  REQUIRE(shift);
  lib.put<std::uint32_t>(gh + 12, *shift);
  INFO("shift " << *shift << ": " << lib.check().reason);
  CHECK(lib.check().ok() == (lib.real() == Outcome::ok));
}

namespace {
using fixture::BytesSource;

// A library with `n` relative relocations (a table of pointers to one int).
Bytes pointer_table_library(const fixture::TempDir& dir, int n) {
  std::string code = "static int target;\nint* table[] = {";
  for (int i = 0; i < n; ++i) code += i ? ",&target" : "&target";
  code += "};\n";
  fixture::shared_library(dir / "table.so", code, {"-O1"});
  std::string text = fixture::read_file(dir / "table.so");
  Bytes bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}
} // namespace

TEST_CASE("a large relocation table is checked from the table source's copy, in pieces; the map where it refuses") {
  Library table; // its helpers read the bytes put in it
  table.bytes = pointer_table_library(table.dir, 20000);
  const Bytes& bytes = table.bytes;
  REQUIRE(elf::check_load(bytes, elf::em_x86_64).ok());
  const std::uint64_t rela = table.vaddr_to_offset(table.get<std::uint64_t>(table.dyn(elf::dt_rela) + 8));
  const std::uint64_t rela_end = rela + table.get<std::uint64_t>(table.dyn(elf::dt_relasz) + 8);
  BytesSource same(bytes, false);
  CHECK(elf::check_load(bytes, elf::em_x86_64, 4096, UINT64_MAX, 36, &same).ok());
  CHECK(same.copies_in(rela, rela_end) == 3); // 20,000 entries and more, in pieces of 8,192

  // The source's bytes are the ones judged: a relative entry's type changed
  // there (and only there) is the assertion ld.so would fail.
  const std::uint64_t type_byte = rela + 24 * 19000 + 8;
  BytesSource changed(bytes, false);
  REQUIRE(changed.bytes[type_byte] == std::byte{8});
  changed.bytes[type_byte] = std::byte{7};
  auto c = elf::check_load(bytes, elf::em_x86_64, 4096, UINT64_MAX, 36, &changed);
  CHECK(c.outcome == Outcome::crashes);
  CHECK(c.reason.find("R_X86_64_RELATIVE") != std::string::npos);

  // A source that cannot copy (the file was replaced): the map is read, and
  // the verdict is the map's.
  BytesSource refusing(changed.bytes, true);
  CHECK(elf::check_load(bytes, elf::em_x86_64, 4096, UINT64_MAX, 36, &refusing).ok());
  CHECK(refusing.copies_in(rela, rela_end) == 3);
  CHECK(refusing.copies == same.copies); // each piece asked for once, refused or not
}

TEST_CASE("the dynamic section and the section headers are read from the table source's copy, the map where it refuses") {
  // Far pages of the file read once by pread, not faulted in through the
  // map: the copy's bytes are the ones judged. DT_RELAENT changed in the copy
  // only is the assertion ld.so would fail; .got.plt's address changed in the
  // copy's section headers only no longer names DT_PLTGOT, whose slots are
  // then not checked (a PLT slot left unrelocated passes).
  Library lib;
  const std::uint64_t relaent = lib.dyn(elf::dt_relaent);
  REQUIRE(relaent != 0);
  BytesSource changed(lib.bytes, false);
  changed.bytes[relaent + 8] = std::byte{23};
  auto c = elf::check_load(lib.bytes, elf::em_x86_64, 4096, UINT64_MAX, 36, &changed);
  CHECK(c.outcome == Outcome::crashes);
  CHECK(c.reason.find("DT_RELAENT") != std::string::npos);
  BytesSource refusing(changed.bytes, true);
  CHECK(elf::check_load(lib.bytes, elf::em_x86_64, 4096, UINT64_MAX, 36, &refusing).ok());

  // The PLT's relocations cut off (DT_PLTRELSZ 0 is refused outright, so
  // DT_JMPREL's table is shortened by one entry): one slot of .got.plt is
  // never set, which the model reports where the section headers name it.
  fixture::TempDir dir{"twoplt"};
  fixture::shared_library(dir / "two.so", "#include <stdio.h>\n#include <stdlib.h>\nint two(const char* s) { puts(s); return atoi(s); }\n",
                          {"-O1"});
  const std::string text = fixture::read_file(dir / "two.so");
  Library cut;
  cut.bytes.assign(reinterpret_cast<const std::byte*>(text.data()), reinterpret_cast<const std::byte*>(text.data()) + text.size());
  const std::uint64_t pltrelsz = cut.dyn(elf::dt_pltrelsz);
  REQUIRE(pltrelsz != 0);
  REQUIRE(cut.get<std::uint64_t>(pltrelsz + 8) >= 48);
  cut.put<std::uint64_t>(pltrelsz + 8, cut.get<std::uint64_t>(pltrelsz + 8) - 24);
  const auto unset = cut.check();
  REQUIRE(unset.reason.find("a PLT slot no relocation sets") != std::string::npos);
  BytesSource same(cut.bytes, false);
  auto via_copy = elf::check_load(cut.bytes, elf::em_x86_64, 4096, UINT64_MAX, 36, &same);
  CHECK(via_copy.outcome == unset.outcome);
  CHECK(via_copy.reason == unset.reason);
  // The copy's .got.plt moved elsewhere: the slots are not those of DT_PLTGOT.
  const std::uint64_t shoff = cut.get<std::uint64_t>(40);
  const auto shnum = cut.get<std::uint16_t>(60), shstrndx = cut.get<std::uint16_t>(62);
  const std::uint64_t names = cut.get<std::uint64_t>(shoff + 64ull * shstrndx + 24);
  std::uint64_t got_plt = 0;
  for (std::uint16_t i = 0; i < shnum; ++i)
    if (std::string(reinterpret_cast<const char*>(cut.bytes.data()) + names + cut.get<std::uint32_t>(shoff + 64ull * i)) ==
        ".got.plt")
      got_plt = shoff + 64ull * i;
  REQUIRE(got_plt != 0);
  BytesSource moved(cut.bytes, false);
  std::uint64_t elsewhere = cut.get<std::uint64_t>(got_plt + 16) + 8;
  std::memcpy(moved.bytes.data() + got_plt + 16, &elsewhere, 8);
  CHECK(elf::check_load(cut.bytes, elf::em_x86_64, 4096, UINT64_MAX, 36, &moved).ok());
}
