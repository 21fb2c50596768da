// elf/abi_tag and loader/abi_tag_rule: the NT_GNU_ABI_TAG note open_verify
// reads up to glibc 2.35. readelf is the oracle for the reading; the rule's
// outcomes against the real 2.31 loader are e2e.loader_glibc_2_31's
// `abi-tag-kernel` experiment and the hostile corpus in that root.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include "elf/abi_tag.hpp"
#include "elf/elf_object.hpp"
#include "loader/abi_tag_rule.hpp"
#include "support/bytes_source.hpp"
#include "support/fixture.hpp"
#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "util/path.hpp"

using namespace condacuda;

namespace {
constexpr std::uint64_t phoff = 64;

void put32(std::vector<std::byte>& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put64(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

// A file of `size` bytes with one program header at 64: PT_NOTE at offset,
// filesz, align.
std::vector<std::byte> with_note(std::size_t size, std::uint64_t offset, std::uint64_t filesz, std::uint64_t align) {
  std::vector<std::byte> b(size);
  put32(b, phoff, 4);
  put64(b, phoff + 8, offset);
  put64(b, phoff + 32, filesz);
  put64(b, phoff + 48, align);
  return b;
}

// One note at `at`: name "GNU" (or another), type, four descriptor words.
void note(std::vector<std::byte>& b, std::size_t at, const char* name, std::uint32_t type, std::uint32_t os,
          std::uint32_t major, std::uint32_t minor, std::uint32_t patch) {
  put32(b, at, 4);
  put32(b, at + 4, 16);
  put32(b, at + 8, type);
  std::memcpy(b.data() + at + 12, name, 4);
  put32(b, at + 16, os);
  put32(b, at + 20, major);
  put32(b, at + 24, minor);
  put32(b, at + 28, patch);
}

loader::LoaderConfig glibc(int minor, std::uint32_t kernel) {
  loader::LoaderConfig c;
  c.glibc_minor = minor;
  c.kernel_version = kernel;
  c.commit_limit = std::uint64_t{1} << 34;
  return c;
}
} // namespace

TEST_CASE("kernel_version_from_release reads a release as _dl_discover_osversion does") {
  CHECK(loader::kernel_version_from_release("6.1.0-18-amd64") == 0x060100);
  CHECK(loader::kernel_version_from_release("5.10.209") == 0x050ad1);
  CHECK(loader::kernel_version_from_release("4.18") == 0x041200);
  CHECK(loader::kernel_version_from_release("6") == 0x060000);
  CHECK(loader::kernel_version_from_release("6.18.44-fc-v1045") == 0x06122c);
  CHECK(loader::kernel_version_from_release("3.2.0.99") == 0x030200); // three parts at most
  CHECK(loader::kernel_version_from_release("x") == 0);
  CHECK(loader::kernel_version_from_release("") == 0);
}

TEST_CASE("read_abi_tag finds the note as readelf shows it, in a real libc") {
  auto facts = sys::detect_machine();
  std::string libc = util::dir_name(sys::canonical_path(facts.config.interp)) + "/libc.so.6";
  auto bytes = sys::map_file(libc);
  REQUIRE(bytes);
  auto r = fixture::run({"/usr/bin/readelf", "-n", libc}, {{"LC_ALL", "C"}});
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("OS: Linux, ABI: (\\d+)\\.(\\d+)\\.(\\d+)")));
  auto header = elf::verify_header(bytes->data, facts.config.machine);
  REQUIRE(header.verdict == elf::HeaderVerdict::ok);
  CHECK(header.abi_tag.read == elf::AbiTag::Read::found);
  CHECK(header.abi_tag.os == 0);
  CHECK(header.abi_tag.version ==
        static_cast<std::uint32_t>(std::stoi(m[1]) << 16 | std::stoi(m[2]) << 8 | std::stoi(m[3])));
}

