#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loader/ld_so_cache.hpp"
#include "sys/mapped_file.hpp"

using namespace condacuda::loader;
using condacuda::ErrorCode;

namespace {

// ------------------------------------------------------------ a test-side writer
// Lays out caches the way ldconfig (elf/cache.c) does: header, entries, string
// pool, then the extension directory and its sections. Offsets can be forced
// to hostile values per entry.

struct TestEntry {
  TestEntry(std::string k, std::string v, std::int32_t f = 0x303, std::uint64_t hw = 0, std::uint32_t os = 0)
      : key(std::move(k)), value(std::move(v)), flags(f), hwcap(hw), osversion(os) {}
  std::string key;
  std::string value;
  std::int32_t flags = 0x303;
  std::uint64_t hwcap = 0;
  std::uint32_t osversion = 0;
  std::optional<std::uint32_t> raw_key;   // written instead of the real offset
  std::optional<std::uint32_t> raw_value;
};

TestEntry with_raw_key(TestEntry e, std::uint32_t offset) {
  e.raw_key = offset;
  return e;
}

TestEntry with_raw_value(TestEntry e, std::uint32_t offset) {
  e.raw_value = offset;
  return e;
}

enum class Layout { old_only, compat, new_only };

struct TestCache {
  std::vector<TestEntry> entries;     // the new table, or the only table
  std::vector<TestEntry> old_entries; // compat only: the old table (empty = same as entries)
  std::vector<std::string> hwcaps;    // tag 1 names
  std::string generator;              // tag 0
  std::uint8_t endian = 2;
};

class Writer {
public:
  std::vector<std::byte> bytes;
  std::size_t size() const { return bytes.size(); }
  void raw(std::string_view s) {
    for (char c : s) bytes.push_back(static_cast<std::byte>(c));
  }
  void u8(std::uint8_t v) { bytes.push_back(static_cast<std::byte>(v)); }
  void u32(std::uint32_t v) { append(&v, 4); }
  void u64(std::uint64_t v) { append(&v, 8); }
  void put_u32(std::size_t at, std::uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }
  void align(std::size_t n) {
    while (bytes.size() % n != 0) u8(0);
  }
  std::uint32_t cstring(const std::string& s) {
    auto at = static_cast<std::uint32_t>(size());
    raw(s);
    u8(0);
    return at;
  }

private:
  void append(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
};

std::uint32_t u32_of(std::size_t v) { return static_cast<std::uint32_t>(v); }

// Writes one table's entries with zero offsets; returns where each entry's key field is.
std::vector<std::size_t> write_table(Writer& w, const std::vector<TestEntry>& entries, bool new_layout) {
  std::vector<std::size_t> slots;
  for (const TestEntry& e : entries) {
    w.u32(static_cast<std::uint32_t>(e.flags));
    slots.push_back(w.size());
    w.u32(0);
    w.u32(0);
    if (new_layout) {
      w.u32(e.osversion);
      w.u64(e.hwcap);
    }
  }
  return slots;
}

void write_strings(Writer& w, const std::vector<TestEntry>& entries, const std::vector<std::size_t>& slots,
                   std::size_t base) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::uint32_t key = w.cstring(entries[i].key) - u32_of(base);
    std::uint32_t value = w.cstring(entries[i].value) - u32_of(base);
    w.put_u32(slots[i], entries[i].raw_key.value_or(key));
    w.put_u32(slots[i] + 4, entries[i].raw_value.value_or(value));
  }
}

// The extension directory: generator and glibc-hwcaps sections, offsets from the file start.
void write_extensions(Writer& w, const TestCache& c, std::size_t ext_field) {
  if (c.generator.empty() && c.hwcaps.empty()) return;
  std::vector<std::uint32_t> name_at;
  for (const std::string& name : c.hwcaps) name_at.push_back(w.cstring(name));
  w.align(4);
  w.put_u32(ext_field, u32_of(w.size()));
  w.u32(0xEAA42174);
  w.u32((c.generator.empty() ? 0 : 1) + (c.hwcaps.empty() ? 0 : 1));
  std::size_t gen_slot = w.size();
  if (!c.generator.empty()) w.bytes.resize(w.size() + 16);
  std::size_t hw_slot = w.size();
  if (!c.hwcaps.empty()) w.bytes.resize(w.size() + 16);
  if (!c.generator.empty()) {
    std::array<std::uint32_t, 4> s{0, 0, u32_of(w.size()), u32_of(c.generator.size())};
    std::memcpy(w.bytes.data() + gen_slot, s.data(), 16);
    w.raw(c.generator);
  }
  if (!c.hwcaps.empty()) {
    w.align(4);
    std::array<std::uint32_t, 4> s{1, 0, u32_of(w.size()), u32_of(4 * c.hwcaps.size())};
    std::memcpy(w.bytes.data() + hw_slot, s.data(), 16);
    for (std::uint32_t at : name_at) w.u32(at);
  }
}

