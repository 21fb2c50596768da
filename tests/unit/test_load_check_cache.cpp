// sys::LoadCheckCache: the load checks a doctor run starts on other threads
// while it simulates (prepare, then prepared() where the model maps a file)
// are the verdicts elf::check_load gives in place, for every file: those the
// simulation asks for, a second name of the same file, and those no one asks
// for, which are still recorded in the cache file.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "elf/elf_constants.hpp"
#include "elf/load_checks.hpp"
#include "loader/config.hpp"
#include "support/fixture.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/load_check_cache.hpp"
#include "sys/mapped_file.hpp"

namespace elf = condacuda::elf;
namespace sys = condacuda::sys;
namespace loader = condacuda::loader;

namespace {

// A copy of `from` at `to` whose DT_RELACOUNT says more relative relocations
// than DT_RELASZ holds: a file that maps and parses, and that ld.so crashes on.
void write_with_relacount_past_relasz(const std::string& from, const std::string& to) {
  std::string bytes = fixture::read_file(from);
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  bool patched = false;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_DYNAMIC) continue;
    for (std::uint64_t at = sh.sh_offset; at + sizeof(Elf64_Dyn) <= sh.sh_offset + sh.sh_size; at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      std::memcpy(&d, bytes.data() + at, sizeof d);
      if (d.d_tag != DT_RELACOUNT) continue;
      d.d_un.d_val = 1u << 20;
      std::memcpy(bytes.data() + at, &d, sizeof d);
      patched = true;
    }
  }
  REQUIRE(patched);
  fixture::write_file(to, bytes);
}

bool same(const elf::LoadCheck& a, const elf::LoadCheck& b) { return a.outcome == b.outcome && a.reason == b.reason; }

} // namespace

TEST_CASE("load checks prepared on other threads are the verdicts computed in place, asked for or not") {
  fixture::TempDir dir("prepared-checks");
  std::vector<std::string> paths;
  for (int i = 0; i < 6; ++i) {
    std::string source;
    for (int f = 0; f <= i * 40; ++f) // sizes apart: the largest is taken first
      source += "static int v" + std::to_string(f) + " = " + std::to_string(f) + ";\nint *p" + std::to_string(f) +
                "(void) { return &v" + std::to_string(f) + "; }\n";
    paths.push_back(dir / ("libp" + std::to_string(i) + ".so"));
    fixture::shared_library(paths.back(), source, {"-Wl,-z,combreloc"});
  }
  paths.push_back(dir / "libcrash.so");
  write_with_relacount_past_relasz(paths[5], paths.back());
  std::filesystem::create_symlink("libp3.so", dir / "libalias.so"); // a second name of one file
  const std::string alias = dir / "libalias.so";

  // The verdicts in place, as the model computes them without a cache.
  std::vector<elf::LoadCheck> expected;
  {
    sys::DiskFileView view(elf::em_x86_64);
    for (const auto& p : paths) {
      const auto& f = view.open_verify(p);
      REQUIRE(f.elf);
      expected.push_back(elf::check_load(f.elf->bytes().data, elf::em_x86_64));
    }
  }
  CHECK(expected.back().outcome == elf::LoadCheck::Outcome::crashes);
  CHECK(expected.back().reason.find("DT_RELACOUNT") != std::string::npos);
  for (std::size_t i = 0; i + 1 < expected.size(); ++i) CHECK(expected[i].ok());

  std::this_thread::sleep_for(std::chrono::milliseconds(1100)); // only files settled for a second are cached
  const loader::LoaderConfig config;
  const std::string cache_file = dir / "load-checks";
  {
    sys::DiskFileView view(elf::em_x86_64);
    sys::LoadCheckCache checks(cache_file, config);
    std::vector<std::string> warnings;
    checks.load(warnings);
    view.use_load_checks(&checks);
    checks.prepare(view, paths);
    // The simulation asks for three, the crashing one among them, and for the
    // second name: the same file's check, whichever thread made it.
    for (std::size_t i : {std::size_t{6}, std::size_t{0}, std::size_t{3}}) {
      auto got = view.prepared_load_check(view.open_verify(paths[i]));
      REQUIRE(got);
      CHECK(same(*got, expected[i]));
    }
    auto by_alias = view.prepared_load_check(view.open_verify(alias));
    REQUIRE(by_alias);
    CHECK(same(*by_alias, expected[3]));
    // A file prepare() was not given: none prepared, the model computes it.
    fixture::shared_library(dir / "libother.so", "int other(void) { return 0; }\n");
    CHECK_FALSE(view.prepared_load_check(view.open_verify(dir / "libother.so")));
    view.use_load_checks(nullptr);
    checks.save(view, warnings);
    CHECK(warnings.empty());
  }
  // Every prepared file is in the cache file, those no one asked for too.
  sys::DiskFileView view(elf::em_x86_64);
  sys::LoadCheckCache checks(cache_file, config);
  std::vector<std::string> warnings;
  checks.load(warnings);
  view.use_load_checks(&checks);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto& f = view.open_verify(paths[i]);
    REQUIRE_MESSAGE(f.load, paths[i]);
    CHECK(same(*f.load, expected[i]));
  }
}

