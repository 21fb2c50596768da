// One test per rule of docs/loader-model.md §9, each comparing the simulator with the
// real ld.so (the dlopen probe, or running a program) on fixtures compiled
// here from small C sources.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <unistd.h>

#include "elf/elf_object.hpp"

#include "loader/path_list.hpp"
#include "sys/disk_file_view.hpp"
#include "support/fixture.hpp"
#include "support/oracle.hpp"

using fixture::TempDir;
using oracle::Options;
using oracle::Step;

namespace {
const char* const provide_c2 = "int c2(void) { return 2; }\n";
const char* const provide_b = "int c2(void);\nint b(void) { return c2() + 1; }\n";
const char* const provide_root = "int b(void);\nint root(void) { return b(); }\n";

void same(const std::vector<Step>& steps, const Options& options = {}) {
  auto real = oracle::real(steps, options);
  auto sim = oracle::simulated(steps, options);
  CHECK(sim == real);
}

// mid/libccb.so -> deep/libccc2.so; roots with RPATH or RUNPATH "mid:deep".
void build_e1(const TempDir& t) {
  fixture::make_dirs(t / "deep");
  fixture::make_dirs(t / "mid");
  fixture::shared_library(t / "deep/libccc2.so", provide_c2);
  fixture::shared_library(t / "mid/libccb.so", provide_b, {"-L" + t / "deep", "-lccc2"});
  std::string paths = t / "mid" + ":" + t / "deep";
  fixture::shared_library(t / "root_rpath.so", provide_root,
                          {"-L" + t / "mid", "-lccb", "-Wl,--disable-new-dtags,-rpath," + paths});
  fixture::shared_library(t / "root_runpath.so", provide_root,
                          {"-L" + t / "mid", "-lccb", "-Wl,--enable-new-dtags,-rpath," + paths});
}
} // namespace

TEST_CASE("rule 1: RPATH reaches grandchildren, RUNPATH does not (E1)") {
  TempDir t("rule1");
  build_e1(t);
  same({{t / "root_rpath.so"}});
  same({{t / "root_runpath.so"}});
  auto sim = oracle::simulated({{t / "root_runpath.so"}});
  CHECK_FALSE(sim.ok);
  CHECK(sim.error == "libccc2.so: cannot open shared object file: No such file or directory");
  // The same through program start-up.
  std::string paths = t / "mid" + ":" + t / "deep";
  fixture::executable(t / "main_rpath", "int b(void);\nint main(void) { return b() == 3 ? 0 : 1; }\n",
                      {"-L" + t / "mid", "-lccb", "-Wl,--disable-new-dtags,-rpath," + paths});
  fixture::executable(t / "main_runpath", "int b(void);\nint main(void) { return b() == 3 ? 0 : 1; }\n",
                      {"-L" + t / "mid", "-lccb", "-Wl,--enable-new-dtags,-rpath," + paths});
  CHECK(oracle::simulated_start(t / "main_rpath") == oracle::real_start(t / "main_rpath"));
  auto real = oracle::real_start(t / "main_runpath");
  CHECK(real.status == 127);
  CHECK(oracle::simulated_start(t / "main_runpath") == real);
}

TEST_CASE("rule 2: a RUNPATH on the requester disables the whole RPATH chain (E1b)") {
  TempDir t("rule2");
  fixture::make_dirs(t / "deep");
  fixture::make_dirs(t / "mid");
  fixture::shared_library(t / "deep/libccc2.so", provide_c2);
  std::string paths = t / "mid" + ":" + t / "deep";
  // libccb with RUNPATH /nonexistent: its request for libccc2 ignores the root's RPATH.
  fixture::shared_library(t / "mid/libccb.so", provide_b,
                          {"-L" + t / "deep", "-lccc2", "-Wl,--enable-new-dtags,-rpath,/nonexistent"});
  fixture::shared_library(t / "root.so", provide_root,
                          {"-L" + t / "mid", "-lccb", "-Wl,--disable-new-dtags,-rpath," + paths});
  same({{t / "root.so"}});
  CHECK_FALSE(oracle::simulated({{t / "root.so"}}).ok);
  // With RPATH /nonexistent instead, the chain is used and it loads.
  fixture::shared_library(t / "mid/libccb.so", provide_b,
                          {"-L" + t / "deep", "-lccc2", "-Wl,--disable-new-dtags,-rpath,/nonexistent"});
  same({{t / "root.so"}});
  CHECK(oracle::simulated({{t / "root.so"}}).ok);
}

