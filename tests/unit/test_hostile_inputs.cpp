// Hostile input beyond the ELF tables (tests/unit/test_elf_reader.cpp):
// /etc/ld.so.cache files past tests/unit/test_ld_so_cache.cpp (seeded
// corruption of this machine's real cache, crafted damage to the extension
// directory, the hwcaps section and the string offsets), and the system
// layer meeting paths that are not regular files (a directory, a FIFO, a
// symlink loop) in map_file, DiskFileView and scan_env. The contract: an
// error value naming the file and the problem, never a crash, a hang or work
// beyond linear in the file size.
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "elf/elf_constants.hpp"
#include "elf/elf_object.hpp"
#include "elf/load_checks.hpp"
#include "loader/ld_so_cache.hpp"
#include "support/fixture.hpp"
#include "sys/env_scan.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/mapped_file.hpp"

using namespace condacuda::loader;
using condacuda::ErrorCode;
using condacuda::elf::ElfObject;
namespace elf = condacuda::elf;
namespace sys = condacuda::sys;

namespace {

using Bytes = std::vector<std::byte>;

template <class T>
void put(Bytes& b, std::size_t at, T v) {
  REQUIRE(at + sizeof(T) <= b.size());
  std::memcpy(b.data() + at, &v, sizeof(T));
}

template <class T>
T get(const Bytes& b, std::size_t at) {
  REQUIRE(at + sizeof(T) <= b.size());
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

void append(Bytes& b, const void* p, std::size_t n) {
  const auto* c = static_cast<const std::byte*>(p);
  b.insert(b.end(), c, c + n);
}
template <class T>
void append(Bytes& b, T v) {
  append(b, &v, sizeof v);
}

// A new-format cache: header, entries, strings, then an extension directory
// with a generator and a hwcaps section (the layout ldconfig 2.32+ writes).
struct Small {
  Bytes bytes;
  std::size_t ext = 0;     // extension directory offset
  std::size_t gen = 0;     // generator section offset
  std::size_t hwcaps = 0;  // hwcaps section offset (u32 name offsets)
};

Small small_cache() {
  struct E {
    const char* key;
    const char* value;
    std::uint64_t hwcap;
  };
  const E entries[] = {{"libz.so.1", "/lib/libz.so.1", 0},
                       {"libdep.so.1", "/opt/glibc-hwcaps/x86-64-v3/libdep.so.1", (1ull << 62) | (3ull << 32) | 1},
                       {"libdep.so.1", "/opt/libdep.so.1", 0},
                       {"libc.so.6", "/lib/libc.so.6", 0}};
  const char* names[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4"};
  std::string strings;
  auto str = [&](const char* s) {
    auto at = static_cast<std::uint32_t>(48 + 24 * std::size(entries) + strings.size());
    strings += s;
    strings += '\0';
    return at;
  };
  Bytes table;
  for (const auto& e : entries) {
    append(table, std::int32_t{0x303});
    append(table, str(e.key));
    append(table, str(e.value));
    append(table, std::uint32_t{0});
    append(table, e.hwcap);
  }
  std::vector<std::uint32_t> name_offsets;
  for (const char* n : names) name_offsets.push_back(str(n));
  Small s;
  Bytes& b = s.bytes;
  append(b, "glibc-ld.so.cache1.1", 20);
  append(b, static_cast<std::uint32_t>(std::size(entries)));
  append(b, static_cast<std::uint32_t>(strings.size()));
  append(b, std::uint32_t{2}); // endianness little, padding
  append(b, std::uint32_t{0}); // extension offset, set below
  for (int i = 0; i < 3; ++i) append(b, std::uint32_t{0});
  b.insert(b.end(), table.begin(), table.end());
  append(b, strings.data(), strings.size());
  while (b.size() % 4) b.push_back(std::byte{0});
  s.ext = b.size();
  put(b, 32, static_cast<std::uint32_t>(s.ext));
  const std::string generator = "test generator";
  s.gen = s.ext + 8 + 32;
  s.hwcaps = s.gen + 16;
  append(b, std::uint32_t{0xEAA42174});
  append(b, std::uint32_t{2});
  for (std::uint32_t v : {0u, 0u, static_cast<std::uint32_t>(s.gen), static_cast<std::uint32_t>(generator.size() + 1)})
    append(b, v);
  for (std::uint32_t v : {1u, 0u, static_cast<std::uint32_t>(s.hwcaps), static_cast<std::uint32_t>(4 * std::size(names))})
    append(b, v);
  append(b, generator.c_str(), generator.size() + 1);
  while (b.size() < s.hwcaps) b.push_back(std::byte{0});
  for (auto o : name_offsets) append(b, o);
  return s;
}

CacheLookupConfig v3_cpu() {
  CacheLookupConfig c;
  c.glibc_minor = 37;
  c.active_hwcaps = {"x86-64-v3", "x86-64-v2"};
  c.isa_level_mask = 0xf;
  return c;
}

// Parses and, when it parses, looks up every key under several glibc behaviours.
bool parse_and_use(const Bytes& input) {
  Bytes copy(input); // exact-size block for ASan
  auto r = parse_ld_so_cache(copy);
  if (!r) {
    CHECK_FALSE(r.error().message.empty());
    CHECK((r.error().code == ErrorCode::corrupt || r.error().code == ErrorCode::unsupported));
    return false;
  }
  CacheLookupConfig legacy;
  legacy.glibc_minor = 31;
  legacy.legacy_hwcap_mask = ~0ull;
  legacy.kernel_version = 0x050a00;
  std::size_t n = 0;
  for (const auto& e : r->entries) {
    if (++n > 64) break;
    for (const auto& config : {CacheLookupConfig{}, v3_cpu(), legacy}) (void)cache_lookup(*r, e.key, config);
  }
  (void)cache_lookup(*r, "libnothing.so.9", {});
  (void)hwcaps_priorities(r->hwcaps_subdirs, v3_cpu().active_hwcaps);
  return true;
}

} // namespace

TEST_CASE("ld.so.cache: the crafted small cache parses and looks up as glibc does") {
  Small s = small_cache();
  auto r = parse_ld_so_cache(s.bytes);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->generator == "test generator");
  CHECK(r->hwcaps_subdirs == std::vector<std::string>{"x86-64-v2", "x86-64-v3", "x86-64-v4"});
  CHECK(cache_lookup(*r, "libdep.so.1", v3_cpu()) == "/opt/glibc-hwcaps/x86-64-v3/libdep.so.1");
  CHECK(cache_lookup(*r, "libdep.so.1", {}) == "/opt/libdep.so.1"); // no active hwcaps
  CHECK(cache_lookup(*r, "libz.so.1", {}) == "/lib/libz.so.1");
}

TEST_CASE("ld.so.cache: crafted damage to extensions, hwcaps and string offsets") {
  const Small s = small_cache();
  auto damaged = [&](auto&& f) {
    Bytes b = s.bytes;
    f(b);
    return b;
  };
  SUBCASE("every hwcaps name offset points at an unterminated tail") {
    Bytes b = damaged([&](Bytes& x) {
      std::size_t tail = x.size();
      x.insert(x.end(), 4096, std::byte{'A'});
      for (std::size_t i = 0; i < 3; ++i) put<std::uint32_t>(x, s.hwcaps + 4 * i, static_cast<std::uint32_t>(tail));
    });
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CHECK(r->hwcaps_subdirs == std::vector<std::string>{"", "", ""});
    CHECK(cache_lookup(*r, "libdep.so.1", v3_cpu()) == "/opt/libdep.so.1"); // the hwcaps entry is unusable
  }
  SUBCASE("hwcaps name offsets past the end") {
    Bytes b = damaged([&](Bytes& x) { put<std::uint32_t>(x, s.hwcaps + 4, 0xffffffffu); });
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CHECK(r->hwcaps_subdirs[1].empty());
  }
  SUBCASE("a generator with no NUL, at the very end of the file") {
    Bytes b = damaged([&](Bytes& x) {
      x.resize(s.hwcaps); // drop the hwcaps section
      put<std::uint32_t>(x, s.ext + 4, 1);
      put<std::uint32_t>(x, s.ext + 8 + 12, static_cast<std::uint32_t>(x.size() - s.gen));
      for (std::size_t i = s.gen; i < x.size(); ++i) x[i] = std::byte{'g'};
    });
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CHECK(r->generator == std::string(b.size() - s.gen, 'g'));
  }
  SUBCASE("extension directory with zero sections, ending exactly at the end of the file") {
    Bytes b = damaged([&](Bytes& x) {
      x.resize(s.ext + 8);
      put<std::uint32_t>(x, s.ext + 4, 0);
    });
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CHECK(r->hwcaps_subdirs.empty());
  }
  SUBCASE("extension directory cut in half") {
    Bytes b = damaged([&](Bytes& x) { x.resize(s.ext + 4); });
    CHECK_FALSE(parse_ld_so_cache(b).ok());
  }
  SUBCASE("extension section offset + size would wrap 32 bits") {
    Bytes b = damaged([&](Bytes& x) {
      put<std::uint32_t>(x, s.ext + 8 + 8, 0xfffffff0u);
      put<std::uint32_t>(x, s.ext + 8 + 12, 0x20u);
    });
    auto r = parse_ld_so_cache(b);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("past the end") != std::string::npos);
  }
  SUBCASE("extension count so large the table wraps 32 bits") {
    Bytes b = damaged([&](Bytes& x) { put<std::uint32_t>(x, s.ext + 4, 0x10000001u); });
    CHECK_FALSE(parse_ld_so_cache(b).ok());
  }
  SUBCASE("no entries at all") {
    Bytes b = damaged([&](Bytes& x) { put<std::uint32_t>(x, 20, 0); });
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CHECK(r->entries.empty());
    CHECK_FALSE(cache_lookup(*r, "libc.so.6", {}));
  }
  SUBCASE("every string offset all ones") {
    Bytes b = damaged([&](Bytes& x) {
      for (std::size_t i = 0; i < 4; ++i) {
        put<std::uint32_t>(x, 48 + 24 * i + 4, 0xffffffffu);
        put<std::uint32_t>(x, 48 + 24 * i + 8, 0xffffffffu);
      }
    });
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    for (const auto& e : r->entries) CHECK_FALSE((e.key_in_range || e.value_in_range));
    CHECK_FALSE(cache_lookup(*r, "libc.so.6", {}));
  }
  SUBCASE("hwcaps subdirectory index and ISA level out of range") {
    Bytes b = damaged([&](Bytes& x) { put<std::uint64_t>(x, 48 + 24 + 16, (1ull << 62) | (0x3ffull << 32) | 0xffffffffu); });
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CacheLookupConfig all = v3_cpu();
    all.isa_level_mask = 0xffffffffu;
    CHECK(cache_lookup(*r, "libdep.so.1", all) == "/opt/libdep.so.1");
  }
  SUBCASE("a long run of equal keys is scanned, not searched forever") {
    Bytes b;
    constexpr std::uint32_t n = 20000;
    append(b, "glibc-ld.so.cache1.1", 20);
    append(b, n);
    for (int i = 0; i < 6; ++i) append(b, std::uint32_t{0});
    std::uint32_t key = 48 + n * 24, value = key + 10;
    for (std::uint32_t i = 0; i < n; ++i) {
      append(b, std::int32_t{i + 1 == n ? 0x303 : 0x3}); // only the last entry is usable
      append(b, key);
      append(b, value);
      append(b, std::uint32_t{0});
      append(b, std::uint64_t{0});
    }
    append(b, "libc.so.6\0/lib/c.so\0", 20);
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CHECK(cache_lookup(*r, "libc.so.6", {}) == "/lib/c.so");
  }
  SUBCASE("compat: an old table whose new header would start at the end of the file") {
    Bytes b;
    append(b, "ld.so-1.7.0\0", 12);
    append(b, std::uint32_t{1});
    append(b, std::int32_t{0x303});
    append(b, std::uint32_t{0});
    append(b, std::uint32_t{10});
    append(b, "libc.so.6\0/lib/c.so\0", 20); // end of table at 28, strings to 48: no room for a new header
    auto r = parse_ld_so_cache(b);
    REQUIRE(r.ok());
    CHECK(r->format == CacheFormat::old_format);
    CHECK(cache_lookup(*r, "libc.so.6", {}) == "/lib/c.so");
    put<std::uint32_t>(b, 20, 0xfffffff0u); // an old-format key offset that runs off the end
    auto bad = parse_ld_so_cache(b);
    REQUIRE(bad.ok());
    CHECK_FALSE(bad->entries[0].key_in_range);
  }
}

