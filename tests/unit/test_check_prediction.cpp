// check's plan: which file the probe opens for each component (by soname when
// the activated search path finds the env's file, else by path), the loader
// model's prediction of every dlopen, and the comparison with what a real
// process loads (the dlopen probe as the oracle).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "check/prediction.hpp"
#include "support/fixture.hpp"
#include "support/oracle.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/machine.hpp"

using namespace condacuda;
using fixture::TempDir;

namespace {
// A CUDA-13-like env: lib/ holds cublasLt, cublas (-> Lt), cusparse (->
// nvJitLink) and nvJitLink, all with RUNPATH $ORIGIN, like the cu13 wheel
// folder. other/ holds another libcublas.so.13 (a "system" one).
void build_env(const TempDir& t) {
  fixture::make_dirs(t / "env/lib");
  fixture::make_dirs(t / "other");
  auto lib = [&](const std::string& name, const std::string& src, std::vector<std::string> extra = {}) {
    extra.push_back("-Wl,-soname," + name);
    extra.push_back("-Wl,--enable-new-dtags,-rpath,$ORIGIN");
    fixture::shared_library(t / ("env/lib/" + name), src, extra);
  };
  lib("libnvJitLink.so.13", "int nvJitLinkCreate(void) { return 0; }\n");
  lib("libcublasLt.so.13", "int lt(void) { return 1; }\n");
  lib("libcublas.so.13", "int lt(void);\nint blas(void) { return lt(); }\n", {"-L" + t / "env/lib", "-l:libcublasLt.so.13"});
  lib("libcusparse.so.12", "int nvJitLinkCreate(void);\nint sp(void) { return nvJitLinkCreate(); }\n",
      {"-L" + t / "env/lib", "-l:libnvJitLink.so.13"});
  fixture::shared_library(t / "other/libcublas.so.13", "int blas(void) { return 2; }\n", {"-Wl,-soname,libcublas.so.13"});
}

inventory::Inventory env_inventory(const TempDir& t) {
  inventory::Inventory inv;
  inv.prefix = t / "env";
  auto add = [&](const char* component, const char* soname) {
    inventory::Library l;
    l.file = std::string("lib/") + soname;
    l.component = component;
    l.soname = soname;
    l.cuda_major = 13;
    inv.libraries.push_back(l);
  };
  add("cublas", "libcublas.so.13");
  add("cublaslt", "libcublasLt.so.13");
  add("cusparse", "libcusparse.so.12");
  add("nvjitlink", "libnvJitLink.so.13");
  return inv;
}

check::ProbePlan plan_with(const TempDir& t, std::optional<std::string> llp) {
  loader::LoaderConfig config = sys::detect_machine().config;
  config.ld_library_path = std::move(llp);
  sys::DiskFileView files(config.machine);
  return check::plan_probe(env_inventory(t), config, files, fixture::probe_path());
}

const check::PlannedLibrary& planned(const check::ProbePlan& p, check::Component c) {
  auto it = std::find_if(p.libraries.begin(), p.libraries.end(), [&](const auto& l) { return l.request.component == c; });
  REQUIRE(it != p.libraries.end());
  return *it;
}

// The real loader runs the plan's dlopen sequence: same verdicts, same files.
void agrees_with_real_loader(const check::ProbePlan& plan, std::optional<std::string> llp) {
  std::vector<oracle::Step> steps;
  for (const auto& l : plan.libraries)
    if (l.predicted_loads) steps.push_back({l.request.open});
  oracle::Options options;
  options.ld_library_path = std::move(llp);
  auto real = oracle::real(steps, options);
  CHECK(real.ok);
  std::set<std::string> predicted;
  for (const auto& o : plan.predicted_objects)
    if (o.find('/') != std::string::npos) predicted.insert(o);
  std::set<std::string> actual;
  for (const auto& o : real.maps)
    if (o.find('/') != std::string::npos) actual.insert(o);
  CHECK(predicted == actual);
}
} // namespace

