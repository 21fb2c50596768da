// repair/plan: plan_repair on real compiled envs (the folders that go first on
// LD_LIBRARY_PATH, in order; the symlinks that let RUNPATH alone find a
// dependency), its idempotence over links a previous repair made, and
// verify_plan against a hostile system CUDA folder; one copy per soname and
// the order limits no search path changes (a consumer's own DT_RPATH).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "elf/pin.hpp"
#include "repair/plan.hpp"
#include "support/demo_env.hpp"
#include "support/fixture.hpp"
#include "sys/machine.hpp"

using namespace condacuda;
using fixture::TempDir;

namespace {

repair::RepairPlan plan_for(const std::string& prefix, const std::vector<std::string>& own_links = {}) {
  // A fresh view per run: DiskFileView caches what it opened, a second run must see the disk anew.
  sys::DiskFileView files(sys::host_machine());
  repair::PlanRequest request;
  request.own_links = own_links;
  return repair::plan_repair(demo_env::inputs(prefix, files), files, request);
}

repair::Verification verify(const repair::RepairPlan& plan, const demo_env::Seed& seed) {
  sys::DiskFileView files(sys::host_machine());
  return repair::verify_plan(plan, demo_env::inputs(seed.prefix, files), {seed.system}, files);
}

const repair::Scenario& scenario(const repair::Verification& v, const std::string& name) {
  for (const auto& s : v.scenarios)
    if (s.name == name) return s;
  FAIL("no scenario " << name);
  return v.scenarios.front();
}

bool has_finding(const doctor::DoctorReport& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return true;
  return false;
}

// The seed plan as the README describes it: nvJitLink linked, relatively, next
// to the cuSPARSE whose RUNPATH ($ORIGIN) does not reach it; the folders of
// every library a root needs by soname.
void check_seed_plan(const repair::RepairPlan& plan) {
  CHECK(plan.folder_paths() == std::vector<std::string>{demo_env::cudart_dir, demo_env::cusparse_dir, demo_env::nvjitlink_dir});
  REQUIRE(plan.folders.size() == 3);
  CHECK(plan.folders[0].sonames == std::vector<std::string>{"libcudart.so.12"});
  CHECK(plan.folders[1].sonames == std::vector<std::string>{"libcusparse.so.12"});
  CHECK(plan.folders[2].sonames == std::vector<std::string>{"libnvJitLink.so.12"});
  REQUIRE(plan.links.size() == 1);
  const auto& link = plan.links[0];
  CHECK(link.path == demo_env::cusparse_dir + "/libnvJitLink.so.12");
  CHECK(link.target == "../../nvjitlink/lib/libnvJitLink.so.12");
  CHECK(link.soname == "libnvJitLink.so.12");
  CHECK(link.needed_by == demo_env::cusparse);
}

} // namespace

TEST_CASE("plan_repair: the seed env gets one relative link next to cuSPARSE and its three folders in path order") {
  TempDir t("plan-seed");
  auto seed = demo_env::build_seed(t.path());
  check_seed_plan(plan_for(seed.prefix));
}

TEST_CASE("plan_repair: an env whose libraries need no other CUDA library plans nothing") {
  TempDir t("plan-none");
  const std::string prefix = t / "env";
  // cudart and nvJitLink need only libc: no root needs an env folder by soname.
  // (This cudart calls strlen, so that it does have a DT_NEEDED to resolve.)
  fixture::shared_library(prefix + "/" + demo_env::cudart,
                          "#include <string.h>\nint cudaRuntimeGetVersion(const char* s) { return (int)strlen(s); }\n",
                          {"-Wl,-soname,libcudart.so.12"});
  demo_env::build_nvjitlink(prefix + "/" + demo_env::nvjitlink, 4);
  auto plan = plan_for(prefix);
  CHECK(plan.empty());
  CHECK(plan.folders.empty());
  CHECK(plan.links.empty());
}

