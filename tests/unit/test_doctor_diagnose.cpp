// doctor/diagnose: findings grouped by cause, on real compiled envs. One
// shadowing library that breaks several roots is one finding listing them all,
// with the file the loader chose, the search step and LD_LIBRARY_PATH entry
// that chose it and the env's own copy; independent causes stay apart.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "doctor/alignment_findings.hpp"
#include "doctor/diagnose.hpp"
#include "doctor/grouping.hpp"
#include "support/demo_env.hpp"
#include "support/fixture.hpp"
#include "support/oracle.hpp"
#include "sys/machine.hpp"

using namespace condacuda;
using fixture::TempDir;

namespace {

const std::string second_consumer = demo_env::site + "/demojax/_ext.so";

doctor::DoctorReport doctor_of(const std::string& prefix, std::optional<std::string> llp) {
  sys::DiskFileView files(sys::host_machine());
  return doctor::run_doctor(demo_env::inputs(prefix, files, std::move(llp)), files);
}

// The findings with `code` as diagnosed: a group's parts (doctor/grouping.hpp) one by one.
std::vector<doctor::Finding> with_code(const doctor::DoctorReport& r, const std::string& code) {
  std::vector<doctor::Finding> out;
  doctor::for_each_cause(r.findings, [&](const doctor::Finding& f) {
    if (f.code == code) out.push_back(f);
  });
  return out;
}

// The seed env plus a second torch-like consumer of cuSPARSE.
demo_env::Seed seed_with_two_consumers(const TempDir& t) {
  auto seed = demo_env::build_seed(t.path());
  const std::string p = seed.prefix + "/";
  demo_env::build_consumer(p + second_consumer, p + demo_env::cudart_dir, p + demo_env::cusparse_dir,
                           p + demo_env::nvjitlink_dir, "$ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../nvidia/cusparse/lib");
  return seed;
}

const doctor::RootResult& root(const doctor::DoctorReport& r, const std::string& file) {
  for (const auto& x : r.roots)
    if (x.file == file) return x;
  FAIL("no root " << file);
  return r.roots.front();
}

} // namespace

TEST_CASE("one shadowing nvJitLink on LD_LIBRARY_PATH is one undefined-symbol finding listing every root it breaks") {
  TempDir t("diag-shadow");
  auto seed = seed_with_two_consumers(t);
  auto report = doctor_of(seed.prefix, seed.system);
  CHECK_FALSE(report.healthy());
  auto found = with_code(report, doctor::code::undefined_symbol);
  REQUIRE(found.size() == 1);
  CHECK(report.count(doctor::Severity::error) == 1); // the one cause, not one finding per root
  const auto& f = found[0];
  CHECK(f.severity == doctor::Severity::error);
  CHECK(f.affects == std::vector<std::string>{demo_env::cusparse, second_consumer, demo_env::consumer});
  CHECK(f.library == "libnvJitLink.so.12");
  CHECK(f.symbols == "__nvJitLinkAddData_12_1");
  CHECK(f.version == "libnvJitLink.so.12");
  CHECK(f.min_release == "12.1");
  // The file the loader chose and the search step that chose it.
  CHECK(f.resolved == seed.system + "/libnvJitLink.so.12");
  CHECK(f.via == "ld_library_path");
  CHECK(f.via_entry == seed.system);
  // The env's own copy, its package, and that it would have done.
  CHECK(f.expected == demo_env::nvjitlink);
  CHECK(f.expected_package == "nvidia-nvjitlink-cu12 12.4.127");
  CHECK(f.expected_satisfies);
  CHECK(f.first_error == root(report, demo_env::cusparse).first_error);
  CHECK(f.fix.find("condacuda repair") != std::string::npos);
  CHECK(f.fix.find("remove '" + seed.system + "' from LD_LIBRARY_PATH") != std::string::npos);
  // The blamed file is not reported a second time as a mere shadow.
  CHECK(with_code(report, doctor::code::shadowed).empty());
}