std::vector<std::byte> write_cache(const TestCache& c, Layout layout) {
  Writer w;
  const auto& old_entries = c.old_entries.empty() ? c.entries : c.old_entries;
  std::vector<std::size_t> old_slots, new_slots;
  std::size_t old_base = 0, h = 0, len_field = 0, ext_field = 0;
  if (layout != Layout::new_only) {
    w.raw("ld.so-1.7.0");
    w.u8(0);
    w.u32(u32_of(old_entries.size()));
    old_slots = write_table(w, old_entries, false);
    old_base = w.size();
  }
  if (layout != Layout::old_only) {
    w.align(8);
    h = w.size();
    w.raw("glibc-ld.so.cache1.1");
    w.u32(u32_of(c.entries.size()));
    len_field = w.size();
    w.u32(0);
    for (std::uint8_t b : {c.endian, std::uint8_t{0}, std::uint8_t{0}, std::uint8_t{0}}) w.u8(b);
    ext_field = w.size();
    for (int i = 0; i < 4; ++i) w.u32(0);
    new_slots = write_table(w, c.entries, true);
  }
  std::size_t strings_start = w.size();
  if (layout != Layout::new_only) write_strings(w, old_entries, old_slots, old_base);
  if (layout != Layout::old_only) {
    write_strings(w, c.entries, new_slots, h);
    w.put_u32(len_field, u32_of(w.size() - strings_start));
    write_extensions(w, c, ext_field);
  }
  return w.bytes;
}

// ------------------------------------------------------------ helpers

std::vector<TestEntry> sorted(std::vector<TestEntry> entries) {
  // ldconfig's order: descending _dl_cache_libcmp; a stable sort keeps each
  // equal-key run in the order the test wrote it.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const TestEntry& a, const TestEntry& b) { return dl_cache_libcmp(a.key, b.key) > 0; });
  return entries;
}

LdSoCache parse_ok(const std::vector<std::byte>& bytes) {
  auto r = parse_ld_so_cache(bytes);
  if (!r) FAIL("parse failed: " << r.error().message);
  return std::move(r).value();
}

ErrorCode parse_error(const std::vector<std::byte>& bytes) {
  auto r = parse_ld_so_cache(bytes);
  REQUIRE_FALSE(r.ok());
  return r.error().code;
}

std::uint64_t hwcaps_bits(std::uint32_t index, std::uint32_t isa_level) {
  return hwcap_extension_bit | (std::uint64_t{isa_level} << 32) | index;
}

const std::vector<std::string> x86_hwcaps = {"x86-64-v2", "x86-64-v3", "x86-64-v4"}; // sorted, as ldconfig writes

CacheLookupConfig v4_cpu() {
  CacheLookupConfig c;
  c.active_hwcaps = {"x86-64-v4", "x86-64-v3", "x86-64-v2"};
  c.isa_level_mask = 0xf; // baseline, v2, v3, v4
  return c;
}

std::optional<std::string> lookup_in(const TestCache& c, std::string_view name, const CacheLookupConfig& config = {}) {
  return cache_lookup(parse_ok(write_cache(c, Layout::new_only)), name, config);
}

// A run for libfoo.so.1 with hwcaps entries for v2, v4 and v3 (in that file
// order, each with its ISA level) before the plain entry.
TestCache hwcaps_run() {
  TestCache c;
  c.hwcaps = x86_hwcaps;
  c.entries = {
      {"libfoo.so.1", "/h/v2/libfoo.so.1", 0x303, hwcaps_bits(0, 1)},
      {"libfoo.so.1", "/h/v4/libfoo.so.1", 0x303, hwcaps_bits(2, 3)},
      {"libfoo.so.1", "/h/v3/libfoo.so.1", 0x303, hwcaps_bits(1, 2)},
      {"libfoo.so.1", "/lib/libfoo.so.1"},
  };
  return c;
}

} // namespace

// ------------------------------------------------------------ key comparison