TEST_CASE("plan_repair: a folder whose copy of a soname is the chosen one goes before a folder with another copy") {
  // conda's lib/ holds cudart and an old nvJitLink 12.0; the wheel's cuSPARSE
  // reaches the wheel's nvJitLink 12.4 through its RUNPATH. Path order would
  // put lib/ first, and its nvJitLink would then shadow the wheel's once the
  // env is activated: the wheel's folder must come first.
  TempDir t("plan-order");
  const std::string p = t / "env/";
  demo_env::build_cudart(p + "lib/libcudart.so.12");
  demo_env::build_nvjitlink(p + "lib/libnvJitLink.so.12", 0);
  demo_env::build_nvjitlink(p + demo_env::nvjitlink, 4);
  demo_env::build_cusparse(p + demo_env::cusparse, p + demo_env::nvjitlink_dir, "$ORIGIN/../../nvjitlink/lib");
  demo_env::build_consumer(p + demo_env::consumer, p + "lib", p + demo_env::cusparse_dir, p + demo_env::nvjitlink_dir,
                           "$ORIGIN/../nvidia/cusparse/lib:$ORIGIN/../../..");
  auto plan = plan_for(t / "env");
  CHECK(plan.links.empty()); // every RUNPATH reaches its dependencies
  CHECK(plan.folder_paths() == std::vector<std::string>{demo_env::cusparse_dir, demo_env::nvjitlink_dir, "lib"});
  REQUIRE(plan.folders.size() == 3);
  CHECK(plan.folders[2].sonames == std::vector<std::string>{"libcudart.so.12"}); // lib/ is needed for cudart only
}

TEST_CASE("plan_repair: links a previous repair made (own_links) do not change the plan") {
  TempDir t("plan-again");
  auto seed = demo_env::build_seed(t.path());
  auto first = plan_for(seed.prefix);
  REQUIRE(first.links.size() == 1);
  // Make the link as repair would, then plan again from the env on disk.
  const std::string link = seed.prefix + "/" + first.links[0].path;
  std::filesystem::create_symlink(first.links[0].target, link);
  auto again = plan_for(seed.prefix, {link});
  check_seed_plan(again);
  // Without being told the link is its own, planning sees a healthy cuSPARSE and
  // would drop the link from the plan (undo would then leave it behind).
  auto unaware = plan_for(seed.prefix);
  CHECK(unaware.links.empty());
  CHECK(unaware.folder_paths() == first.folder_paths());
}

TEST_CASE("verify_plan: the plan survives a system folder with an older nvJitLink first on LD_LIBRARY_PATH") {
  TempDir t("plan-verify");
  auto seed = demo_env::build_seed(t.path());
  auto plan = plan_for(seed.prefix);
  auto v = verify(plan, seed);
  CHECK(v.ok);
  REQUIRE(v.scenarios.size() == 3);
  CHECK(v.scenarios[0].name == "this shell");
  CHECK(v.scenarios[1].name == "system CUDA first");
  CHECK(v.scenarios[2].name == "not activated");
  for (const auto& s : v.scenarios) {
    INFO(s.name);
    CHECK(s.report.healthy());
  }
  CHECK_FALSE(v.scenarios[2].required); // unactivated is reported, not required
  CHECK(scenario(v, "system CUDA first").description.find(seed.system) != std::string::npos);
}

TEST_CASE("verify_plan: without the plan the hostile folder breaks cuSPARSE and verification fails") {
  TempDir t("plan-verify-none");
  auto seed = demo_env::build_seed(t.path());
  auto v = verify(repair::RepairPlan{}, seed);
  CHECK_FALSE(v.ok);
  const auto& hostile = scenario(v, "system CUDA first");
  CHECK_FALSE(hostile.report.healthy());
  REQUIRE(has_finding(hostile.report, doctor::code::undefined_symbol));
  for (const auto& f : hostile.report.findings)
    if (f.code == doctor::code::undefined_symbol) CHECK(f.resolved == seed.system + "/libnvJitLink.so.12");
  // Without LD_LIBRARY_PATH nothing reaches nvJitLink at all.
  CHECK(has_finding(scenario(v, "this shell").report, doctor::code::not_found));
}