TEST_CASE("the fixture fails for real as doctor says: the dlopen probe gets the same error") {
  TempDir t("diag-real");
  auto seed = demo_env::build_seed(t.path());
  auto report = doctor_of(seed.prefix, seed.system);
  oracle::Options options;
  options.ld_library_path = seed.system;
  auto real = oracle::real({{seed.prefix + "/" + demo_env::consumer}}, options);
  CHECK_FALSE(real.ok);
  CHECK(real.error.find("undefined symbol: __nvJitLinkAddData_12_1") != std::string::npos);
  CHECK(real.error == root(report, demo_env::consumer).first_error);
}

TEST_CASE("two libraries one folder shadows are one finding for the folder, each part with its own roots") {
  // The system folder also holds an older cudart that lacks cudaNewApi, which
  // a third consumer needs (versioned, like nvJitLink's entry points).
  TempDir t("diag-two");
  auto seed = seed_with_two_consumers(t);
  const std::string p = seed.prefix + "/";
  fixture::write_file(t / "cudart-new.map", "libcudart.so.12 { global: cudaRuntimeGetVersion; cudaNewApi; local: *; };\n");
  fixture::write_file(t / "cudart-old.map", "libcudart.so.12 { global: cudaRuntimeGetVersion; local: *; };\n");
  const std::string new_source = "int cudaRuntimeGetVersion(int* v) { *v = 12080; return 0; }\nint cudaNewApi(void) { return 0; }\n";
  fixture::shared_library(p + demo_env::cudart, new_source,
                          {"-Wl,-soname,libcudart.so.12", "-Wl,--version-script=" + t / "cudart-new.map"});
  fixture::shared_library(seed.system + "/libcudart.so.12", "int cudaRuntimeGetVersion(int* v) { *v = 12000; return 0; }\n",
                          {"-Wl,-soname,libcudart.so.12", "-Wl,--version-script=" + t / "cudart-old.map"});
  const std::string third = demo_env::site + "/demonew/_new.so";
  fixture::shared_library(p + third, "int cudaNewApi(void);\nint f(void) { return cudaNewApi(); }\n",
                          {"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/cuda_runtime/lib", "-L" + p + demo_env::cudart_dir,
                           "-l:libcudart.so.12"});
  auto report = doctor_of(seed.prefix, seed.system);
  auto found = with_code(report, doctor::code::undefined_symbol);
  REQUIRE(found.size() == 2);
  const auto& jit = found[0].library == "libnvJitLink.so.12" ? found[0] : found[1];
  const auto& rt = found[0].library == "libcudart.so.12" ? found[0] : found[1];
  REQUIRE(jit.library == "libnvJitLink.so.12");
  REQUIRE(rt.library == "libcudart.so.12");
  CHECK(jit.resolved == seed.system + "/libnvJitLink.so.12");
  CHECK(jit.affects == std::vector<std::string>{demo_env::cusparse, second_consumer, demo_env::consumer});
  CHECK(rt.resolved == seed.system + "/libcudart.so.12");
  CHECK(rt.symbols == "cudaNewApi");
  CHECK(rt.expected == demo_env::cudart);
  CHECK(rt.expected_satisfies);
  CHECK(rt.affects == std::vector<std::string>{third});
  // One cause, one finding: the folder, every library it shadows, one fix.
  std::vector<const doctor::Finding*> from_system;
  for (const auto& f : report.findings)
    if (f.via_entry == seed.system) from_system.push_back(&f);
  REQUIRE(from_system.size() == 1);
  const auto& group = *from_system.front();
  CHECK(group.severity == doctor::Severity::error);
  int undefined = 0;
  for (const auto& part : group.parts) undefined += part.code == doctor::code::undefined_symbol ? 1 : 0;
  CHECK(undefined == 2);
  CHECK(group.code == doctor::code::undefined_symbol);
  CHECK(group.title.find("LD_LIBRARY_PATH entry '" + seed.system + "' shadows 2 of the env's libraries") == 0);
  CHECK(group.affects.size() == 4);
}