TEST_CASE("read_abi_tag walks the notes of each PT_NOTE the loader reads") {
  using Read = elf::AbiTag::Read;
  SUBCASE("the tag after another note, inside the loader's 832-byte buffer") {
    auto b = with_note(1024, 200, 64, 4);
    note(b, 200, "Xyz", 3, 0, 1, 2, 3);
    note(b, 232, "GNU", 1, 0, 99, 1, 2);
    auto t = elf::read_abi_tag(b, phoff, 1);
    CHECK(t.read == Read::found);
    CHECK(t.version == 0x630102);
  }
  SUBCASE("past the buffer but inside the file: read with pread") {
    auto b = with_note(4096, 3000, 32, 8);
    note(b, 3000, "GNU", 1, 3, 2, 6, 32);
    auto t = elf::read_abi_tag(b, phoff, 1);
    CHECK(t.read == Read::found);
    CHECK(t.os == 3);
  }
  SUBCASE("a note past the header's page: read from the copy source where there is one, the map where it refuses") {
    auto file = with_note(8192, 6000, 32, 4);
    note(file, 6000, "GNU", 1, 0, 3, 2, 0);
    auto map = file; // the map says otherwise: which bytes were read shows
    note(map, 6000, "GNU", 1, 0, 5, 4, 0);
    const fixture::BytesSource copies(file, false), refusing(file, true);
    CHECK(elf::read_abi_tag(map, phoff, 1, &copies).version == 0x030200);
    CHECK(copies.copies == 1);
    CHECK(elf::read_abi_tag(map, phoff, 1, &refusing).version == 0x050400);
    // In the header's page the map is read: no copy asked for.
    auto near = with_note(8192, 200, 32, 4);
    note(near, 200, "GNU", 1, 0, 3, 2, 0);
    const fixture::BytesSource unused(near, false);
    CHECK(elf::read_abi_tag(near, phoff, 1, &unused).version == 0x030200);
    CHECK(unused.copies == 0);
  }
  SUBCASE("only the low byte of each version word counts") {
    auto b = with_note(512, 200, 32, 4);
    note(b, 200, "GNU", 1, 0, 0x105, 0x203, 0x301);
    CHECK(elf::read_abi_tag(b, phoff, 1).version == 0x050301);
  }
  SUBCASE("a note too short, or of another alignment, is not read") {
    auto b = with_note(512, 200, 31, 4);
    note(b, 200, "GNU", 1, 0, 99, 0, 0);
    CHECK(elf::read_abi_tag(b, phoff, 1).read == Read::none);
    auto c = with_note(512, 200, 32, 16);
    note(c, 200, "GNU", 1, 0, 99, 0, 0);
    CHECK(elf::read_abi_tag(c, phoff, 1).read == Read::none);
  }
  SUBCASE("a walk that would leave fewer than 32 bytes stops without a tag") {
    auto b = with_note(512, 200, 48, 4);
    note(b, 200, "Xyz", 3, 0, 0, 0, 0);
    note(b, 232, "GNU", 1, 0, 99, 0, 0); // only 16 of its bytes are inside p_filesz
    CHECK(elf::read_abi_tag(b, phoff, 1).read == Read::none);
  }
  SUBCASE("a PT_NOTE past the end of the file is unreadable, even without a tag") {
    auto b = with_note(512, 400, 200, 4);
    auto t = elf::read_abi_tag(b, phoff, 1);
    CHECK(t.read == Read::unreadable);
    CHECK(t.note_offset == 400);
    CHECK(t.note_size == 200);
  }
  SUBCASE("an offset whose sum wraps into the buffer reads stack memory: taken as no tag") {
    auto b = with_note(512, ~std::uint64_t{0} - 15, 64, 4);
    CHECK(elf::read_abi_tag(b, phoff, 1).read == Read::none);
  }
}

TEST_CASE("judge_abi_tag: glibc 2.35 and older refuse, 2.36 and newer never read the note") {
  using Kind = loader::AbiTagVerdict::Kind;
  elf::AbiTag future;
  future.read = elf::AbiTag::Read::found;
  future.version = 0x630000; // Linux 99.0.0
  CHECK(loader::judge_abi_tag(future, glibc(31, 0x060100)).kind == Kind::skip);
  CHECK(loader::judge_abi_tag(future, glibc(35, 0x060100)).error == ENOENT);
  CHECK(loader::judge_abi_tag(future, glibc(36, 0x060100)).kind == Kind::accept);
  CHECK(loader::judge_abi_tag(future, glibc(31, 0)).kind == Kind::accept); // kernel unknown: no check
  elf::AbiTag old = future;
  old.version = 0x030200;
  CHECK(loader::judge_abi_tag(old, glibc(31, 0x060100)).kind == Kind::accept);
  elf::AbiTag hurd = old;
  hurd.os = 1;
  CHECK(loader::judge_abi_tag(hurd, glibc(31, 0x060100)).kind == Kind::skip);
  CHECK(loader::judge_abi_tag(hurd, glibc(41, 0x060100)).kind == Kind::accept);

  elf::AbiTag past_end;
  past_end.read = elf::AbiTag::Read::unreadable;
  past_end.note_offset = 4096;
  past_end.note_size = 100;
  auto short_read = loader::judge_abi_tag(past_end, glibc(31, 0x060100));
  CHECK(short_read.kind == Kind::unreadable);
  CHECK(short_read.error == 0);
  past_end.note_size = std::uint64_t{1} << 40; // more than commit_limit: malloc fails
  CHECK(loader::judge_abi_tag(past_end, glibc(31, 0x060100)).error == ENOMEM);
  past_end.note_size = 100;
  past_end.note_offset = std::uint64_t{1} << 63; // a negative off64_t: pread's EINVAL
  CHECK(loader::judge_abi_tag(past_end, glibc(31, 0x060100)).error == EINVAL);
  CHECK(loader::judge_abi_tag(past_end, glibc(36, 0x060100)).kind == Kind::accept);
}