TEST_CASE("verify_plan: links alone do not survive the hostile folder; folders alone leave unactivated use broken") {
  TempDir t("plan-verify-part");
  auto seed = demo_env::build_seed(t.path());
  auto plan = plan_for(seed.prefix);
  repair::RepairPlan links_only = plan;
  links_only.folders.clear();
  // LD_LIBRARY_PATH is searched before RUNPATH: the system's nvJitLink wins over the link.
  auto v = verify(links_only, seed);
  CHECK_FALSE(v.ok);
  CHECK(scenario(v, "this shell").report.healthy());
  CHECK_FALSE(scenario(v, "system CUDA first").report.healthy());
  repair::RepairPlan folders_only = plan;
  folders_only.links.clear();
  v = verify(folders_only, seed);
  CHECK(v.ok); // the required scenarios are activated ones
  CHECK_FALSE(scenario(v, "not activated").report.healthy());
}

namespace {
repair::RepairPlan pin_plan_for(const demo_env::Seed& seed, const std::vector<repair::PinnedNow>& pinned_now = {}) {
  sys::DiskFileView files(sys::host_machine());
  repair::PlanRequest request;
  request.pin = true;
  request.not_activated_values = {seed.system};
  request.pinned_now = pinned_now;
  return repair::plan_repair(demo_env::inputs(seed.prefix, files, seed.system), files, request);
}

// The planned pin written as repair writes it: the tag changed in place.
void pin_on_disk(const demo_env::Seed& seed, const repair::PlannedPin& pin) {
  const std::string path = seed.prefix + "/" + pin.path;
  auto pinned = elf::retag(fixture::read_file(path), pin.offsets, elf::runpath_tag, elf::rpath_tag);
  REQUIRE(pinned.ok());
  std::filesystem::remove(path);
  fixture::write_file(path, *pinned);
}

// cuSPARSE without RUNPATH (nor RPATH): nothing to turn into RPATH.
void cusparse_without_runpath(const demo_env::Seed& seed) {
  fixture::gcc({"-shared", "-fPIC", "-Wl,-soname,libcusparse.so.12", "-o", seed.prefix + "/" + demo_env::cusparse,
                std::string(CONDACUDA_SOURCE_DIR) + "/examples/demo-env/src/cusparse.c",
                "-L" + seed.prefix + "/" + demo_env::nvjitlink_dir, "-l:libnvJitLink.so.12"});
}
} // namespace

TEST_CASE("plan_repair --pin: the library whose nvJitLink LD_LIBRARY_PATH shadows is pinned, and nothing else") {
  TempDir t("plan-pin");
  auto seed = demo_env::build_seed(t.path());
  auto plan = pin_plan_for(seed);
  REQUIRE(plan.pins.size() == 1);
  CHECK(plan.pins[0].path == demo_env::cusparse);
  CHECK(plan.pins[0].runpath == "$ORIGIN");
  CHECK(plan.pins[0].offsets.size() == 1);
  CHECK(plan.pins[0].reason.find(seed.system + "/libnvJitLink.so.12") != std::string::npos);
  CHECK(plan.unpinnable.empty());
  // Not activated, with the hostile folder first and with nothing: every root loads.
  sys::DiskFileView files(sys::host_machine());
  auto v = repair::verify_plan(plan, demo_env::inputs(seed.prefix, files, seed.system), {seed.system}, files);
  CHECK(v.ok);
  for (const auto& s : v.scenarios) {
    INFO(s.name);
    CHECK(s.required);
    CHECK(s.passes());
  }
  // The same plan without its pin fails the required not-activated scenarios.
  auto unpinned = plan;
  unpinned.pins.clear();
  sys::DiskFileView fresh(sys::host_machine());
  auto broken = repair::verify_plan(unpinned, demo_env::inputs(seed.prefix, fresh, seed.system), {seed.system}, fresh);
  CHECK_FALSE(broken.ok);
  CHECK_FALSE(scenario(broken, "not activated, hostile").passes());
}

TEST_CASE("plan_repair --pin: a library pinned on disk is planned as its original, so the plan does not change") {
  TempDir t("plan-pin-again");
  auto seed = demo_env::build_seed(t.path());
  auto first = pin_plan_for(seed);
  REQUIRE(first.pins.size() == 1);
  pin_on_disk(seed, first.pins[0]);
  auto again = pin_plan_for(seed, {{first.pins[0].path, first.pins[0].offsets}});
  REQUIRE(again.pins.size() == 1);
  CHECK(again.pins[0].path == first.pins[0].path);
  CHECK(again.pins[0].offsets == first.pins[0].offsets);
  // Unaware of the pin, planning sees a library that needs nothing more.
  CHECK(pin_plan_for(seed).pins.empty());
}