TEST_CASE("ld.so.cache: seeded random corruption of the small cache and the real /etc/ld.so.cache") {
  std::vector<std::pair<std::string, Bytes>> inputs = {{"small", small_cache().bytes}};
  auto real = condacuda::sys::map_file("/etc/ld.so.cache");
  if (real && !real->data.empty()) inputs.emplace_back("/etc/ld.so.cache", Bytes(real->data.begin(), real->data.end()));
  else MESSAGE("no /etc/ld.so.cache here: only the small cache is corrupted");
  for (const auto& [name, good] : inputs) {
    CAPTURE(name);
    REQUIRE(parse_ld_so_cache(good).ok());
    std::mt19937_64 rng(0x1d50cac4eu);
    const std::uint64_t size = good.size();
    const std::uint64_t interesting[] = {0, 1, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, size, size - 1, size + 4, ~0ull};
    // Where it matters: the header, the first entries, the extension directory.
    std::size_t ext = get<std::uint32_t>(good, 32);
    std::size_t hot_begin = ext < size ? ext : 0;
    std::size_t parses = 0, errors = 0;
    const int rounds = name == "small" ? 2000 : 600;
    for (int round = 0; round < rounds; ++round) {
      CAPTURE(round);
      Bytes b = good;
      for (int e = 0, edits = 1 + static_cast<int>(rng() % 3); e < edits; ++e) {
        std::size_t at = 0;
        switch (round % 3) {
        case 0: at = static_cast<std::size_t>(rng() % size); break;
        case 1: at = static_cast<std::size_t>(rng() % std::min<std::uint64_t>(size, 48 + 24 * 8)); break;
        default: at = hot_begin + static_cast<std::size_t>(rng() % (size - hot_begin)); break;
        }
        if (rng() % 2) b[at] = std::byte{static_cast<unsigned char>(rng())};
        else if (at + 4 <= size) put<std::uint32_t>(b, at & ~std::size_t{3}, static_cast<std::uint32_t>(interesting[rng() % std::size(interesting)]));
      }
      (parse_and_use(b) ? parses : errors)++;
    }
    MESSAGE(name << ": " << rounds << " corruptions, " << errors << " errors, " << parses << " parses");
    CHECK(parses > 0);
    CHECK(errors > 0);
  }
}

