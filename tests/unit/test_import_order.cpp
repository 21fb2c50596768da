// doctor/import_order on a compiled env whose consumers share sonames in a
// chain: A and B share libcudart.so.12 (A reaches conda's older copy, B
// needs a symbol only the wheel's has), B and C share libnvJitLink.so.12 (B
// reaches the 12.0 copy, C needs _12_1), A and C share nothing, and D reaches
// the very file C does. The real loader (the dlopen probe) is the oracle for
// every order the findings name.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "doctor/import_order.hpp"
#include "support/demo_env.hpp"
#include "support/fixture.hpp"
#include "support/oracle.hpp"
#include "sys/machine.hpp"

using namespace condacuda;
using fixture::TempDir;

namespace {

const std::string site = demo_env::site;
const std::string old_cudart = "lib/libcudart.so.12";
const std::string new_cudart = demo_env::cudart_dir + "/libcudart.so.12";
const std::string old_jit = "lib/libnvJitLink.so.12";
const std::string new_jit = demo_env::nvjitlink;
const std::string a = site + "/alpha/_a.so", b = site + "/beta/_b.so", c = site + "/gamma/_c.so", d = site + "/delta/_d.so";

// The env: two copies of each soname, four consumers.
std::string build_chain_env(const TempDir& t) {
  const std::string p = t.path() + "/env/";
  fixture::write_file(t / "cudart-new.map", "libcudart.so.12 { global: cudaRuntimeGetVersion; cudaNewApi; local: *; };\n");
  fixture::write_file(t / "cudart-old.map", "libcudart.so.12 { global: cudaRuntimeGetVersion; local: *; };\n");
  fixture::shared_library(p + new_cudart, "int cudaRuntimeGetVersion(int* v) { *v = 12080; return 0; }\nint cudaNewApi(void) { return 0; }\n",
                          {"-Wl,-soname,libcudart.so.12", "-Wl,--version-script=" + t / "cudart-new.map"});
  fixture::shared_library(p + old_cudart, "int cudaRuntimeGetVersion(int* v) { *v = 12000; return 0; }\n",
                          {"-Wl,-soname,libcudart.so.12", "-Wl,--version-script=" + t / "cudart-old.map"});
  demo_env::build_nvjitlink(p + new_jit, 4);
  demo_env::build_nvjitlink(p + old_jit, 0);
  const std::string conda_lib = "$ORIGIN/../../..";
  fixture::shared_library(p + a, "int cudaRuntimeGetVersion(int*);\nint fa(void) { int v; return cudaRuntimeGetVersion(&v); }\n",
                          {"-Wl,--enable-new-dtags,-rpath," + conda_lib, "-L" + p + "lib", "-l:libcudart.so.12"});
  fixture::shared_library(p + b,
                          "int cudaNewApi(void);\nint nvJitLinkVersion(unsigned*, unsigned*);\n"
                          "int fb(void) { unsigned x, y; return cudaNewApi() + nvJitLinkVersion(&x, &y); }\n",
                          {"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/cuda_runtime/lib:" + conda_lib,
                           "-L" + p + demo_env::cudart_dir, "-l:libcudart.so.12", "-L" + p + "lib", "-l:libnvJitLink.so.12"});
  for (const auto& consumer : {c, d})
    fixture::shared_library(p + consumer, "int __nvJitLinkAddData_12_1(void);\nint fc(void) { return __nvJitLinkAddData_12_1(); }\n",
                            {"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/nvjitlink/lib", "-L" + p + demo_env::nvjitlink_dir,
                             "-l:libnvJitLink.so.12"});
  return t.path() + "/env";
}

struct Doctor {
  sys::DiskFileView files{sys::host_machine()};
  doctor::DoctorReport report;
  std::string prefix;

  explicit Doctor(const std::string& env) : prefix(env) {
    report = doctor::run_doctor(demo_env::inputs(env, files, std::nullopt), files);
  }