TEST_CASE("plan_repair --pin: a library without DT_RUNPATH cannot be pinned: its roots are named with the reason") {
  TempDir t("plan-pin-none");
  auto seed = demo_env::build_seed(t.path());
  cusparse_without_runpath(seed);
  auto plan = pin_plan_for(seed);
  CHECK(plan.pins.empty());
  REQUIRE_FALSE(plan.unpinnable.empty());
  bool named = false;
  for (const auto& u : plan.unpinnable)
    if (u.root == demo_env::cusparse) {
      named = true;
      CHECK(u.why.find("no search path of its own") != std::string::npos);
      CHECK(u.error.find("__nvJitLinkAddData_12_1") != std::string::npos);
    }
  CHECK(named);
}

TEST_CASE("plan_repair --pin: a pin an earlier repair made stays when no launch of this one needs it (issue 24)") {
  TempDir t("plan-pin-kept");
  auto seed = demo_env::build_seed(t.path());
  auto first = pin_plan_for(seed); // from a module shell: the older nvJitLink first
  REQUIRE(first.pins.size() == 1);
  pin_on_disk(seed, first.pins[0]);
  // Planned again from a clean shell: LD_LIBRARY_PATH unset takes nothing
  // from the env, so no round asks for the pin; it stays all the same.
  repair::PlanRequest clean;
  clean.pin = true;
  clean.not_activated_values = {std::nullopt};
  clean.pinned_now = {{first.pins[0].path, first.pins[0].offsets}};
  sys::DiskFileView files(sys::host_machine());
  auto kept = repair::plan_repair(demo_env::inputs(seed.prefix, files), files, clean);
  REQUIRE(kept.pins.size() == 1);
  CHECK(kept.pins[0].path == first.pins[0].path);
  CHECK(kept.pins[0].offsets == first.pins[0].offsets);
  CHECK(kept.pins[0].reason.find("kept") != std::string::npos);
  // --no-pin: the pins go.
  clean.pin = false;
  sys::DiskFileView fresh(sys::host_machine());
  CHECK(repair::plan_repair(demo_env::inputs(seed.prefix, fresh), fresh, clean).pins.empty());
}

TEST_CASE("verify_plan: every recorded launch is verified, activated and not, whatever shell plans (issue 24)") {
  TempDir t("plan-launches");
  auto seed = demo_env::build_seed(t.path());
  sys::DiskFileView files(sys::host_machine());
  repair::PlanRequest request; // this shell: LD_LIBRARY_PATH unset; recorded: the module shell's value
  request.pin = true;
  request.launches = {seed.system, std::nullopt};
  request.not_activated_values = {std::nullopt, seed.system};
  auto plan = repair::plan_repair(demo_env::inputs(seed.prefix, files), files, request);
  REQUIRE(plan.pins.size() == 1); // the recorded launch asks for it
  auto v = repair::verify_plan(plan, demo_env::inputs(seed.prefix, files), {}, files);
  CHECK(v.ok);
  CHECK(scenario(v, "recorded launch").required);
  CHECK(scenario(v, "recorded launch").passes());
  CHECK(scenario(v, "not activated, recorded launch").required);
  CHECK(scenario(v, "not activated, recorded launch").passes());
  // The same plan without its pin fails the recorded launch: verification says no.
  repair::RepairPlan unpinned = plan;
  unpinned.pins.clear();
  auto broken = repair::verify_plan(unpinned, demo_env::inputs(seed.prefix, files), {}, files);
  CHECK_FALSE(broken.ok);
  CHECK_FALSE(scenario(broken, "not activated, recorded launch").passes());
}

TEST_CASE("verify_plan: an unpinnable root fails its launch: never ok while a verified launch fails (issue 24)") {
  TempDir t("plan-pin-unpinnable");
  auto seed = demo_env::build_seed(t.path());
  cusparse_without_runpath(seed);
  auto plan = pin_plan_for(seed);
  REQUIRE_FALSE(plan.unpinnable.empty());
  sys::DiskFileView files(sys::host_machine());
  auto v = repair::verify_plan(plan, demo_env::inputs(seed.prefix, files, seed.system), {seed.system}, files);
  CHECK_FALSE(v.ok);
  CHECK_FALSE(scenario(v, "not activated").passes());
}

