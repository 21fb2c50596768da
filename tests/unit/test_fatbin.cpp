// elf/fatbin: the fatbin headers of synthetic sections (every field and flag
// the reader interprets, and damaged input: sizes past the end, headers too
// small, foreign bytes, entry loops), then a real ELF file carrying such a
// section (gcc + objcopy --add-section). tests/e2e/test_info_fatbin.sh reads
// libraries compiled by nvcc, and the real CUDA 13 libraries when present.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "elf/fatbin.hpp"
#include "support/fixture.hpp"

using namespace condacuda::elf;

namespace {

struct Bytes {
  std::vector<std::byte> data;
  template <typename T> void put(T v) {
    std::byte b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    data.insert(data.end(), b, b + sizeof(T));
  }
  void pad_to8() {
    while (data.size() % 8) data.push_back(std::byte{0});
  }
  ByteReader reader() const { return ByteReader(data.data(), data.size()); }
};

struct EntrySpec {
  std::uint16_t kind = 2;
  std::uint32_t arch = 80;
  std::uint64_t flags = 0x11;
  std::uint16_t major = 1, minor = 8;
  std::uint32_t payload = 24;
  std::uint32_t header_size = 64;
  std::uint64_t uncompressed = 0;
};

void put_entry(Bytes& b, const EntrySpec& e) {
  b.put<std::uint16_t>(e.kind);
  b.put<std::uint16_t>(0x101);
  b.put<std::uint32_t>(e.header_size);
  b.put<std::uint64_t>(e.payload);
  b.put<std::uint32_t>((e.flags & 0x8000) ? e.payload - 3 : 0);
  b.put<std::uint32_t>(e.kind == 1 ? 64 : 0);
  b.put<std::uint16_t>(e.minor);
  b.put<std::uint16_t>(e.major);
  b.put<std::uint32_t>(e.arch);
  b.put<std::uint32_t>(0);
  b.put<std::uint32_t>(0);
  b.put<std::uint64_t>(e.flags);
  b.put<std::uint64_t>(0);
  b.put<std::uint64_t>(e.uncompressed);
  for (std::uint32_t i = 64; i < e.header_size; ++i) b.data.push_back(std::byte{0});
  for (std::uint32_t i = 0; i < e.payload; ++i) b.data.push_back(std::byte{0x5a});
}

// A container of these entries, 8-aligned after it.
void put_container(Bytes& b, const std::vector<EntrySpec>& entries, std::uint64_t claimed = 0) {
  Bytes body;
  for (const auto& e : entries) put_entry(body, e);
  b.put<std::uint32_t>(0xBA55ED50u);
  b.put<std::uint16_t>(1);
  b.put<std::uint16_t>(16);
  b.put<std::uint64_t>(claimed ? claimed : body.data.size());
  b.data.insert(b.data.end(), body.data.begin(), body.data.end());
  b.pad_to8();
}

} // namespace

TEST_CASE("fatbin: SASS and PTX entries, their architectures, PTX ISA, compression, a and f targets") {
  Bytes b;
  put_container(b, {{.kind = 2, .arch = 80, .flags = 0x11, .payload = 21},
                    {.kind = 1, .arch = 80, .flags = 0x8011, .major = 9, .minor = 0, .payload = 40, .header_size = 80,
                     .uncompressed = 656}});
  b.put<std::uint64_t>(0); // padding between containers is allowed
  put_container(b, {{.kind = 2, .arch = 90, .flags = 0x100011},
                    {.kind = 2, .arch = 100, .flags = 0x1200011, .header_size = 96},
                    {.kind = 1, .arch = 100, .flags = 0x108011, .major = 9, .minor = 0},
                    {.kind = 2, .arch = 75, .flags = 0x8011}});
  FatbinSummary s = read_fatbin_section(b.reader());
  CHECK(s.problems.empty());
  CHECK(s.containers == 2);
  REQUIRE(s.entries.size() == 6);
  CHECK(s.entries[0].kind == FatbinCodeKind::sass);
  CHECK_FALSE(s.entries[0].compressed);
  CHECK(s.entries[1].kind == FatbinCodeKind::ptx);
  CHECK(s.entries[1].compressed);
  CHECK(s.entries[1].uncompressed_size == 656);
  CHECK(s.entries[1].version_major == 9);
  CHECK(s.entries[1].version_minor == 0);
  CHECK(s.sass_targets() == std::vector<std::string>{"sm_75", "sm_80", "sm_90a", "sm_100f"});
  CHECK(s.ptx_targets() == std::vector<std::string>{"compute_80", "compute_100a"});
}