  // import_order_findings over the named roots only, in a fresh host process.
  std::vector<doctor::Finding> findings_among(const std::vector<std::string>& roots) {
    doctor::DoctorReport only = report;
    std::erase_if(only.roots, [&](const doctor::RootResult& r) {
      return std::find(roots.begin(), roots.end(), r.file) == roots.end();
    });
    REQUIRE(only.roots.size() == roots.size());
    loader::Simulator sim(only.inputs.config, files);
    loader::Process host;
    sim.start_synthetic(host, loader::minimal_program_needs);
    return doctor::import_order_findings(only, sim, host, files);
  }
};

bool names(const doctor::Finding& f, const std::string& root) {
  return std::find(f.affects.begin(), f.affects.end(), root) != f.affects.end();
}

oracle::Outcome real(const std::string& env, const std::string& first, const std::string& second) {
  return oracle::real({{env + "/" + first}, {env + "/" + second}});
}

} // namespace

TEST_CASE("import order: three roots with a chain of shared sonames give one finding per shared soname") {
  TempDir t("order-chain");
  Doctor doc(build_chain_env(t));
  for (const auto& root : {a, b, c, d}) {
    auto it = std::find_if(doc.report.roots.begin(), doc.report.roots.end(), [&](const auto& r) { return r.file == root; });
    REQUIRE_MESSAGE(it != doc.report.roots.end(), root << " is a root");
    CHECK_MESSAGE(it->loads, root << " loads alone");
  }
  auto found = doc.findings_among({a, b, c});
  REQUIRE(found.size() == 2);
  const auto& rt = found[0].library == "libcudart.so.12" ? found[0] : found[1];
  const auto& jit = found[0].library == "libnvJitLink.so.12" ? found[0] : found[1];
  REQUIRE(rt.library == "libcudart.so.12");
  REQUIRE(jit.library == "libnvJitLink.so.12");
  CHECK(rt.severity == doctor::Severity::error);
  CHECK(jit.severity == doctor::Severity::error);
  CHECK(rt.title == "importing " + a + " then " + b + " fails: " + b + " gets libcudart.so.12 from the copy " + a + " loaded");
  CHECK(jit.title == "importing " + b + " then " + c + " fails: " + c + " gets libnvJitLink.so.12 from the copy " + b + " loaded");
  CHECK(names(rt, a));
  CHECK(names(rt, b));
  CHECK_FALSE(names(rt, c)); // c shares no soname with a: never paired with it
  CHECK(names(jit, b));
  CHECK(names(jit, c));
  CHECK_FALSE(names(jit, a));
  CHECK(rt.expected == new_cudart);
  CHECK(jit.expected == new_jit);
  CHECK(rt.evidence.back() == "the other order (" + b + " then " + a + ") works");
  CHECK(jit.evidence.back() == "the other order (" + c + " then " + b + ") works");

  // The real loader, in the same orders.
  auto ab = real(doc.prefix, a, b);
  CHECK_FALSE(ab.ok);
  CHECK(ab.error == rt.first_error);
  CHECK(real(doc.prefix, b, a).ok);
  auto bc = real(doc.prefix, b, c);
  CHECK_FALSE(bc.ok);
  CHECK(bc.error == jit.first_error);
  CHECK(real(doc.prefix, c, b).ok);
}

TEST_CASE("import order: a pair with no shared soname gives no finding; so does one sharing a soname's same file") {
  TempDir t("order-none");
  Doctor doc(build_chain_env(t));
  CHECK(doc.findings_among({a, c}).empty()); // libcudart vs libnvJitLink: nothing shared
  CHECK(doc.findings_among({c, d}).empty()); // both reach the wheel's libnvJitLink.so.12, the same file
  CHECK(real(doc.prefix, a, c).ok);
  CHECK(real(doc.prefix, c, a).ok);
  CHECK(real(doc.prefix, c, d).ok);
  CHECK(real(doc.prefix, d, c).ok);
  // The whole env: d pairs with b (the 12.0 copy) as c does, in the same finding.
  auto all = doc.findings_among({a, b, c, d});
  REQUIRE(all.size() == 2);
  for (const auto& f : all)
    if (f.library == "libnvJitLink.so.12") CHECK(names(f, d));
}