namespace {
// A/libccv.so and B/libccv.so; roots needing libccv.so with RPATH or RUNPATH A.
void build_e2(const TempDir& t) {
  for (const char* d : {"A", "B"}) {
    fixture::make_dirs(t / d);
    fixture::shared_library(t / d + "/libccv.so",
                            std::string("const char* which(void) { return \"") + d + "\"; }\n");
  }
  std::string src = "const char* which(void);\nint root(void) { return which()[0]; }\n";
  fixture::shared_library(t / "root_rpath.so", src, {"-L" + t / "A", "-lccv", "-Wl,--disable-new-dtags,-rpath," + t / "A"});
  fixture::shared_library(t / "root_runpath.so", src, {"-L" + t / "A", "-lccv", "-Wl,--enable-new-dtags,-rpath," + t / "A"});
  fixture::shared_library(t / "root_plain.so", src, {"-L" + t / "A", "-lccv"});
}
} // namespace

TEST_CASE("rule 3: RPATH beats LD_LIBRARY_PATH, which beats RUNPATH (E2)") {
  TempDir t("rule3");
  build_e2(t);
  Options llp_b{t / "B", "", false};
  same({{t / "root_rpath.so"}}, llp_b);
  same({{t / "root_runpath.so"}}, llp_b);
  CHECK(oracle::simulated({{t / "root_rpath.so"}}, llp_b).maps.count(t / "A/libccv.so") == 1);
  CHECK(oracle::simulated({{t / "root_runpath.so"}}, llp_b).maps.count(t / "B/libccv.so") == 1);
}

TEST_CASE("rule 4: empty LD_LIBRARY_PATH elements are the cwd; ';' separates; relative entries use the cwd") {
  TempDir t("rule4");
  build_e2(t);
  std::string root = t / "root_plain.so";
  for (const char* value : {":/nonexistent", "/nonexistent:", "/nonexistent::/x"}) {
    CAPTURE(value);
    same({{root}}, Options{std::string(value), t / "B", false});
  }
  same({{root}}, Options{"/nonexistent;" + t / "B", "/", false});
  std::string relative = (t / "B").substr(1); // relative to "/"
  same({{root}}, Options{relative, "/", false});
  auto sim = oracle::simulated({{root}}, Options{":/nonexistent", t / "B", false});
  CHECK(sim.ok);
  CHECK(sim.maps.count("libccv.so") == 1); // the name ld.so gives a file found in the cwd
}