// ============================================================ the system layer: files that are not files

namespace {

// Runs `f` on a thread. If it has not returned within a generous time, it is
// blocked (in open() on a FIFO, say): open the FIFO's write end so it can
// return, and report the hang instead of hanging the test run.
template <class F>
bool returns_without_blocking(const std::string& fifo, F f) {
  auto done = std::async(std::launch::async, f);
  if (done.wait_for(std::chrono::seconds(20)) == std::future_status::ready) {
    done.get();
    return true;
  }
  while (done.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC); // succeeds once a reader waits
    if (fd >= 0) ::close(fd);
  }
  done.get();
  return false;
}

} // namespace

TEST_CASE("map_file: a directory, an empty file, a FIFO, a symlink loop, an unreadable file") {
  fixture::TempDir dir("map-file");
  SUBCASE("a directory is an error naming it") {
    auto r = sys::map_file(dir.path());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().path == dir.path());
    CHECK(r.error().message.find("Is a directory") != std::string::npos);
  }
  SUBCASE("an empty file maps to no bytes, and then is too short") {
    fixture::write_file(dir / "libempty.so", "");
    auto r = sys::map_file(dir / "libempty.so");
    REQUIRE(r.ok());
    CHECK(r->data.empty());
    CHECK(elf::verify_header(r->data, elf::em_x86_64).fatal_reason == "file too short");
    auto parsed = ElfObject::parse(*r, true);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().message.find("too short") != std::string::npos);
  }
  SUBCASE("a FIFO is an error, not a wait for a writer") {
    std::string fifo = dir / "libnvJitLink.so.12";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    std::optional<condacuda::Error> error;
    bool prompt = returns_without_blocking(fifo, [&] {
      auto r = sys::map_file(fifo);
      if (!r) error = r.error();
    });
    CHECK_MESSAGE(prompt, "map_file blocked on a FIFO");
    REQUIRE(error);
    CHECK(error->path == fifo);
    CHECK(!error->message.empty());
    // The loader model's view of the same path.
    sys::DiskFileView view(elf::em_x86_64);
    bool view_prompt = returns_without_blocking(fifo, [&] {
      const auto& p = view.open_verify(fifo);
      CHECK_FALSE((p.opened() && !p.is_directory && p.elf));
    });
    CHECK_MESSAGE(view_prompt, "DiskFileView::open_verify blocked on a FIFO");
  }
  SUBCASE("a symlink loop is an error naming it") {
    std::string link = dir / "libcufft.so.11";
    std::filesystem::create_symlink("libcufft.so.11", link);
    auto r = sys::map_file(link);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().path == link);
    CHECK(r.error().message.find("symbolic links") != std::string::npos);
  }
  SUBCASE("a file without read permission is an error (as non-root)") {
    if (::geteuid() == 0) {
      MESSAGE("skipped: root reads any file");
      return;
    }
    std::string path = dir / "libsecret.so";
    fixture::write_file(path, "\x7f" "ELF");
    REQUIRE(::chmod(path.c_str(), 0) == 0);
    int err = 0;
    auto r = sys::map_file(path, &err);
    REQUIRE_FALSE(r.ok());
    CHECK(err == EACCES);
    CHECK(r.error().path == path);
  }
}