TEST_CASE("dl_cache_libcmp compares runs of digits numerically") {
  CHECK(dl_cache_libcmp("libfoo.so.01", "libfoo.so.1") == 0);
  CHECK(dl_cache_libcmp("libfoo.so.10", "libfoo.so.9") > 0);
  CHECK(dl_cache_libcmp("libfoo.so.9", "libfoo.so.10") < 0);
  CHECK(dl_cache_libcmp("libc.so.6", "libc.so.6") == 0);
  CHECK(dl_cache_libcmp("libc.so.6", "libc.so") > 0); // longer sorts after its prefix
  CHECK(dl_cache_libcmp("libc.so", "libc.so.6") < 0);
  CHECK(dl_cache_libcmp("lib1", "libx") > 0);          // a digit sorts after any non-digit
  CHECK(dl_cache_libcmp("libx", "lib1") < 0);
  CHECK(dl_cache_libcmp("libA.so", "libB.so") < 0);
  CHECK(dl_cache_libcmp("lib2a", "lib10a") < 0);        // strcmp would say the opposite
  CHECK(dl_cache_libcmp("", "") == 0);
  CHECK(dl_cache_libcmp("", "a") < 0);
}

// ------------------------------------------------------------ the three formats

TEST_CASE("new-format cache: entries, fields, generator and hwcaps subdirs") {
  TestCache c;
  c.generator = "ldconfig (test) 2.36";
  c.hwcaps = x86_hwcaps;
  c.entries = {{"libz.so.1", "/lib/libz.so.1", 0x303, hwcaps_bits(1, 2), 0x030200},
               {"libc.so.6", "/lib/libc.so.6", 0x3, 0, 0}};
  LdSoCache cache = parse_ok(write_cache(c, Layout::new_only));
  CHECK(cache.format == CacheFormat::new_format);
  REQUIRE(cache.entries.size() == 2);
  CHECK(cache.entries[0].key == "libz.so.1");
  CHECK(cache.entries[0].value == "/lib/libz.so.1");
  CHECK(cache.entries[0].flags == 0x303);
  CHECK(cache.entries[0].hwcap == hwcaps_bits(1, 2));
  CHECK(cache.entries[0].osversion == 0x030200);
  CHECK(cache.entries[1].flags == 0x3);
  CHECK(cache.generator == "ldconfig (test) 2.36");
  CHECK(cache.hwcaps_subdirs == x86_hwcaps);
  CHECK(is_hwcaps_entry(cache.entries[0]));
  CHECK_FALSE(is_hwcaps_entry(cache.entries[1]));
}

TEST_CASE("old-format cache parses and its first 0x303 entry is found") {
  TestCache c;
  c.entries = sorted({{"libm.so.6", "/lib32/libm.so.6", 0x3}, {"libm.so.6", "/lib/libm.so.6"},
                      {"libc.so.6", "/lib/libc.so.6"}});
  LdSoCache cache = parse_ok(write_cache(c, Layout::old_only));
  CHECK(cache.format == CacheFormat::old_format);
  REQUIRE(cache.entries.size() == 3);
  CHECK(cache.entries[0].key == "libm.so.6");
  CHECK(cache.entries[0].hwcap == 0);
  CHECK(cache_lookup(cache, "libm.so.6", {}) == "/lib/libm.so.6");
  CHECK(cache_lookup(cache, "libc.so.6", {}) == "/lib/libc.so.6");
  CHECK_FALSE(cache_lookup(cache, "libz.so.1", {}));
}

TEST_CASE("compat cache: the new table after the old one is the one used") {
  TestCache c;
  c.entries = {{"libfoo.so.1", "/new/libfoo.so.1"}};
  c.old_entries = {{"libfoo.so.1", "/old/libfoo.so.1"}, {"libbar.so.1", "/old/libbar.so.1"}};
  c.generator = "gen";
  auto bytes = write_cache(c, Layout::compat);
  LdSoCache cache = parse_ok(bytes);
  CHECK(cache.format == CacheFormat::compat);
  REQUIRE(cache.entries.size() == 1);
  CHECK(cache.generator == "gen");
  CHECK(cache_lookup(cache, "libfoo.so.1", {}) == "/new/libfoo.so.1");
  CHECK_FALSE(cache_lookup(cache, "libbar.so.1", {}));
  // Break the new magic: only the old table is left.
  bytes[40] = std::byte{'X'}; // the new header starts at 16 + 2*12 = 40
  LdSoCache old = parse_ok(bytes);
  CHECK(old.format == CacheFormat::old_format);
  CHECK(cache_lookup(old, "libbar.so.1", {}) == "/old/libbar.so.1");
}

// ------------------------------------------------------------ lookup rules