TEST_CASE("rule 5: $ORIGIN is the symlink's directory for a library (E4); token syntax (E9)") {
  TempDir t("rule5");
  fixture::make_dirs(t / "real/dep");
  fixture::make_dirs(t / "link/dep");
  fixture::shared_library(t / "real/dep/libccdep.so", "int dep(void) { return 1; }\n");
  fixture::shared_library(t / "link/dep/libccdep.so", "int dep(void) { return 2; }\n");
  fixture::shared_library(t / "real/libcco.so", "int dep(void);\nint o(void) { return dep(); }\n",
                          {"-L" + t / "real/dep", "-lccdep", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/dep"});
  std::filesystem::create_symlink("../real/libcco.so", t / "link/libcco.so");
  same({{t / "link/libcco.so"}});
  same({{t / "real/libcco.so"}});
  CHECK(oracle::simulated({{t / "link/libcco.so"}}).maps.count(t / "link/dep/libccdep.so") == 1);
  // E9: which tokens expand, and how the list is normalised.
  condacuda::loader::DstValues v{std::string("/scratch/e12"), "x86_64", "lib/x86_64-linux-gnu", false};
  auto dirs = condacuda::loader::decompose_path_list(
      "/scratch/e12/$LIB:/scratch/e12/$PLATFORM:${ORIGIN}/sub:$ORIGINX:$ORIGIN_x/y:/scratch/$FOO/z:/scratch/a//b///:",
      condacuda::loader::PathListKind::rpath, v);
  std::vector<std::string> got;
  for (const auto& d : dirs) got.push_back(d.dir);
  CHECK(got == std::vector<std::string>{"/scratch/e12/lib/x86_64-linux-gnu/", "/scratch/e12/x86_64/", "/scratch/e12/sub/",
                                        "$ORIGINX/", "$ORIGIN_x/y/", "/scratch/$FOO/z/", "/scratch/a//b/", ""});
  // Real ld.so agrees on a library whose RUNPATH uses the tokens.
  fixture::make_dirs(t / "tok/sub");
  fixture::shared_library(t / "tok/sub/libcctok.so", "int tok(void) { return 3; }\n");
  fixture::shared_library(t / "tok/root.so", "int tok(void);\nint r(void) { return tok(); }\n",
                          {"-L" + t / "tok/sub", "-lcctok", "-Wl,--enable-new-dtags,-rpath,$ORIGINX:${ORIGIN}/sub"});
  same({{t / "tok/root.so"}});
}

TEST_CASE("rule 5b: $ORIGIN in a dependency's RUNPATH is that dependency's folder, not its loader's") {
  // root.so (RUNPATH $ORIGIN/mid) -> mid/libccm.so (RUNPATH $ORIGIN/deep) -> mid/deep/libccd.so
  TempDir t("rule5b");
  fixture::shared_library(t / "mid/deep/libccd.so", provide_c2);
  fixture::shared_library(t / "mid/libccm.so", provide_b,
                          {"-L" + t / "mid/deep", "-lccd", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/deep"});
  fixture::shared_library(t / "root.so", provide_root, {"-L" + t / "mid", "-lccm", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/mid"});
  same({{t / "root.so"}});
  CHECK(oracle::simulated({{t / "root.so"}}).ok);
}

TEST_CASE("rule 6: a DT_NEEDED with '/' is opened relative to the cwd; $ORIGIN in it expands") {
  TempDir t("rule6");
  fixture::make_dirs(t / "A");
  fixture::make_dirs(t / "sub/B");
  fixture::shared_library(t / "A/libnoso.so", "int noso(void) { return 1; }\n");
  // Linking by relative path records "A/libnoso.so" (no SONAME) in DT_NEEDED.
  std::string src = "int noso(void);\nint r(void) { return noso(); }\n";
  fixture::write_file(t / "rel.c", src);
  fixture::run({"/usr/bin/gcc", "-shared", "-fPIC", "-o", "rel.so", "rel.c", "A/libnoso.so"}, {}, t.path());
  same({{t / "rel.so"}}, Options{std::nullopt, t.path(), false});
  same({{t / "rel.so"}}, Options{std::nullopt, "/", false});
  CHECK_FALSE(oracle::simulated({{t / "rel.so"}}, Options{std::nullopt, "/", false}).ok);
  // $ORIGIN/B/libnoso2.so as DT_NEEDED (the library's SONAME becomes the NEEDED string).
  fixture::shared_library(t / "sub/B/libnoso2.so", "int noso2(void) { return 2; }\n",
                          {"-Wl,-soname,$ORIGIN/B/libnoso2.so"});
  fixture::shared_library(t / "sub/orig.so", "int noso2(void);\nint r(void) { return noso2(); }\n",
                          {t / "sub/B/libnoso2.so"});
  same({{t / "sub/orig.so"}}, Options{t / "nonexistent", "/", false});
  CHECK(oracle::simulated({{t / "sub/orig.so"}}, Options{std::nullopt, "/", false}).ok);
}

TEST_CASE("rule 7: an already-loaded soname or inode is reused whatever the paths say (E8a)") {
  TempDir t("rule7");
  fixture::make_dirs(t / "dir1");
  fixture::make_dirs(t / "dir2");
  fixture::shared_library(t / "dir1/libccfoo.so", "int foo(void) { return 1; }\n", {"-Wl,-soname,libccfoo.so.1"});
  fixture::shared_library(t / "dir2/libccfoo.so.1", "int foo(void) { return 2; }\n", {"-Wl,-soname,libccfoo.so.1"});
  // main-like root needs "libccfoo.so" (no soname link) found in dir1 ...
  fixture::shared_library(t / "first.so", "int foo(void);\nint f(void) { return foo(); }\n",
                          {"-L" + t / "dir1", "-Wl,--no-as-needed", "-l:libccfoo.so", "-Wl,--enable-new-dtags,-rpath," + t / "dir1"});
  // ... and libp needs libccfoo.so.1 with RUNPATH dir2.
  fixture::shared_library(t / "libp.so", "int foo(void);\nint p(void) { return foo(); }\n",
                          {"-L" + t / "dir2", "-l:libccfoo.so.1", "-Wl,--enable-new-dtags,-rpath," + t / "dir2"});
  same({{t / "first.so", false, true}, {t / "libp.so"}});
  auto sim = oracle::simulated({{t / "first.so", false, true}, {t / "libp.so"}});
  CHECK(sim.maps.count(t / "dir2/libccfoo.so.1") == 0);
  // The same file under two names is one object.
  std::filesystem::create_symlink(t / "dir1/libccfoo.so", t / "alias.so");
  same({{t / "dir1/libccfoo.so"}, {t / "alias.so"}});
}

TEST_CASE("rule 8: candidates follow the hwcaps order within each directory") {
  TempDir t("rule8");
  auto facts_v2 = oracle::simulate({}).config;
  std::string best = facts_v2.hwcaps_active.empty() ? "" : "glibc-hwcaps/" + facts_v2.hwcaps_active.back() + "/";
  auto lib = [&](const std::string& path, int v) {
    fixture::make_dirs(std::filesystem::path(path).parent_path());
    fixture::shared_library(path, "int hw(void) { return " + std::to_string(v) + "; }\n", {"-Wl,-soname,libcchw.so"});
  };
  lib(t / "d1/libcchw.so", 1);
  lib(t / "d2/" + best + "libcchw.so", 2);
  lib(t / "d3/" + best + "libcchw.so", 3);
  lib(t / "d3/libcchw.so", 4);
  lib(t / "d4/x86_64/libcchw.so", 5);
  lib(t / "d4/libcchw.so", 6);
  fixture::shared_library(t / "root.so", "int hw(void);\nint r(void) { return hw(); }\n", {"-L" + t / "d1", "-lcchw"});
  same({{t / "root.so"}}, Options{t / "d1:" + t / "d2", "", false});  // d1 plain beats d2's hwcaps subdir
  same({{t / "root.so"}}, Options{t / "d3", "", false});              // hwcaps subdir beats the dir itself
  same({{t / "root.so"}}, Options{t / "d4", "", false});              // legacy subdir (glibc <= 2.36)
  CHECK(oracle::simulated({{t / "root.so"}}, Options{t / "d3", "", false}).maps.count(t / "d3/" + best + "libcchw.so") == 1);
}

TEST_CASE("rule 9: ld.so.cache results match the real loader") {
  TempDir t("rule9");
  fixture::shared_library(t / "root.so", "#include <zlib.h>\nconst char* v(void) { return zlibVersion(); }\n",
                          {"-lz"});
  same({{t / "root.so"}});
  auto sim = oracle::simulate({{t / "root.so"}});
  bool via_cache = false;
  for (const auto& e : sim.reports.back().edges)
    if (e.needed == "libz.so.1") via_cache = e.via == condacuda::loader::FoundVia::ld_so_cache;
  CHECK(via_cache);
}

TEST_CASE("rule 10: DF_1_NODEFLIB rejects cache results under system dirs and skips them (E8c)") {
  TempDir t("rule10");
  fixture::shared_library(t / "root.so", "#include <zlib.h>\nconst char* v(void) { return zlibVersion(); }\n",
                          {"-lz", "-Wl,-z,nodefaultlib"});
  same({{t / "root.so"}});
  auto sim = oracle::simulated({{t / "root.so"}});
  CHECK_FALSE(sim.ok);
  // Nothing was opened, so errno is not set and dlerror has no strerror part.
  CHECK(sim.error == "libz.so.1: cannot open shared object file");
}

TEST_CASE("rule 11: short, non-ELF and directory candidates are fatal; 32-bit and foreign ELF are skipped (E7)") {
  TempDir t("rule11");
  fixture::make_dirs(t / "good");
  fixture::shared_library(t / "good/libccv.so", "int v(void) { return 1; }\n");
  fixture::shared_library(t / "root.so", "int v(void);\nint r(void) { return v(); }\n", {"-L" + t / "good", "-lccv"});
  std::string good_bytes = fixture::read_file(t / "good/libccv.so");
  std::string elf32 = good_bytes;
  elf32[4] = 1; // ELFCLASS32
  std::string foreign = good_bytes;
  foreign[18] = static_cast<char>(183); // EM_AARCH64
  foreign[19] = 0;
  fixture::write_file(t / "short/libccv.so", "hello, world\n");
  fixture::write_file(t / "script/libccv.so", "/* GNU ld script */\nGROUP ( /usr/lib/x86_64-linux-gnu/libc.so.6 AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )\n");
  fixture::make_dirs(t / "dir/libccv.so");
  fixture::write_file(t / "c32/libccv.so", elf32);
  fixture::write_file(t / "arm/libccv.so", foreign);
  fixture::write_file(t / "empty/libccv.so", "");
  for (const char* bad : {"short", "script", "dir", "c32", "arm", "empty"}) {
    CAPTURE(bad);
    same({{t / "root.so"}}, Options{t / bad + ":" + t / "good", "", false});
  }
  same({{t / "root.so"}}, Options{t / "c32", "", false}); // only a 32-bit candidate
  auto sim = oracle::simulated({{t / "root.so"}}, Options{t / "c32", "", false});
  CHECK(sim.error == "libccv.so: wrong ELF class: ELFCLASS32");
}

namespace {
// E3: libccver.so with version scripts good (V1: foo, bar), nobar (V1: foo), nov1 (V2: foo, bar).
void build_e3(const TempDir& t) {
  std::string src = "int foo(void) { return 1; }\nint bar(void) { return 2; }\n";
  fixture::write_file(t / "good.map", "V1 { global: foo; bar; local: *; };\n");
  fixture::write_file(t / "nobar.map", "V1 { global: foo; local: *; };\n");
  fixture::write_file(t / "nov1.map", "V2 { global: foo; bar; local: *; };\n");
  for (const char* v : {"good", "nobar", "nov1"}) {
    fixture::make_dirs(t / v);
    fixture::shared_library(t / v + "/libccver.so", v == std::string("nobar") ? "int foo(void) { return 1; }\n" : src,
                            {"-Wl,--version-script=" + t / v + ".map"});
  }
  std::string user = "int foo(void);\nint bar(void);\nint use(void) { return foo() + bar(); }\n";
  fixture::shared_library(t / "spam.so", user, {"-L" + t / "good", "-lccver"});
  fixture::executable(t / "main",
                      "#include <stdio.h>\nint foo(void);\nint bar(void);\n"
                      "int main(void) { printf(\"started, foo()=%d\\n\", foo()); fflush(stdout); return bar(); }\n",
                      {"-L" + t / "good", "-lccver"});
}
} // namespace

TEST_CASE("rule 12: a missing version has glibc's text; at start-up every one is listed, status 1 (E3, E3c)") {
  TempDir t("rule12");
  build_e3(t);
  same({{t / "spam.so"}}, Options{t / "nov1", "", false});
  auto sim = oracle::simulated({{t / "spam.so"}}, Options{t / "nov1", "", false});
  CHECK(sim.error == t / "nov1/libccver.so: version `V1' not found (required by " + t / "spam.so)");
  auto real = oracle::real_start(t / "main", Options{t / "nov1", "", false});
  CHECK(real.status == 1);
  CHECK(oracle::simulated_start(t / "main", Options{t / "nov1", "", false}) == real);
  // E3c: two libraries each missing a version: both lines.
  fixture::make_dirs(t / "two");
  fixture::write_file(t / "w.map", "W1 { global: w; local: *; };\n");
  fixture::shared_library(t / "two/libccw.so", "int w(void) { return 5; }\n", {"-Wl,--version-script=" + t / "w.map"});
  fixture::shared_library(t / "wv2/libccw.so", "int w(void) { return 5; }\n", {"-Wl,--version-script=" + t / "nov1.map"});
  fixture::executable(t / "main2", "int foo(void);\nint w(void);\nint main(void) { return foo() + w(); }\n",
                      {"-L" + t / "good", "-lccver", "-L" + t / "two", "-lccw"});
  Options both{t / "nov1:" + t / "wv2", "", false};
  auto real2 = oracle::real_start(t / "main2", both);
  CHECK(real2.status == 1);
  CHECK(oracle::simulated_start(t / "main2", both) == real2);
}

TEST_CASE("rule 13: a missing symbol in an existing version; lazy vs immediate; data at load time (E3, E7)") {
  TempDir t("rule13");
  build_e3(t);
  Options nobar{t / "nobar", "", false};
  same({{t / "spam.so"}}, nobar);
  CHECK(oracle::simulated({{t / "spam.so"}}, nobar).error == t / "spam.so: undefined symbol: bar, version V1");
  same({{t / "spam.so", true}}, nobar); // RTLD_LAZY: the PLT reference waits for the call
  CHECK(oracle::simulated({{t / "spam.so", true}}, nobar).ok);
  // Start-up, lazy: the program starts and dies at the first call of bar;
  // the model reports the reference as lazy-only with the same text.
  auto lazy = oracle::real_start(t / "main", nobar);
  CHECK(lazy.status == 127);
  auto lazy_sim = oracle::simulate({}, nobar);
  {
    condacuda::loader::Process p;
    auto report = lazy_sim.simulator->start_program(p, t / "main", t / "main");
    CHECK(report.ok);
    REQUIRE(report.errors.size() == 1);
    CHECK(report.errors[0].lazy_only);
    CHECK(lazy.err == t / "main: symbol lookup error: " + report.errors[0].message() + "\n");
  }
  Options bind_now{t / "nobar", "", true};
  CHECK(oracle::simulated_start(t / "main", bind_now) == oracle::real_start(t / "main", bind_now));
  // A data reference fails at load time even with RTLD_LAZY.
  fixture::make_dirs(t / "data");
  fixture::shared_library(t / "data/libccdata.so", "int missing_data = 4;\nint other = 1;\n");
  fixture::shared_library(t / "nodata/libccdata.so", "int other = 1;\n");
  fixture::shared_library(t / "wk.so", "extern int missing_data;\nint* get(void) { return &missing_data; }\n",
                          {"-L" + t / "data", "-lccdata"});
  same({{t / "wk.so", true}}, Options{t / "nodata", "", false});
  CHECK_FALSE(oracle::simulated({{t / "wk.so", true}}, Options{t / "nodata", "", false}).ok);
}

TEST_CASE("rule 14: unversioned references take index 2 or the unique default; bar@V1 accepts plain bar (E5)") {
  TempDir t("rule14");
  // libccu: foo@V1 (hidden, index 2) and foo@@V2; a consumer linked against an unversioned libccu.
  fixture::write_file(t / "u.map", "V1 { };\nV2 { global: foo; } V1;\n");
  fixture::shared_library(t / "ver/libccu.so",
                          "__asm__(\".symver foo_v1,foo@V1\");\n__asm__(\".symver foo_v2,foo@@V2\");\n"
                          "int foo_v1(void) { return 1; }\nint foo_v2(void) { return 2; }\n",
                          {"-Wl,--version-script=" + t / "u.map"});
  fixture::shared_library(t / "plain/libccu.so", "int foo(void) { return 0; }\n");
  fixture::shared_library(t / "consumer.so", "int foo(void);\nint value(void) { return foo(); }\n",
                          {"-L" + t / "plain", "-lccu"});
  Options ver{t / "ver", "", false};
  same({{t / "consumer.so"}}, ver);
  auto sim = oracle::simulate({{t / "consumer.so"}}, ver);
  REQUIRE(sim.reports.back().ok);
  auto bound = sim.simulator->resolve(sim.process, sim.reports.back().root, "foo");
  CHECK(bound.version == "V1");
  auto real = fixture::run({fixture::probe_path(), t / "consumer.so", "--call", "value"}, {{"LD_LIBRARY_PATH", t / "ver"}});
  CHECK(real.out.find("CALL value=1") != std::string::npos);
  // With index 2 taken by an unrelated V0, the unique default foo@@V2 binds.
  fixture::write_file(t / "u0.map", "V0 { };\nV1 { } V0;\nV2 { global: foo; } V1;\n");
  fixture::shared_library(t / "ver0/libccu.so",
                          "__asm__(\".symver foo_v1,foo@V1\");\n__asm__(\".symver foo_v2,foo@@V2\");\n"
                          "int foo_v1(void) { return 1; }\nint foo_v2(void) { return 2; }\n",
                          {"-Wl,--version-script=" + t / "u0.map"});
  auto sim0 = oracle::simulate({{t / "consumer.so"}}, Options{t / "ver0", "", false});
  REQUIRE(sim0.reports.back().ok);
  CHECK(sim0.simulator->resolve(sim0.process, sim0.reports.back().root, "foo").version == "V2");
  auto real0 = fixture::run({fixture::probe_path(), t / "consumer.so", "--call", "value"}, {{"LD_LIBRARY_PATH", t / "ver0"}});
  CHECK(real0.out.find("CALL value=2") != std::string::npos);
  // E5b: bar@V1 binds to a plain (unversioned) bar in a library that defines V1.
  fixture::write_file(t / "b1.map", "V1 { global: foo; bar; local: *; };\n");
  fixture::write_file(t / "b2.map", "V1 { global: foo; };\n"); // bar unmatched: global, base version
  fixture::shared_library(t / "vb/libccb5.so", "int foo(void) { return 1; }\nint bar(void) { return 7; }\n",
                          {"-Wl,--version-script=" + t / "b1.map"});
  fixture::shared_library(t / "pb/libccb5.so", "int foo(void) { return 1; }\nint bar(void) { return 8; }\n",
                          {"-Wl,--version-script=" + t / "b2.map"});
  fixture::shared_library(t / "bref.so", "int bar(void);\nint value(void) { return bar(); }\n", {"-L" + t / "vb", "-lccb5"});
  same({{t / "bref.so"}}, Options{t / "pb", "", false});
  CHECK(oracle::simulated({{t / "bref.so"}}, Options{t / "pb", "", false}).ok);
}

TEST_CASE("rule 14b: bar@V1 is satisfied by any object in scope that defines bar@V1 (E5c)") {
  TempDir t("rule14b");
  build_e3(t);
  fixture::write_file(t / "prov.map", "V1 { global: bar; local: *; };\n");
  fixture::shared_library(t / "prov.so", "int bar(void) { return 99; }\n", {"-Wl,--version-script=" + t / "prov.map"});
  Options nobar{t / "nobar", "", false};
  same({{t / "prov.so", false, true}, {t / "spam.so"}}, nobar);
  CHECK(oracle::simulated({{t / "prov.so", false, true}, {t / "spam.so"}}, nobar).ok);
}

TEST_CASE("rule 14c: bar@V1 is not satisfied by bar@V2 of a library that has the V1 node (do_lookup_x)") {
  // Linked against a libccw where bar is in V1; run with one where V1 still
  // exists (foo) but bar moved to V2: the version node is found, the symbol
  // is not, and ld.so says "undefined symbol: bar, version V1".
  TempDir t("rule14c");
  fixture::write_file(t / "link.map", "V1 { global: foo; bar; local: *; };\n");
  fixture::write_file(t / "run.map", "V1 { global: foo; local: *; };\nV2 { global: bar; } V1;\n");
  const char* source = "int foo(void) { return 1; }\nint bar(void) { return 2; }\n";
  fixture::shared_library(t / "link/libccw.so", source, {"-Wl,--version-script=" + t / "link.map"});
  fixture::shared_library(t / "run/libccw.so", source, {"-Wl,--version-script=" + t / "run.map"});
  fixture::shared_library(t / "wref.so", "int bar(void);\nint value(void) { return bar(); }\n", {"-L" + t / "link", "-lccw"});
  Options run{t / "run", "", false};
  same({{t / "wref.so"}}, run);
  auto sim = oracle::simulated({{t / "wref.so"}}, run);
  CHECK_FALSE(sim.ok);
  CHECK(sim.error == t / "wref.so: undefined symbol: bar, version V1");
}

TEST_CASE("rule 15: a versioned reference into a library without VERSYM aborts on glibc <= 2.40 (E6)") {
  TempDir t("rule15");
  build_e3(t);
  fixture::shared_library(t / "plain/libccver.so", "int foo(void) { return 1; }\nint bar(void) { return 2; }\n");
  Options plain{t / "plain", "", false};
  auto real = oracle::real({{t / "spam.so"}}, plain);
  auto sim = oracle::simulated({{t / "spam.so"}}, plain);
  CHECK_FALSE(real.ok);
  CHECK(sim.ok == real.ok);
  CHECK(real.error.find("check_match: Assertion") != std::string::npos);
  CHECK(sim.error.find("check_match: Assertion") != std::string::npos);
}

TEST_CASE("rule 15b: an executable stack: dlopen makes it so up to glibc 2.40, refuses it from 2.41 on") {
  TempDir t("rule15b");
  fixture::shared_library(t / "libccxs.so", "int xs(void) { return 1; }\n", {"-Wl,-z,execstack"});
  fixture::shared_library(t / "libccnx.so", "int nx(void) { return 1; }\n", {"-Wl,-z,noexecstack"});
  // This machine's glibc (2.36) makes the stack executable: the model agrees.
  same({{t / "libccxs.so"}});
  CHECK(oracle::simulated({{t / "libccxs.so"}}).ok);
  // Modelled as 2.41 (measured on Debian 13 by e2e.loader_glibc_2_41): refused, in its words.
  Options v241{std::nullopt, "", false, 41};
  auto refused = oracle::simulated({{t / "libccxs.so"}}, v241);
  CHECK_FALSE(refused.ok);
  CHECK(refused.error == t / "libccxs.so: cannot enable executable stack as shared object requires: Invalid argument");
  CHECK(oracle::simulated({{t / "libccnx.so"}}, v241).ok);
  // The release before the switch, 2.40, still makes the stack executable (both sides of it).
  CHECK(oracle::simulated({{t / "libccxs.so"}}, Options{std::nullopt, "", false, 40}).ok);
  // At start-up ld.so still makes the stack executable, and a dlopen after that needs nothing.
  fixture::executable(t / "main_xs", "int xs(void);\nint main(void) { return xs() == 1 ? 0 : 1; }\n",
                      {"-L" + t.path(), "-lccxs", "-Wl,-rpath," + t.path()});
  CHECK(oracle::simulated_start(t / "main_xs", v241).status == 0);
  CHECK(oracle::real_start(t / "main_xs") == oracle::simulated_start(t / "main_xs"));
}

TEST_CASE("rule 16: weak undefined references never fail") {
  TempDir t("rule16");
  fixture::shared_library(t / "weak.so", "extern int maybe(void) __attribute__((weak));\n"
                                         "int r(void) { return maybe ? maybe() : 0; }\n");
  same({{t / "weak.so"}});
  CHECK(oracle::simulated({{t / "weak.so"}}).ok);
}

TEST_CASE("rule 17: RTLD_LOCAL objects are invisible to later dlopens, RTLD_GLOBAL ones visible (E8d)") {
  TempDir t("rule17");
  fixture::shared_library(t / "prov.so", "int provided(void) { return 42; }\n");
  fixture::shared_library(t / "cons.so", "int provided(void);\nint cons(void) { return provided(); }\n");
  same({{t / "prov.so"}, {t / "cons.so"}});
  CHECK(oracle::simulated({{t / "prov.so"}, {t / "cons.so"}}).error == t / "cons.so: undefined symbol: provided");
  same({{t / "prov.so", false, true}, {t / "cons.so"}});
  same({{t / "prov.so"}, {t / "cons.so", true}});
}

TEST_CASE("rule 18: secure mode ignores LD_LIBRARY_PATH, restricts $ORIGIN, rejects DSTs in DT_NEEDED") {
  using namespace condacuda::loader;
  DstValues secure{std::string("/o"), "x86_64", "lib", true};
  auto dirs = decompose_path_list("$ORIGIN:$ORIGIN/x:/a/$ORIGIN:${ORIGIN}", PathListKind::runpath, secure);
  std::vector<std::string> got;
  for (const auto& d : dirs) got.push_back(d.dir);
  CHECK(got == std::vector<std::string>{"/o/", "/o/x/"});
  TempDir t("rule18");
  build_e2(t);
  auto sim = oracle::simulate({}, Options{t / "B", "", false});
  LoaderConfig config = sim.config;
  config.secure = true;
  condacuda::sys::DiskFileView files(config.machine);
  Simulator s(config, files);
  Process p;
  s.start_synthetic(p, minimal_program_needs);
  CHECK(p.ld_library_path.empty());
  auto report = s.dlopen(p, t / "root_plain.so", Binding::now, Visibility::local);
  CHECK_FALSE(report.ok); // libccv.so is only on LD_LIBRARY_PATH, which secure mode ignores
}

namespace {
// The vernaux of `from` made a copy of the one of `to` (hash and name; flags,
// index and link kept): the library then needs `to` twice and `from` not at
// all. Both must appear exactly once as a vernaux hash with flags 0.
bool replace_version_need(std::string& bytes, std::string_view from, std::string_view to) {
  auto find = [&](std::uint32_t hash) {
    std::optional<std::size_t> at;
    for (std::size_t i = 0; i + 16 <= bytes.size(); i += 4) {
      std::uint32_t h = 0;
      std::uint16_t flags = 0;
      std::memcpy(&h, bytes.data() + i, 4);
      std::memcpy(&flags, bytes.data() + i + 4, 2);
      if (h != hash || flags != 0) continue;
      if (at) return std::optional<std::size_t>();
      at = i;
    }
    return at;
  };
  auto source = find(condacuda::elf::sysv_hash(from)), target = find(condacuda::elf::sysv_hash(to));
  if (!source || !target) return false;
  std::memcpy(bytes.data() + *source, bytes.data() + *target, 4);         // vna_hash
  std::memcpy(bytes.data() + *source + 8, bytes.data() + *target + 8, 4); // vna_name
  return true;
}
} // namespace

TEST_CASE("rule 19: DT_RELR with version needs on libc also needs GLIBC_ABI_DT_RELR (glibc >= 2.36)") {
  TempDir t("rule19");
  // A few pointers in data: relative relocations, packed as DT_RELR.
  const std::string table = "static int a, b, c;\nint* table[] = {&a, &b, &c, &a};\n";
  fixture::shared_library(t / "good/libccrelr.so", "#include <stdio.h>\n" + table + "int get(int i) { puts(\"get\"); return *table[i]; }\n",
                          {"-Wl,-z,pack-relative-relocs"});
  // No version need at all (no versioned libc symbol): glibc does not check it.
  fixture::shared_library(t / "plain/libccrelr.so", table + "int get(int i) { return *table[i]; }\n",
                          {"-Wl,-z,pack-relative-relocs"});
  std::string bytes = fixture::read_file(t / "good/libccrelr.so");
  REQUIRE(replace_version_need(bytes, "GLIBC_ABI_DT_RELR", "GLIBC_2.2.5"));
  fixture::write_file(t / "bad/libccrelr.so", bytes);
  fixture::shared_library(t / "root.so", "int get(int);\nint r(void) { return get(0); }\n", {"-L" + t / "good", "-lccrelr"});
  fixture::executable(t / "main", "int get(int);\nint main(void) { return get(0); }\n", {"-L" + t / "good", "-lccrelr"});
  for (const char* dir : {"good", "plain", "bad"}) {
    CAPTURE(dir);
    same({{t / "root.so"}}, Options{t / dir, "", false});
  }
  auto sim = oracle::simulated({{t / "root.so"}}, Options{t / "bad", "", false});
  CHECK(sim.error == t / "bad/libccrelr.so: DT_RELR without GLIBC_ABI_DT_RELR dependency");
  auto real = oracle::real_start(t / "main", Options{t / "bad", "", false});
  CHECK(real.status == 127);
  CHECK(oracle::simulated_start(t / "main", Options{t / "bad", "", false}) == real);
  CHECK(oracle::simulated_start(t / "main", Options{t / "good", "", false}) ==
        oracle::real_start(t / "main", Options{t / "good", "", false}));
  // Both sides of the switch: 2.35 knows no DT_RELR (the library without a version need on
  // GLIBC_ABI_DT_RELR is not refused but crashes, its relocations never applied); 2.36 checks the need.
  auto before = oracle::simulated({{t / "root.so"}}, Options{t / "bad", "", false, 35});
  CHECK_FALSE(before.ok);
  CHECK(before.error.find("DT_RELR is unknown before glibc 2.36") != std::string::npos);
  CHECK(oracle::simulated({{t / "root.so"}}, Options{t / "bad", "", false, 36}).error ==
        t / "bad/libccrelr.so: DT_RELR without GLIBC_ABI_DT_RELR dependency");
  CHECK(oracle::simulated({{t / "root.so"}}, Options{t / "plain", "", false, 35}).error.find("DT_RELR is unknown") != std::string::npos);
  CHECK(oracle::simulated({{t / "root.so"}}, Options{t / "plain", "", false, 36}).ok);
}

TEST_CASE("rule 20: a DT_FILTER filtee must load, a DT_AUXILIARY one may be missing (_dl_map_object_deps)") {
  TempDir t("rule20");
  fixture::shared_library(t / "lib/libccfiltee.so", "int f(void) { return 7; }\n");
  for (const char* kind : {"filter", "auxiliary"}) {
    CAPTURE(kind);
    std::string root = t / (std::string("root_") + kind + ".so");
    fixture::shared_library(root, "int f(void) { return 1; }\n", {std::string("-Wl,--") + kind + "=libccfiltee.so"});
    // Found (LD_LIBRARY_PATH names its folder), then missing.
    same({{root}}, Options{t / "lib", "", false});
    same({{root}}, Options{t / "empty", "", false});
  }
  auto missing = oracle::simulated({{t / "root_filter.so"}}, Options{t / "empty", "", false});
  CHECK(missing.error.find("libccfiltee.so: cannot open shared object file") != std::string::npos);
}