TEST_CASE("the pread sources: a map's own descriptor, and its file opened again only while the path leads to it") {
  fixture::TempDir dir("copies");
  const std::string path = dir / "libcopied.so", other = dir / "libother.so";
  fixture::write_file(path, "0123456789abcdef");
  fixture::write_file(other, "ABCDEFGHIJKLMNOP");
  auto opened = sys::map_file_open(path);
  REQUIRE(opened.ok());
  REQUIRE(opened->fd.valid());
  std::byte out[6];
  const sys::DescriptorCopies own(opened->fd.get());
  REQUIRE(own.copy(10, out));
  CHECK(std::memcmp(out, "abcdef", 6) == 0);
  CHECK_FALSE(own.copy(11, out)); // one byte past the end: not all of it
  {
    const sys::ReopenedCopies reopened(path, opened->bytes);
    REQUIRE(reopened.copy(0, out));
    CHECK(std::memcmp(out, "012345", 6) == 0);
  }
  // Another file renamed over the path (same size): not the file mapped, no copy.
  REQUIRE(std::rename(other.c_str(), path.c_str()) == 0);
  const sys::ReopenedCopies replaced(path, opened->bytes);
  CHECK_FALSE(replaced.copy(0, out));
  // The map's own descriptor still reads the file mapped.
  REQUIRE(own.copy(0, out));
  CHECK(std::memcmp(out, "012345", 6) == 0);
  // Bytes that are no map of a file are never reopened.
  const elf::FileBytes memory = elf::bytes_from_string("0123456789abcdef");
  CHECK_FALSE(sys::ReopenedCopies(path, memory).copy(0, out));
}