TEST_CASE("plan_repair: a consumer whose own DT_RPATH reaches conda's older copy is an order limit; verification blocks on it unless named") {
  // The seed env plus conda's nvJitLink 12.0 in lib/ and an extension linked
  // with DT_RPATH $ORIGIN/../../.. (lib/): DT_RPATH is searched before
  // LD_LIBRARY_PATH, so even activated it loads the 12.0 copy, and importing
  // it before demotorch leaves cuSPARSE without __nvJitLinkAddData_12_1.
  TempDir t("plan-rpath-limit");
  auto seed = demo_env::build_seed(t.path());
  const std::string p = seed.prefix + "/";
  demo_env::build_nvjitlink(p + "lib/libnvJitLink.so.12", 0);
  const std::string ext = demo_env::site + "/rpathext/_r.so";
  fixture::shared_library(p + ext, "int nvJitLinkVersion(unsigned*, unsigned*);\nint f(void) { unsigned a, b; return nvJitLinkVersion(&a, &b); }\n",
                          {"-Wl,--disable-new-dtags,-rpath,$ORIGIN/../../..", "-L" + p + "lib", "-l:libnvJitLink.so.12"});
  auto plan = plan_for(seed.prefix);
  REQUIRE(plan.copies.size() == 1);
  CHECK(plan.copies[0].soname == "libnvJitLink.so.12");
  CHECK(plan.copies[0].file == demo_env::nvjitlink); // the copy that serves cuSPARSE and the extension
  for (const auto& f : plan.folders) CHECK(f.path != "lib"); // conda's 12.0 is never put first
  bool activated_limit = false;
  for (const auto& l : plan.order_limits)
    if (l.activated && l.soname == "libnvJitLink.so.12" && l.copy == "lib/libnvJitLink.so.12" && l.requester == ext) {
      activated_limit = true;
      CHECK(l.why.find("its own search path finds that copy first") != std::string::npos);
    }
  CHECK(activated_limit);
  auto v = verify(plan, seed);
  CHECK(v.ok);
  const auto& shell = scenario(v, "this shell");
  bool excused = false;
  for (const auto& f : shell.report.findings)
    if (f.code == doctor::code::import_order && f.severity == doctor::Severity::error) {
      CHECK_FALSE(shell.blocks(f));
      excused = true;
    }
  CHECK_MESSAGE(excused, "activated, importing the extension first still fails, and the plan says so");
  // The same plan without its limits: the import-order error blocks.
  auto unexplained = plan;
  unexplained.order_limits.clear();
  auto w = verify(unexplained, seed);
  CHECK_FALSE(w.ok);
  CHECK_FALSE(scenario(w, "this shell").passes());

  // A limit belongs to its launch (issue 26 point 10 f): the same limits
  // recorded for the other launch explain nothing in this one. All of them
  // as not-activated limits: the activated import-order error blocks again.
  bool not_activated_limit = false;
  for (const auto& l : plan.order_limits)
    if (!l.activated && l.soname == "libnvJitLink.so.12" && l.copy == "lib/libnvJitLink.so.12") not_activated_limit = true;
  CHECK_MESSAGE(not_activated_limit, "the extension's DT_RPATH reaches lib/ without activation too");
  auto only_not_activated = plan;
  for (auto& l : only_not_activated.order_limits) l.activated = false;
  auto x = verify(only_not_activated, seed);
  CHECK_FALSE(x.ok);
  const auto& shell_x = scenario(x, "this shell");
  CHECK_FALSE(shell_x.passes());
  bool blocked = false;
  for (const auto& f : shell_x.report.findings)
    if (f.code == doctor::code::import_order && f.severity == doctor::Severity::error && shell_x.blocks(f)) blocked = true;
  CHECK_MESSAGE(blocked, "activated, a not-activated limit excused the import-order error");
  // And the other way: activated limits only, the not-activated launch's error
  // is not excused (unpinned, that launch is reported, not required).
  auto only_activated = plan;
  for (auto& l : only_activated.order_limits) l.activated = true;
  auto y = verify(only_activated, seed);
  CHECK(y.ok); // the required launches are the activated ones
  bool seen_unactivated = false;
  for (const auto& f : scenario(y, "not activated").report.findings)
    if (f.code == doctor::code::import_order && f.severity == doctor::Severity::error) {
      seen_unactivated = true;
      CHECK_MESSAGE(scenario(y, "not activated").blocks(f), "not activated, an activated limit excused: " << f.title);
    }
  CHECK_MESSAGE(seen_unactivated, "not activated, importing the extension first fails too");
}