TEST_CASE("a load-check cache dropped while its threads still check: they finish, nothing is written") {
  fixture::TempDir dir("prepared-dropped");
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i) {
    paths.push_back(dir / ("libd" + std::to_string(i) + ".so"));
    fixture::shared_library(paths.back(), "int d" + std::to_string(i) + "(void) { return 0; }\n");
  }
  const std::string cache_file = dir / "load-checks";
  {
    sys::DiskFileView view(elf::em_x86_64);
    sys::LoadCheckCache checks(cache_file, loader::LoaderConfig{});
    view.use_load_checks(&checks);
    checks.prepare(view, paths);
    view.use_load_checks(nullptr);
  } // the destructor waits for the threads: no use of the view or the tasks after it
  CHECK_FALSE(std::filesystem::exists(cache_file));
}

TEST_CASE("load checks started as the scan parses each file: the model's verdicts, no task for a file the cache knows") {
  fixture::TempDir dir("started-checks");
  std::vector<std::string> paths;
  for (int i = 0; i < 3; ++i) {
    paths.push_back(dir / ("libs" + std::to_string(i) + ".so"));
    fixture::shared_library(paths.back(), "int s" + std::to_string(i) + "(void) { return " + std::to_string(i) + "; }\n",
                            {"-Wl,-z,combreloc"});
  }
  paths.push_back(dir / "libcrash.so");
  write_with_relacount_past_relasz(paths[2], paths.back());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100)); // only files settled for a second are cached
  // What the env scan hands on: each file mapped and parsed without symbols.
  auto scanned = [](const std::string& path) {
    auto opened = sys::map_file_open(path);
    REQUIRE(opened);
    auto parsed = elf::ElfObject::parse(opened->bytes, false);
    REQUIRE(parsed);
    return *parsed;
  };
  const loader::LoaderConfig config;
  const std::string cache_file = dir / "load-checks";
  std::vector<std::string> warnings;
  {
    sys::DiskFileView view(elf::em_x86_64);
    sys::LoadCheckCache checks(cache_file, config);
    checks.load(warnings);
    std::vector<std::shared_ptr<const elf::ElfObject>> objects;
    for (const auto& p : paths) {
      objects.push_back(scanned(p));
      view.adopt(p, objects.back());
      checks.start(p, objects.back());
    }
    view.use_load_checks(&checks);
    checks.prepare(view, paths); // the view's objects share the scan's maps: nothing is started twice
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const auto& f = view.open_verify(paths[i]);
      REQUIRE(f.elf);
      CHECK(&f.elf->bytes().data.front() == &objects[i]->bytes().data.front());
      auto got = view.prepared_load_check(f);
      REQUIRE(got);
      CHECK(same(*got, elf::check_load(f.elf->bytes().data, elf::em_x86_64)));
      auto by_scan = checks.prepared(*objects[i]);
      REQUIRE(by_scan);
      CHECK(same(*by_scan, *got));
    }
    CHECK(view.prepared_load_check(view.open_verify(paths.back()))->outcome == elf::LoadCheck::Outcome::crashes);
    view.use_load_checks(nullptr);
    checks.save(view, warnings);
  }
  CHECK(warnings.empty());
  // The next run: unchanged files are not checked again; a changed one is.
  fixture::shared_library(paths[0], "int s0(void) { return 10; }\nint t0(void) { return 0; }\n", {"-Wl,-z,combreloc"});
  sys::LoadCheckCache checks(cache_file, config);
  checks.load(warnings);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto object = scanned(paths[i]);
    checks.start(paths[i], object);
    CAPTURE(paths[i]);
    CHECK(checks.prepared(*object).has_value() == (i == 0));
  }
}