TEST_CASE("fatbin: damaged input is reported, never read past") {
  SUBCASE("a container that claims more than the section has") {
    Bytes b;
    put_container(b, {{}}, 1u << 30);
    auto s = read_fatbin_section(b.reader());
    CHECK(s.entries.empty());
    REQUIRE(s.problems.size() == 1);
    CHECK(s.problems[0].find("claims more bytes than the section has") != std::string::npos);
  }
  SUBCASE("an entry header smaller than 64 bytes, one whose payload leaves its container") {
    for (EntrySpec bad : {EntrySpec{.header_size = 8}, EntrySpec{.payload = 4000}}) {
      Bytes body;
      put_entry(body, bad);
      Bytes b;
      b.put<std::uint32_t>(0xBA55ED50u);
      b.put<std::uint16_t>(1);
      b.put<std::uint16_t>(16);
      b.put<std::uint64_t>(96); // the container ends before the payload does
      b.data.insert(b.data.end(), body.data.begin(), body.data.begin() + std::min<std::size_t>(96, body.data.size()));
      auto s = read_fatbin_section(b.reader());
      CHECK(s.entries.empty());
      CHECK(s.problems.size() == 1);
    }
  }
  SUBCASE("a truncated section: the last header cut") {
    Bytes b;
    put_container(b, {{}, {.arch = 86}});
    b.data.resize(b.data.size() - 40);
    auto s = read_fatbin_section(b.reader());
    CHECK(s.problems.size() == 1);
  }
  SUBCASE("foreign bytes between containers: one problem, the next container still read") {
    Bytes b;
    put_container(b, {{}});
    for (int i = 0; i < 5; ++i) b.put<std::uint64_t>(0x1122334455667788ull);
    put_container(b, {{.arch = 90}});
    auto s = read_fatbin_section(b.reader());
    CHECK(s.problems.size() == 1);
    CHECK(s.sass_targets() == std::vector<std::string>{"sm_80", "sm_90"});
  }
  SUBCASE("an unknown kind is skipped, the walk goes on") {
    Bytes b;
    put_container(b, {{.kind = 7}, {.arch = 89}});
    auto s = read_fatbin_section(b.reader());
    CHECK(s.problems.size() == 1);
    CHECK(s.sass_targets() == std::vector<std::string>{"sm_89"});
  }
  SUBCASE("every prefix of a good section: no crash, no entry past the cut") {
    Bytes b;
    put_container(b, {{}, {.kind = 1, .flags = 0x8011, .header_size = 80}, {.arch = 120}});
    for (std::size_t n = 0; n <= b.data.size(); ++n) {
      auto s = read_fatbin_section(ByteReader(b.data.data(), n));
      CHECK(s.entries.size() <= 3);
    }
  }
}

TEST_CASE("read_fatbins: found through the section headers of a real ELF file; absent, or not ELF64") {
  fixture::TempDir dir("fatbin");
  Bytes b;
  put_container(b, {{.arch = 86}, {.kind = 1, .arch = 86, .flags = 0x8011, .major = 8, .minor = 8, .header_size = 80}});
  fixture::write_file(dir / "section.bin", std::string(reinterpret_cast<const char*>(b.data.data()), b.data.size()));
  fixture::shared_library(dir / "plain.so", "int f(void) { return 1; }\n");
  auto copied = fixture::run({"/usr/bin/objcopy", "--add-section", ".nv_fatbin=" + (dir / "section.bin"), dir / "plain.so",
                              dir / "with.so"});
  REQUIRE_MESSAGE(copied.status == 0, copied.err);
  auto read = [&](const std::string& name) {
    const std::string text = fixture::read_file(dir / name);
    return read_fatbins(ByteReader(text.data(), text.size()));
  };
  auto with = read("with.so");
  REQUIRE(with);
  CHECK(with->has_section);
  CHECK(with->problems.empty());
  CHECK(with->sass_targets() == std::vector<std::string>{"sm_86"});
  CHECK(with->ptx_targets() == std::vector<std::string>{"compute_86"});
  CHECK(with->entries[1].version_major == 8);
  auto plain = read("plain.so");
  REQUIRE(plain);
  CHECK_FALSE(plain->has_section);
  CHECK(plain->entries.empty());
  CHECK_FALSE(read_fatbins(ByteReader("not an ELF file at all, but long enough to have a header....", 60)));
}