TEST_CASE("lookup: binary search over the descending table, numeric-aware keys") {
  std::vector<TestEntry> entries;
  for (int v : {1, 2, 9, 10, 11, 100})
    entries.push_back({"libfoo.so." + std::to_string(v), "/lib/libfoo.so." + std::to_string(v)});
  for (char ch = 'a'; ch <= 'z'; ++ch) entries.push_back({std::string("lib") + ch + ".so", "/lib/" + std::string(1, ch)});
  TestCache c;
  c.entries = sorted(entries);
  LdSoCache cache = parse_ok(write_cache(c, Layout::new_only));
  for (const TestEntry& e : c.entries) CHECK(cache_lookup(cache, e.key, {}) == e.value);
  CHECK(cache_lookup(cache, "libfoo.so.010", {}) == "/lib/libfoo.so.10");
  CHECK(cache_lookup(cache, "libfoo.so.0001", {}) == "/lib/libfoo.so.1");
  CHECK_FALSE(cache_lookup(cache, "libfoo.so.3", {}));
  CHECK_FALSE(cache_lookup(cache, "libfoo.so", {}));
  CHECK_FALSE(cache_lookup(cache, "", {}));
}

TEST_CASE("lookup: an equal-key run is scanned in file order from its start") {
  // Probes of the binary search land in the middle of the long run; the
  // answer must still be the run's first usable entry.
  std::vector<TestEntry> entries;
  for (int i = 0; i < 9; ++i) entries.push_back({"libdup.so.1", "/dup/" + std::to_string(i)});
  entries.push_back({"libaaa.so", "/a"});
  entries.push_back({"libzzz.so", "/z"});
  TestCache c;
  c.entries = sorted(entries);
  CHECK(lookup_in(c, "libdup.so.1") == "/dup/0");
  c.entries[1].flags = 0x3; // the run starts at index 1 (after libzzz)
  CHECK(lookup_in(c, "libdup.so.1") == "/dup/1");
}

TEST_CASE("lookup: only flags 0x303 are usable on x86-64") {
  TestCache c;
  c.entries = {{"libx.so.1", "/x32/libx.so.1", 0x803},
               {"libx.so.1", "/i386/libx.so.1", 0x3},
               {"libx.so.1", "/elf/libx.so.1", 0x1},
               {"libx.so.1", "/lib64/libx.so.1", 0x303}};
  CHECK(lookup_in(c, "libx.so.1") == "/lib64/libx.so.1");
  c.entries.pop_back();
  CHECK_FALSE(lookup_in(c, "libx.so.1"));
  CacheLookupConfig aarch64;
  aarch64.required_flags = 0x0a03;
  c.entries.push_back({"libx.so.1", "/aarch64/libx.so.1", 0x0a03});
  CHECK(lookup_in(c, "libx.so.1", aarch64) == "/aarch64/libx.so.1");
  CHECK_FALSE(lookup_in(c, "libx.so.1"));
}

TEST_CASE("lookup: hwcaps entries compete by priority among the active subdirs") {
  TestCache c = hwcaps_run();
  CHECK(lookup_in(c, "libfoo.so.1", v4_cpu()) == "/h/v4/libfoo.so.1");
  CacheLookupConfig v3 = v4_cpu();
  v3.active_hwcaps = {"x86-64-v3", "x86-64-v2"};
  v3.isa_level_mask = 0x7;
  CHECK(lookup_in(c, "libfoo.so.1", v3) == "/h/v3/libfoo.so.1");
  CacheLookupConfig prepend = v4_cpu(); // a prepended subdir outranks the built-in ones
  prepend.active_hwcaps = {"x86-64-v2", "x86-64-v4", "x86-64-v3"};
  CHECK(lookup_in(c, "libfoo.so.1", prepend) == "/h/v2/libfoo.so.1");
  // Equal priority: the first one seen stays.
  c.entries.insert(c.entries.begin(), TestEntry{"libfoo.so.1", "/h/v4-first", 0x303, hwcaps_bits(2, 3)});
  CHECK(lookup_in(c, "libfoo.so.1", v4_cpu()) == "/h/v4-first");
}