TEST_CASE("a library nothing provides is a not-found finding with an install hint") {
  // The consumer was linked against a libcufft.so.11 that is not in the env.
  TempDir t("diag-missing");
  const std::string prefix = t / "env";
  fixture::shared_library(t / "elsewhere/libcufft.so.11", "int cufftPlan1d(void) { return 0; }\n", {"-Wl,-soname,libcufft.so.11"});
  const std::string consumer = demo_env::site + "/demofft/_fft.so";
  fixture::shared_library(prefix + "/" + consumer, "int cufftPlan1d(void);\nint g(void) { return cufftPlan1d(); }\n",
                          {"-L" + t / "elsewhere", "-l:libcufft.so.11"});
  auto report = doctor_of(prefix, std::nullopt);
  REQUIRE(report.findings.size() == 1);
  const auto& f = report.findings[0];
  CHECK(f.code == doctor::code::not_found);
  CHECK(f.severity == doctor::Severity::error);
  CHECK(f.library == "libcufft.so.11");
  CHECK(f.title == "libcufft.so.11 is not found");
  CHECK(f.expected.empty());
  CHECK(f.affects == std::vector<std::string>{consumer});
  CHECK(f.evidence == std::vector<std::string>{consumer + " needs libcufft.so.11; no search path reaches it"});
  CHECK(f.fix.find("install libcufft.so.11 into the env") == 0);
}

TEST_CASE("a library the env has but no search path reaches is one not-found finding naming the env's copy") {
  // The unrepaired seed: cuSPARSE's RUNPATH ($ORIGIN) does not reach nvJitLink,
  // for cuSPARSE opened itself and for the consumer that loads it.
  TempDir t("diag-unreached");
  auto seed = demo_env::build_seed(t.path());
  auto report = doctor_of(seed.prefix, std::nullopt);
  REQUIRE(report.findings.size() == 1);
  const auto& f = report.findings[0];
  CHECK(f.code == doctor::code::not_found);
  CHECK(f.library == "libnvJitLink.so.12");
  CHECK(f.expected == demo_env::nvjitlink);
  CHECK(f.title == "libnvJitLink.so.12 is in the env but not found from where it is needed");
  CHECK(f.affects == std::vector<std::string>{demo_env::cusparse, demo_env::consumer});
  CHECK(f.fix.find("condacuda repair -p '" + seed.prefix + "'") != std::string::npos);
  // The symbols nvJitLink would have provided are its consequence, not causes of their own.
  CHECK(with_code(report, doctor::code::undefined_symbol).empty());
}

TEST_CASE("a healthy env has no finding") {
  // The seed as repair leaves it: nvJitLink linked next to cuSPARSE.
  TempDir t("diag-healthy");
  auto seed = seed_with_two_consumers(t);
  std::filesystem::create_symlink("../../nvjitlink/lib/libnvJitLink.so.12",
                                  seed.prefix + "/" + demo_env::cusparse_dir + "/libnvJitLink.so.12");
  auto report = doctor_of(seed.prefix, std::nullopt);
  CHECK(report.healthy());
  CHECK(report.findings.empty());
  REQUIRE(report.roots.size() == 5);
  for (const auto& r : report.roots) {
    INFO(r.file);
    CHECK(r.loads);
  }
}

TEST_CASE("a consumer built for another major: pip's steps, or conda's command in words") {
  using namespace condacuda;
  inventory::Inventory inv;
  auto pip = doctor::consumer_rebuild("pip", "cupy-cuda11x", "12.3.0", "", inv, 12);
  REQUIRE(pip);
  CHECK(pip->built == 11);
  CHECK(pip->actions.size() == 2);
  CHECK(pip->words == "`pip uninstall -y cupy-cuda11x` then `pip install cupy-cuda12x`");
  auto conda = doctor::consumer_rebuild("conda", "pytorch", "2.5.1", "py3.11_cuda11.8_cudnn8.7.0_0", inv, 12);
  REQUIRE(conda);
  CHECK(conda->built == 11);
  CHECK(conda->actions.empty()); // a conda step is the user's: words only
  CHECK(conda->words == "`conda install pytorch pytorch-cuda=12.4 -c pytorch -c nvidia` (or mamba/pixi)");
  CHECK(conda->evidence == "its build string py3.11_cuda11.8_cudnn8.7.0_0");
  CHECK_FALSE(doctor::consumer_rebuild("pip", "cupy-cuda12x", "13.6.0", "", inv, 12)); // built for the env's major
  CHECK_FALSE(doctor::consumer_rebuild("pip", "numpy", "2.1.0", "", inv, 12));         // nothing says
  CHECK_FALSE(doctor::consumer_rebuild("pip", "cupy-cuda11x", "12.3.0", "", inv, -1)); // no env major
}