TEST_CASE("verify_plan: an import-order error on a soname repair does not manage (no env CUDA copy) does not hold it back") {
  // Two extensions that need cudart and a non-CUDA libfoo.so.1, each from its
  // own folder: the older copy lacks foo_new, so importing x before y fails.
  // No hook folder or link can change that: a package's matter, named in the
  // notes, never a reason to refuse the repair.
  TempDir t("plan-foreign-order");
  auto seed = demo_env::build_seed(t.path());
  const std::string p = seed.prefix + "/";
  const std::string site = demo_env::site + "/";
  fixture::write_file(t / "foo-old.map", "FOO_1 { global: foo_old; local: *; };\n");
  fixture::write_file(t / "foo-new.map", "FOO_1 { global: foo_old; local: *; };\nFOO_2 { global: foo_new; } FOO_1;\n");
  fixture::shared_library(p + site + "fooold/libfoo.so.1", "int foo_old(void) { return 1; }\n",
                          {"-Wl,-soname,libfoo.so.1", "-Wl,--version-script=" + t / "foo-old.map"});
  fixture::shared_library(p + site + "foonew/libfoo.so.1", "int foo_old(void) { return 1; }\nint foo_new(void) { return 2; }\n",
                          {"-Wl,-soname,libfoo.so.1", "-Wl,--version-script=" + t / "foo-new.map"});
  const std::string runtime = "$ORIGIN/../nvidia/cuda_runtime/lib";
  fixture::shared_library(p + site + "xext/_x.so",
                          "int foo_old(void);\nint cudaRuntimeGetVersion(int*);\nint x(void) { int v; return foo_old() + cudaRuntimeGetVersion(&v); }\n",
                          {"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../fooold:" + runtime, "-L" + p + site + "fooold", "-l:libfoo.so.1",
                           "-L" + p + demo_env::cudart_dir, "-l:libcudart.so.12"});
  fixture::shared_library(p + site + "yext/_y.so",
                          "int foo_new(void);\nint cudaRuntimeGetVersion(int*);\nint y(void) { int v; return foo_new() + cudaRuntimeGetVersion(&v); }\n",
                          {"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../foonew:" + runtime, "-L" + p + site + "foonew", "-l:libfoo.so.1",
                           "-L" + p + demo_env::cudart_dir, "-l:libcudart.so.12"});
  auto plan = plan_for(seed.prefix);
  auto v = verify(plan, seed);
  CHECK(v.ok);
  const auto& shell = scenario(v, "this shell");
  bool seen = false;
  for (const auto& f : shell.report.findings)
    if (f.code == doctor::code::import_order && f.library == "libfoo.so.1") {
      seen = true;
      CHECK(f.severity == doctor::Severity::error);
      CHECK_FALSE(shell.blocks(f));
    }
  CHECK_MESSAGE(seen, "importing x before y fails, and doctor says so");
}