TEST_CASE("lookup: hwcaps entries whose ISA level the CPU lacks are skipped") {
  TestCache c = hwcaps_run();
  CacheLookupConfig cpu = v4_cpu();
  cpu.isa_level_mask = 0x7; // no level 3: the v4 entry is incompatible although v4 is active
  CHECK(lookup_in(c, "libfoo.so.1", cpu) == "/h/v3/libfoo.so.1");
  cpu.isa_level_mask = 0x1; // baseline only
  CHECK(lookup_in(c, "libfoo.so.1", cpu) == "/lib/libfoo.so.1");
  c.entries[1].hwcap = hwcaps_bits(2, 40); // a level beyond any 32-bit mask
  cpu.isa_level_mask = 0xffffffffu;
  CHECK(lookup_in(c, "libfoo.so.1", cpu) == "/h/v3/libfoo.so.1");
}

TEST_CASE("lookup: inactive and unknown hwcaps subdirs are skipped") {
  TestCache c = hwcaps_run();
  CacheLookupConfig none = v4_cpu();
  none.active_hwcaps.clear();
  CHECK(lookup_in(c, "libfoo.so.1", none) == "/lib/libfoo.so.1");
  CacheLookupConfig v2_only = v4_cpu();
  v2_only.active_hwcaps = {"x86-64-v2"};
  CHECK(lookup_in(c, "libfoo.so.1", v2_only) == "/h/v2/libfoo.so.1");
  c.entries[0].hwcap = hwcaps_bits(7, 1); // index past the tag-1 array
  CHECK(lookup_in(c, "libfoo.so.1", v2_only) == "/lib/libfoo.so.1");
  c.hwcaps.clear(); // no tag-1 section at all
  CHECK(lookup_in(c, "libfoo.so.1", v4_cpu()) == "/lib/libfoo.so.1");
}

TEST_CASE("lookup: the first plain entry returns the hwcaps candidate, later hwcaps entries are unseen") {
  TestCache c;
  c.hwcaps = x86_hwcaps;
  c.entries = {{"libfoo.so.1", "/h/v2", 0x303, hwcaps_bits(0, 1)},
               {"libfoo.so.1", "/plain"},
               {"libfoo.so.1", "/h/v4-late", 0x303, hwcaps_bits(2, 3)}};
  CHECK(lookup_in(c, "libfoo.so.1", v4_cpu()) == "/h/v2");
  c.entries[0].flags = 0x3; // no candidate before the plain entry: the plain entry wins
  CHECK(lookup_in(c, "libfoo.so.1", v4_cpu()) == "/plain");
}

TEST_CASE("lookup: legacy hwcap entries are skipped from 2.37 on") {
  TestCache c;
  c.hwcaps = x86_hwcaps;
  c.entries = {{"libfoo.so.1", "/lib/x86_64/libfoo.so.1", 0x303, 1ULL << 1},
               {"libfoo.so.1", "/h/v3", 0x303, hwcaps_bits(1, 2)},
               {"libfoo.so.1", "/lib/libfoo.so.1"}};
  CacheLookupConfig g237 = v4_cpu();
  g237.glibc_minor = 37;
  g237.legacy_hwcap_mask = 1ULL << 1; // ignored on 2.37+
  // The skipped legacy entry is not "the first plain entry": the hwcaps entry after it still counts.
  CHECK(lookup_in(c, "libfoo.so.1", g237) == "/h/v3");
  g237.active_hwcaps.clear();
  CHECK(lookup_in(c, "libfoo.so.1", g237) == "/lib/libfoo.so.1");
  CacheLookupConfig g236 = g237;
  g236.glibc_minor = 36;
  CHECK(lookup_in(c, "libfoo.so.1", g236) == "/lib/x86_64/libfoo.so.1");
}

TEST_CASE("lookup: on 2.36 a legacy entry needs its bits enabled and its platform to match") {
  constexpr std::uint64_t x86_64_bit = 1ULL << 1, avx512_bit = 1ULL << 2, haswell = 1ULL << 50, xeon_phi = 1ULL << 51;
  TestCache c;
  c.entries = {{"libfoo.so.1", "/avx512", 0x303, avx512_bit},
               {"libfoo.so.1", "/tls/haswell", 0x303, hwcap_tls_bit | haswell},
               {"libfoo.so.1", "/xeon_phi", 0x303, xeon_phi | x86_64_bit},
               {"libfoo.so.1", "/x86_64", 0x303, x86_64_bit},
               {"libfoo.so.1", "/plain"}};
  CacheLookupConfig cfg;
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/plain"); // nothing enabled, unknown platform
  cfg.legacy_hwcap_mask = x86_64_bit;
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/x86_64"); // avx512 not enabled, platforms differ
  cfg.platform_bits = haswell;
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/tls/haswell"); // the TLS bit is always allowed
  cfg.platform_bits = xeon_phi;
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/xeon_phi");
  cfg.legacy_hwcap_mask = x86_64_bit | avx512_bit;
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/avx512");
}