TEST_CASE("a file replaced after the scan mapped it: described by the bytes read, never cached under the new file's key") {
  fixture::TempDir dir("replaced");
  fixture::shared_library(dir / "a.so", "int a(void) { return 1; }\n", {"-Wl,-soname,libcufft.so.11"});
  fixture::shared_library(dir / "b.so", "int b(void) { return 2; }\nint c(void) { return 3; }\n", {"-Wl,-soname,libcufft.so.11"});
  const std::string path = dir / "libcufft.so.11";
  std::filesystem::copy_file(dir / "a.so", path);
  auto bytes = sys::map_file(path);
  REQUIRE(bytes.ok());
  struct stat first {};
  REQUIRE(::stat(path.c_str(), &first) == 0);
  CHECK(bytes->source.dev == static_cast<std::uint64_t>(first.st_dev)); // the map knows its file
  CHECK(bytes->source.ino == static_cast<std::uint64_t>(first.st_ino));
  auto scanned = ElfObject::parse(*bytes, false);
  REQUIRE(scanned.ok());
  std::filesystem::rename(dir / "b.so", path); // another inode under the same name
  struct stat second {};
  REQUIRE(::stat(path.c_str(), &second) == 0);
  REQUIRE(second.st_ino != first.st_ino);

  sys::DiskFileView view(elf::em_x86_64);
  view.adopt(path, *scanned);
  const auto& opened = view.open_verify(path);
  REQUIRE(opened.elf);
  CHECK(opened.elf->bytes().data.data() == bytes->data.data()); // the scan's bytes, not mapped again
  CHECK(opened.ino == static_cast<std::uint64_t>(first.st_ino)); // named by the file they came from
  opened.load = elf::check_load(opened.elf->bytes().data, elf::em_x86_64);
  int kept = 0;
  view.each_load_check([&](const std::string&, const sys::FileKey&, const elf::LoadCheck&) { ++kept; });
  CHECK(kept == 0); // its check would be stored under the new file's stat key: it is not

  sys::DiskFileView fresh(elf::em_x86_64); // no adopted bytes: a map of the file as it is now
  const auto& now = fresh.open_verify(path);
  REQUIRE(now.elf);
  CHECK(now.ino == static_cast<std::uint64_t>(second.st_ino));
  now.load = elf::check_load(now.elf->bytes().data, elf::em_x86_64);
  fresh.each_load_check([&](const std::string&, const sys::FileKey&, const elf::LoadCheck&) { ++kept; });
  CHECK(kept == 1);
}