TEST_CASE("plan_repair: no copy of a soname serves every requester: each requester is given a copy that has what it needs") {
  // Three copies of libnvJitLink.so.12 (issue 26 point 10): conda's 12.0 in
  // lib/ (the first in inventory order, which lacks __nvJitLinkAddData_12_1),
  // the wheel's 12.4, and a package's vendored build with an entry point of
  // its own the wheel's lacks. Extension x reaches the vendored copy through
  // its DT_RPATH and needs that entry point; extension y finds no copy by
  // itself and needs __nvJitLinkAddData_12_1, as cuSPARSE does. No copy
  // serves all three, so each requester's copy is chosen for it: the wheel's
  // for y and cuSPARSE (the link, the hook's folder), never conda's lib/,
  // which none of them can use.
  TempDir t("plan-no-single-copy");
  auto seed = demo_env::build_seed(t.path());
  const std::string p = seed.prefix + "/";
  const std::string site = demo_env::site + "/";
  demo_env::build_nvjitlink(p + "lib/libnvJitLink.so.12", 0);
  fixture::write_file(t / "vendor.map", "libnvJitLink.so.12 { global: nvJitLinkVersion; __nvJitLinkAddData_vendor; local: *; };\n");
  const std::string vendor_dir = site + "zvendor/lib";
  // (Its source outside the env: a file named libnvJitLink.so.12.c there would be a damaged library of its own.)
  fixture::write_file(t / "vendor.c", "int nvJitLinkVersion(unsigned* a, unsigned* b) { *a = 12; *b = 3; return 0; }\n"
                                      "int __nvJitLinkAddData_vendor(void) { return 0; }\n");
  fixture::make_dirs(p + vendor_dir);
  fixture::gcc({"-shared", "-fPIC", "-Wl,-soname,libnvJitLink.so.12", "-Wl,--version-script=" + t / "vendor.map", "-o",
                p + vendor_dir + "/libnvJitLink.so.12", t / "vendor.c"});
  const std::string runtime = "$ORIGIN/../nvidia/cuda_runtime/lib";
  fixture::shared_library(p + site + "xext/_x.so",
                          "int __nvJitLinkAddData_vendor(void);\nint cudaRuntimeGetVersion(int*);\n"
                          "int x(void) { int v; return __nvJitLinkAddData_vendor() + cudaRuntimeGetVersion(&v); }\n",
                          {"-Wl,--disable-new-dtags,-rpath,$ORIGIN/../zvendor/lib:" + runtime, "-L" + p + vendor_dir,
                           "-l:libnvJitLink.so.12", "-L" + p + demo_env::cudart_dir, "-l:libcudart.so.12"});
  fixture::shared_library(p + site + "yext/_y.so",
                          "int __nvJitLinkAddData_12_1(void*, int, const void*, unsigned long, const char*);\n"
                          "int cudaRuntimeGetVersion(int*);\n"
                          "int y(void) { int v; return __nvJitLinkAddData_12_1(0, 0, 0, 0, 0) + cudaRuntimeGetVersion(&v); }\n",
                          {"-Wl,--enable-new-dtags,-rpath," + runtime, "-L" + p + demo_env::nvjitlink_dir, "-l:libnvJitLink.so.12",
                           "-L" + p + demo_env::cudart_dir, "-l:libcudart.so.12"});
  auto plan = plan_for(seed.prefix);
  // No one copy of nvJitLink for the whole env.
  for (const auto& c : plan.copies) CHECK(c.soname != "libnvJitLink.so.12");
  bool no_single_copy = false;
  for (const auto& l : plan.order_limits)
    if (l.soname == "libnvJitLink.so.12" && l.no_single_copy) no_single_copy = true;
  CHECK(no_single_copy);
  // cuSPARSE's link leads to the wheel's copy, not to the first copy (lib/).
  REQUIRE(plan.links.size() == 1);
  CHECK(plan.links[0].needed_by == demo_env::cusparse);
  CHECK(plan.links[0].target == "../../nvjitlink/lib/libnvJitLink.so.12");
  // The hook's folders: the wheel's for y and cuSPARSE, the vendored one for
  // x, the wheel's first (path order in their cycle); never lib/.
  const auto folders = plan.folder_paths();
  CHECK(std::find(folders.begin(), folders.end(), "lib") == folders.end());
  auto wheel = std::find(folders.begin(), folders.end(), demo_env::nvjitlink_dir);
  auto vendored = std::find(folders.begin(), folders.end(), vendor_dir);
  REQUIRE(wheel != folders.end());
  REQUIRE(vendored != folders.end());
  CHECK(wheel < vendored);
  // Verified: activated, every root loads alone, y and cuSPARSE with the wheel's copy.
  auto v = verify(plan, seed);
  CHECK(v.ok);
  for (const std::string name : {"this shell", "system CUDA first"}) {
    const auto& s = scenario(v, name);
    INFO(name);
    CHECK(s.passes());
    for (const auto& r : s.report.roots) {
      INFO(r.file);
      CHECK(r.loads);
    }
  }
}