TEST_CASE("lookup: before 2.33 glibc-hwcaps entries are unknown legacy bits") {
  TestCache c = hwcaps_run();
  CacheLookupConfig g232 = v4_cpu();
  g232.glibc_minor = 32;
  CHECK(lookup_in(c, "libfoo.so.1", g232) == "/lib/libfoo.so.1");
}

TEST_CASE("lookup: up to 2.35 entries needing a newer kernel are skipped") {
  TestCache c;
  c.entries = {{"libfoo.so.1", "/new-kernel", 0x303, 0, 0x060100}, {"libfoo.so.1", "/any-kernel"}};
  CacheLookupConfig cfg;
  cfg.glibc_minor = 35;
  cfg.kernel_version = 0x050a00;
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/any-kernel");
  cfg.kernel_version = 0x060100;
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/new-kernel");
  cfg.kernel_version = 0x050a00;
  cfg.glibc_minor = 36; // the check was removed in 2.36
  CHECK(lookup_in(c, "libfoo.so.1", cfg) == "/new-kernel");
}

TEST_CASE("lookup: out-of-range string offsets are skipped") {
  TestCache c;
  c.entries = {with_raw_value({"libfoo.so.1", "/bad-value"}, 0xfffffff0u), {"libfoo.so.1", "/good"}};
  LdSoCache cache = parse_ok(write_cache(c, Layout::new_only));
  CHECK_FALSE(cache.entries[0].value_in_range);
  CHECK(cache.entries[0].value.empty());
  CHECK(cache_lookup(cache, "libfoo.so.1", {}) == "/good");
  // A value that runs to the end of the file without a NUL is unusable too.
  auto bytes = write_cache(c, Layout::new_only);
  bytes.pop_back(); // the NUL of "/good", the last string
  LdSoCache cut = parse_ok(bytes);
  CHECK_FALSE(cut.entries[1].value_in_range);
  CHECK_FALSE(cache_lookup(cut, "libfoo.so.1", {}));
  // An unusable key where the binary search probes ends the search, as in glibc.
  TestCache k;
  k.entries = {with_raw_key({"libfoo.so.1", "/lib/libfoo.so.1"}, 0x7fffffffu)};
  LdSoCache kc = parse_ok(write_cache(k, Layout::new_only));
  CHECK_FALSE(kc.entries[0].key_in_range);
  CHECK_FALSE(cache_lookup(kc, "libfoo.so.1", {}));
  // In the old format the offsets count from the end of the table.
  TestCache o;
  o.entries = {with_raw_value({"libfoo.so.1", "/bad"}, 0x10000u), {"libfoo.so.1", "/old-good"}};
  CHECK(cache_lookup(parse_ok(write_cache(o, Layout::old_only)), "libfoo.so.1", {}) == "/old-good");
}

// ------------------------------------------------------------ hostile input

TEST_CASE("truncated files: every prefix errors or parses, never crashes") {
  TestCache c = hwcaps_run();
  c.generator = "ldconfig (test)";
  c.entries.push_back({"libbar.so.2", "/lib/libbar.so.2"});
  c.entries = sorted(c.entries);
  for (Layout layout : {Layout::new_only, Layout::compat, Layout::old_only}) {
    CAPTURE(static_cast<int>(layout));
    const auto full = write_cache(c, layout);
    REQUIRE(parse_ld_so_cache(full).ok());
    for (std::size_t n = 0; n < full.size(); ++n) {
      CAPTURE(n);
      std::vector<std::byte> prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)); // own buffer for ASan
      auto r = parse_ld_so_cache(prefix);
      if (!r) {
        CHECK(r.error().code == ErrorCode::corrupt);
        continue;
      }
      // The extension directory lies at the end: a cut new table always breaks it.
      CHECK(layout != Layout::new_only);
      CHECK(r->format == CacheFormat::old_format);
      CHECK(r->entries.size() <= c.entries.size());
      (void)cache_lookup(*r, "libfoo.so.1", v4_cpu());
      (void)cache_lookup(*r, "libbar.so.2", {});
    }
  }
}