TEST_CASE("scan_env over hostile files named like CUDA libraries terminates and names each problem") {
  fixture::TempDir dir("hostile-env");
  std::string env = dir / "env";
  fixture::make_dirs(env + "/conda-meta");
  fixture::write_file(env + "/conda-meta/history", "");
  fixture::make_dirs(env + "/lib");
  fixture::shared_library(dir / "libcublas.so.12", "int cublasCreate_v2(void) { return 0; }\n",
                          {"-Wl,-soname,libcublas.so.12"});
  fixture::write_file(env + "/lib/libcublas.so.12", fixture::read_file(dir / "libcublas.so.12").substr(0, 700));
  std::mt19937_64 rng(12);
  std::string noise(4096, '\0');
  for (auto& c : noise) c = static_cast<char>(rng());
  noise[0] = '\x7f', noise[1] = 'E', noise[2] = 'L', noise[3] = 'F'; // past the magic check,
  noise[4] = 2, noise[5] = 1;                                          // 64-bit little-endian, then noise
  fixture::write_file(env + "/lib/libcusparse.so.12", noise);
  fixture::make_dirs(env + "/lib/libcudart.so.12");
  std::string fifo = env + "/lib/libnvJitLink.so.12";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  std::filesystem::create_symlink("libcufft.so.11", env + "/lib/libcufft.so.11");

  std::optional<condacuda::inventory::EnvSnapshot> snapshot;
  bool prompt = returns_without_blocking(fifo, [&] {
    auto s = sys::scan_env(env);
    REQUIRE(s.ok());
    snapshot = std::move(*s);
  });
  CHECK_MESSAGE(prompt, "scan_env blocked on a FIFO");
  REQUIRE(snapshot);
  std::map<std::string, const condacuda::inventory::ScannedFile*> by_path;
  for (const auto& f : snapshot->shared_objects) by_path[f.path] = &f;
  REQUIRE(by_path.count("lib/libcublas.so.12"));
  CHECK_FALSE(by_path["lib/libcublas.so.12"]->elf);
  CHECK(by_path["lib/libcublas.so.12"]->elf_error.find("extends past the end") != std::string::npos);
  REQUIRE(by_path.count("lib/libcusparse.so.12"));
  CHECK_FALSE(by_path["lib/libcusparse.so.12"]->elf);
  CHECK_FALSE(by_path["lib/libcusparse.so.12"]->elf_error.empty());
  REQUIRE(by_path.count("lib/libnvJitLink.so.12"));
  CHECK_FALSE(by_path["lib/libnvJitLink.so.12"]->elf);
  CHECK_FALSE(by_path["lib/libnvJitLink.so.12"]->elf_error.empty());
  CHECK_FALSE(by_path.count("lib/libcudart.so.12")); // a directory is not a library
  // Each problem is a warning that names the file (info prints them).
  auto warned = [&](const std::string& text) {
    return std::any_of(snapshot->warnings.begin(), snapshot->warnings.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  CHECK(warned("lib/libcublas.so.12: not a usable ELF file: "));
  CHECK(warned("lib/libcusparse.so.12: not a usable ELF file: "));
  CHECK(warned("lib/libnvJitLink.so.12: cannot read: not a regular file (a FIFO)"));
  CHECK(warned("lib/libcufft.so.11: symbolic link loop"));
  CHECK(snapshot->warnings.size() == 4);
}