TEST_CASE("plan: without the env on the search path its libraries are opened by path") {
  TempDir t("plan-path");
  build_env(t);
  auto plan = plan_with(t, std::nullopt);
  REQUIRE(plan.libraries.size() == 5); // driver, cublaslt, cublas, cusparse, nvjitlink (no cudart)
  CHECK(plan.missing == std::vector<std::string>{"cudart"});
  CHECK(plan.cuda_major == 13);
  CHECK(plan.libraries[0].request.component == check::Component::driver);
  CHECK(plan.libraries[0].request.open == "libcuda.so.1");
  const auto& blas = planned(plan, check::Component::cublas);
  CHECK(blas.request.open == t / "env/lib/libcublas.so.13");
  // Not found by soname, or (a machine with CUDA in /etc/ld.so.cache) found elsewhere.
  CHECK(blas.reason.find("opened by path") != std::string::npos);
  CHECK(blas.predicted_loads);
  CHECK(blas.predicted_path == t / "env/lib/libcublas.so.13");
  // cusparse (opened by path) brought libnvJitLink.so.13 in through RUNPATH:
  // by soname it is then the env's own.
  const auto& jit = planned(plan, check::Component::nvjitlink);
  CHECK(jit.request.open == "libnvJitLink.so.13");
  CHECK(jit.predicted_path == t / "env/lib/libnvJitLink.so.13");
  agrees_with_real_loader(plan, std::nullopt);
}

TEST_CASE("plan: with the env's folder first (the hook) everything is opened by soname") {
  TempDir t("plan-soname");
  build_env(t);
  auto plan = plan_with(t, t / "env/lib");
  for (const auto& l : plan.libraries) {
    CHECK(l.request.open.find('/') == std::string::npos);
    if (l.request.component != check::Component::driver) CHECK(l.predicted_path == t / ("env/lib/" + l.soname));
  }
  CHECK(planned(plan, check::Component::cublas).predicted_via == "ld_library_path");
  agrees_with_real_loader(plan, t / "env/lib");
}

TEST_CASE("plan: a soname that resolves outside the env is opened by path, and the reason names the other file") {
  TempDir t("plan-other");
  build_env(t);
  auto plan = plan_with(t, t / "other");
  const auto& blas = planned(plan, check::Component::cublas);
  CHECK(blas.request.open == t / "env/lib/libcublas.so.13");
  CHECK(blas.reason.find(t / "other/libcublas.so.13") != std::string::npos);
  CHECK(blas.reason.find("ld_library_path") != std::string::npos);
  agrees_with_real_loader(plan, t / "other");
}

TEST_CASE("plan: the driver's search is recorded (where it looked)") {
  TempDir t("plan-driver");
  build_env(t);
  fixture::make_dirs(t / "stubs");
  auto plan = plan_with(t, t / "stubs");
  const auto& drv = plan.libraries[0];
  if (drv.predicted_loads) return; // a machine with a driver: nothing to look for
  CHECK(drv.predicted_error == "libcuda.so.1: cannot open shared object file: No such file or directory");
  CHECK(std::find(drv.tried.begin(), drv.tried.end(), t / "stubs/libcuda.so.1") != drv.tried.end());
}

TEST_CASE("comparison: paths through the canonicaliser, verdicts, errors, extra objects") {
  check::ProbePlan plan;
  check::PlannedLibrary a;
  a.request = {check::Component::cublas, "libcublas.so.13"};
  a.predicted_loads = true;
  a.predicted_path = "/env/lib/../lib/libcublas.so.13";
  check::PlannedLibrary b;
  b.request = {check::Component::cusparse, "/env/lib/libcusparse.so.12"};
  b.predicted_error = "x: undefined symbol: y";
  plan.libraries = {a, b};
  plan.predicted_objects = {"/env/lib/libcublas.so.13", "/lib64/ld-linux-x86-64.so.2"};
  check::ProbeResult probe;
  check::LibraryLoad la;
  la.component = check::Component::cublas;
  la.loaded = true;
  la.path = "/env/lib/libcublas.so.13";
  check::LibraryLoad lb;
  lb.component = check::Component::cusparse;
  lb.error = "x: undefined symbol: y";
  probe.libraries = {la, lb};
  probe.loaded_objects = {"", "linux-vdso.so.1", "/env/lib/libcublas.so.13", "/lib64/ld-linux-x86-64.so.2"};
  auto canonical = [](const std::string& p) { return std::filesystem::path(p).lexically_normal().string(); };
  auto c = check::compare_libraries(plan, probe, canonical);
  REQUIRE(c.size() == 2);
  CHECK(c[0].matches);
  CHECK(c[1].matches);
  CHECK(check::compare_objects(plan, probe, canonical).matches);
  probe.libraries[1].error = "x: undefined symbol: z";
  probe.loaded_objects.push_back("/extra.so");
  c = check::compare_libraries(plan, probe, canonical);
  CHECK_FALSE(c[1].matches);
  CHECK(c[1].difference.find("undefined symbol: z") != std::string::npos);
  auto o = check::compare_objects(plan, probe, canonical);
  CHECK_FALSE(o.matches);
  CHECK(o.only_in_probe == std::vector<std::string>{"/extra.so"});
  probe.libraries.pop_back();
  c = check::compare_libraries(plan, probe, canonical);
  CHECK(c[1].difference == "the probe did not report it");
}