TEST_CASE("bad magic is corrupt") {
  CHECK(parse_error({}) == ErrorCode::corrupt);
  TestCache c;
  c.entries = {{"libc.so.6", "/lib/libc.so.6"}};
  auto bytes = write_cache(c, Layout::new_only);
  bytes[19] = std::byte{'0'}; // "glibc-ld.so.cache1.0"
  CHECK(parse_error(bytes) == ErrorCode::corrupt);
  auto old = write_cache(c, Layout::old_only);
  old[0] = std::byte{'L'};
  CHECK(parse_error(old) == ErrorCode::corrupt);
  std::vector<std::byte> header_only(48);
  std::memcpy(header_only.data(), "glibc-ld.so.cache1.1", 20);
  CHECK(parse_error(header_only) == ErrorCode::corrupt); // glibc wants more than the header
}

TEST_CASE("entry counts that do not fit the file are corrupt") {
  TestCache c;
  c.entries = {{"libc.so.6", "/lib/libc.so.6"}, {"libm.so.6", "/lib/libm.so.6"}};
  for (std::uint32_t huge : {0xffffffffu, 0x80000000u, 0x0aaaaaabu}) {
    auto bytes = write_cache(c, Layout::new_only);
    std::memcpy(bytes.data() + 20, &huge, 4);
    CHECK(parse_error(bytes) == ErrorCode::corrupt);
    auto old = write_cache(c, Layout::old_only);
    std::memcpy(old.data() + 12, &huge, 4);
    CHECK(parse_error(old) == ErrorCode::corrupt);
    auto compat = write_cache(c, Layout::compat);
    std::memcpy(compat.data() + 40 + 20, &huge, 4); // the new header's nlibs
    CHECK(parse_error(compat) == ErrorCode::corrupt);
  }
  // The largest count that fits is accepted.
  auto bytes = write_cache(c, Layout::new_only);
  auto fits = static_cast<std::uint32_t>((bytes.size() - 48) / 24);
  std::memcpy(bytes.data() + 20, &fits, 4);
  CHECK(parse_ld_so_cache(bytes).ok());
  std::uint32_t one_more = fits + 1;
  std::memcpy(bytes.data() + 20, &one_more, 4);
  CHECK(parse_error(bytes) == ErrorCode::corrupt);
}

TEST_CASE("broken extension directories are corrupt; a malformed hwcaps section is dropped") {
  TestCache c;
  c.entries = {{"libc.so.6", "/lib/libc.so.6"}};
  c.generator = "gen";
  c.hwcaps = x86_hwcaps;
  const auto good = write_cache(c, Layout::new_only);
  std::uint32_t ext = 0;
  std::memcpy(&ext, good.data() + 32, 4);
  auto with = [&](std::size_t at, std::uint32_t v) {
    auto b = good;
    std::memcpy(b.data() + at, &v, 4);
    return b;
  };
  auto misaligned = parse_ld_so_cache(with(32, ext + 2));
  REQUIRE_FALSE(misaligned.ok()); // refused for its alignment, before the magic is read
  CHECK(misaligned.error().message.find("misaligned") != std::string::npos);
  CHECK(parse_error(with(32, 0xfffffffcu)) == ErrorCode::corrupt);             // past the end
  CHECK(parse_error(with(ext, 0x12345678u)) == ErrorCode::corrupt);            // bad magic
  CHECK(parse_error(with(ext + 4, 0xffffffffu)) == ErrorCode::corrupt);        // huge count
  CHECK(parse_error(with(ext + 8 + 12, 0xffff0000u)) == ErrorCode::corrupt);   // section size past the end
  CHECK(parse_ok(with(ext + 8, 99)).generator.empty());                        // unknown tag: ignored
  CHECK(parse_ok(with(ext + 4, 0)).hwcaps_subdirs.empty());                    // no sections
  CHECK(parse_ok(with(ext + 8 + 16 + 12, 6)).hwcaps_subdirs.empty());          // size not a multiple of 4
  CHECK(parse_ok(with(ext + 8 + 16 + 12, 0)).hwcaps_subdirs.empty());          // empty section
  CHECK(parse_ok(with(32, 0)).generator.empty());                              // no extensions at all
  LdSoCache bad_name = parse_ok(with(good.size() - 4, 0x7ffffff0u));           // last name's offset
  REQUIRE(bad_name.hwcaps_subdirs.size() == 3);
  CHECK(bad_name.hwcaps_subdirs[2].empty());
}

TEST_CASE("the endianness byte: unset or little accepted, big unsupported, invalid corrupt") {
  TestCache c;
  c.entries = {{"libc.so.6", "/lib/libc.so.6"}};
  c.endian = 0;
  CHECK(parse_ld_so_cache(write_cache(c, Layout::new_only)).ok());
  c.endian = 2;
  CHECK(parse_ld_so_cache(write_cache(c, Layout::compat)).ok());
  c.endian = 3;
  CHECK(parse_error(write_cache(c, Layout::new_only)) == ErrorCode::unsupported);
  c.endian = 1;
  CHECK(parse_error(write_cache(c, Layout::compat)) == ErrorCode::corrupt);
  c.endian = 4;
  CHECK(parse_error(write_cache(c, Layout::new_only)) == ErrorCode::corrupt);
}

TEST_CASE("many entries pointing into one unterminated tail are rejected, not scanned forever") {
  Writer w;
  constexpr std::uint32_t n = 20000;
  w.raw("glibc-ld.so.cache1.1");
  w.u32(n);
  for (int i = 0; i < 6; ++i) w.u32(0);
  std::uint32_t tail = 48 + n * 24;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t v : {0x303u, tail + i, tail + i, 0u, 0u, 0u}) w.u32(v);
  }
  w.raw(std::string(200000, 'x')); // no NUL anywhere
  auto r = parse_ld_so_cache(w.bytes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::corrupt);
}

TEST_CASE("hwcaps priorities follow glibc's merge with the sorted active names") {
  std::vector<std::string> active = {"x86-64-v4", "x86-64-v3", "x86-64-v2"};
  CHECK(hwcaps_priorities(x86_hwcaps, active) == std::vector<std::uint32_t>{3, 2, 1});
  CHECK(hwcaps_priorities({"x86-64-v3", "zzz"}, active) == std::vector<std::uint32_t>{2, 0});
  CHECK(hwcaps_priorities({"", "x86-64-v3"}, active) == std::vector<std::uint32_t>{0, 2});
  // ldconfig writes the names sorted; out of order, ld.so's merge loses one.
  CHECK(hwcaps_priorities({"x86-64-v3", "x86-64-v2"}, active) == std::vector<std::uint32_t>{2, 0});
}

// ------------------------------------------------------------ the real machine

namespace {

struct LdconfigLine {
  std::string key;
  std::string description; // inside the parentheses
  std::string path;
};

std::optional<std::vector<LdconfigLine>> ldconfig_p() {
  FILE* pipe = popen("PATH=\"$PATH:/sbin:/usr/sbin\" ldconfig -p 2>/dev/null", "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t got = 0;
  while ((got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), got);
  if (pclose(pipe) != 0) return std::nullopt;
  std::vector<LdconfigLine> lines;
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t eol = out.find('\n', pos);
    std::string line = out.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? out.size() : eol + 1;
    std::size_t open = line.find(" (");
    std::size_t arrow = line.rfind(") => ");
    if (line.empty() || line[0] != '\t' || open == std::string::npos || arrow == std::string::npos) continue;
    lines.push_back({line.substr(1, open - 1), line.substr(open + 2, arrow - open - 2), line.substr(arrow + 5)});
  }
  return lines;
}

} // namespace

TEST_CASE("the real /etc/ld.so.cache agrees with ldconfig -p") {
  auto file = condacuda::sys::map_file("/etc/ld.so.cache");
  if (!file) {
    MESSAGE("skipped: /etc/ld.so.cache is absent");
    return;
  }
  auto listed = ldconfig_p();
  if (!listed || listed->empty()) {
    MESSAGE("skipped: ldconfig -p is not available");
    return;
  }
  auto parsed = parse_ld_so_cache(file->data);
  REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
  // ldconfig -p prints the loader's table in file order: its x86-64 lines are
  // our 0x03xx entries, in the same order.
  std::vector<std::pair<std::string, std::string>> ours, theirs;
  for (const CacheEntry& e : parsed->entries)
    if ((e.flags & 0xff00) == cache_flag_x8664_lib64) ours.emplace_back(e.key, e.value);
  for (const LdconfigLine& l : *listed)
    if (l.description.find("x86-64") != std::string::npos) theirs.emplace_back(l.key, l.path);
  CHECK(theirs.size() > 0);
  CHECK(ours.size() == theirs.size());
  for (std::size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i)
    CHECK_MESSAGE(ours[i] == theirs[i], "ldconfig lists " << theirs[i].first << " => " << theirs[i].second
                                                          << ", we have " << ours[i].first << " => " << ours[i].second);
  auto libc = std::find_if(listed->begin(), listed->end(), [](const LdconfigLine& l) { return l.key == "libc.so.6"; });
  REQUIRE(libc != listed->end());
  CHECK(cache_lookup(*parsed, "libc.so.6", CacheLookupConfig{}) == libc->path);
}
