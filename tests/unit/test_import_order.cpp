// doctor/import_order on a compiled env whose consumers share sonames in a
// chain: A and B share libcudart.so.12 (A reaches conda's older copy, B
// needs a symbol only the wheel's has), B and C share libnvJitLink.so.12 (B
// reaches the 12.0 copy, C needs _12_1), A and C share nothing, and D reaches
// the very file C does. The real loader (the dlopen probe) is the oracle for
// every order the findings name.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "doctor/import_order.hpp"
#include "report/doctor_report.hpp"
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

namespace {
// The chain env plus a second b and a second c in folders of their own: each
// loads as its twin does, by the same files (reached by other paths).
const std::string b2 = site + "/beta2/_b2.so", c2 = site + "/gamma2/_c2.so";

std::string build_twins_env(const TempDir& t) {
  const std::string env = build_chain_env(t);
  const std::string p = env + "/";
  fixture::shared_library(p + b2,
                          "int cudaNewApi(void);\nint nvJitLinkVersion(unsigned*, unsigned*);\n"
                          "int fb2(void) { unsigned x, y; return cudaNewApi() + nvJitLinkVersion(&x, &y); }\n",
                          {"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../../..",
                           "-L" + p + demo_env::cudart_dir, "-l:libcudart.so.12", "-L" + p + "lib", "-l:libnvJitLink.so.12"});
  fixture::shared_library(p + c2, "int __nvJitLinkAddData_12_1(void);\nint fc2(void) { return __nvJitLinkAddData_12_1(); }\n",
                          {"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/nvjitlink/lib", "-L" + p + demo_env::nvjitlink_dir,
                           "-l:libnvJitLink.so.12"});
  return env;
}

std::vector<std::string> class_of(const doctor::DoctorReport& report, loader::FileSystemView& files, const std::string& root) {
  for (const auto& cls : doctor::root_classes(report, files)) {
    std::vector<std::string> out;
    for (auto i : cls) out.push_back(report.roots[i].file);
    if (std::find(out.begin(), out.end(), root) != out.end()) return out;
  }
  return {};
}

std::vector<doctor::Finding> pass(Doctor& doc, const doctor::OrderPass& how) {
  loader::Simulator sim(doc.report.inputs.config, doc.files);
  loader::Process host;
  sim.start_synthetic(host, loader::minimal_program_needs);
  return doctor::import_order_findings(doc.report, sim, host, doc.files, how);
}

// Every field a report shows.
std::string shown(const doctor::Finding& f) {
  std::string out = f.code + "|" + doctor::to_string(f.severity) + "|" + f.title + "|" + f.library + "|" + f.resolved + "|" +
                    f.expected + "|" + f.expected_package + "|" + f.first_error + "|" + f.fix;
  for (const auto& e : f.evidence) out += "|e:" + e;
  for (const auto& affected : f.affects) out += "|a:" + affected;
  return out;
}

std::vector<std::string> shown(const std::vector<doctor::Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(shown(f));
  return out;
}
} // namespace

TEST_CASE("import order: roots that load alike are one class; libraries others need are classes of their own") {
  TempDir t("order-classes");
  Doctor doc(build_twins_env(t));
  auto bs = class_of(doc.report, doc.files, b);
  std::sort(bs.begin(), bs.end());
  CHECK(bs == std::vector<std::string>{b, b2});
  auto cs = class_of(doc.report, doc.files, c);
  std::sort(cs.begin(), cs.end());
  CHECK(cs == std::vector<std::string>{d, c, c2}); // d is built as c is, in its own folder (sorted: delta < gamma)
  CHECK(class_of(doc.report, doc.files, a) == std::vector<std::string>{a});
  // Another root's closure holds each copy: its identity matters, never grouped.
  CHECK(class_of(doc.report, doc.files, old_jit) == std::vector<std::string>{old_jit});
  CHECK(class_of(doc.report, doc.files, new_jit) == std::vector<std::string>{new_jit});
}

TEST_CASE("import order: the grouped pass gives the exhaustive pass's findings, each member with its own names") {
  TempDir t("order-grouped");
  Doctor doc(build_twins_env(t));
  auto grouped = pass(doc, {});
  auto exhaustive = pass(doc, {.grouped = false});
  REQUIRE(grouped.size() == 2);
  CHECK(shown(grouped) == shown(exhaustive));
  for (const auto& f : grouped) {
    CHECK(f.code == doctor::code::import_order);
    CHECK(names(f, b2)); // b2 fails after a (libcudart) and c2 after b2 (libnvJitLink), as their twins
    if (f.library == "libnvJitLink.so.12") CHECK(names(f, c2));
  }
  // A member's own order, named by the member, is the real loader's.
  auto b2c2 = real(doc.prefix, b2, c2);
  CHECK_FALSE(b2c2.ok);
  CHECK(real(doc.prefix, c2, b2).ok);
}

TEST_CASE("import order: past the cap the pass says which orders it did not simulate") {
  TempDir t("order-cap");
  Doctor doc(build_twins_env(t));
  auto none = pass(doc, {.max_orders = 0});
  REQUIRE(none.size() == 1);
  CHECK(none[0].code == doctor::code::import_order_skipped);
  CHECK(none[0].severity == doctor::Severity::info);
  CHECK(none[0].title.find("not simulated: the import-order pass stops at 0 simulated orders") != std::string::npos);
  for (const auto& root : {a, b, b2, c, c2, d}) CHECK_MESSAGE(names(none[0], root), root);
  // Room for some orders: what was simulated is still reported, the rest said.
  auto some = pass(doc, {.max_orders = 1});
  REQUIRE_FALSE(some.empty());
  CHECK(some.back().code == doctor::code::import_order_skipped);
  // Enough room: no word of a cap.
  auto all = pass(doc, {});
  CHECK(std::none_of(all.begin(), all.end(), [](const auto& f) { return f.code == doctor::code::import_order_skipped; }));
}

// For tests/e2e/test_import_order_scale.sh: on the env CONDACUDA_ORDER_ENV
// (as `doctor --no-ld-library-path` sees it, the env's python as host), the
// grouped and the exhaustive pass as doctor's JSON findings, written to
// CONDACUDA_ORDER_OUT/{grouped,exhaustive}.json. Without those, nothing to do.
TEST_CASE("import order: grouped and exhaustive findings of CONDACUDA_ORDER_ENV") {
  const char* env = std::getenv("CONDACUDA_ORDER_ENV");
  const char* out = std::getenv("CONDACUDA_ORDER_OUT");
  if (!env || !out) return;
  sys::DiskFileView files{sys::host_machine()};
  doctor::DoctorReport report = doctor::run_doctor(demo_env::inputs(env, files, std::nullopt), files);
  loader::Simulator sim(report.inputs.config, files);
  for (bool grouped : {true, false}) {
    loader::Process host;
    const auto& program = report.inputs.host_program;
    program ? sim.start_program(host, *program, *program) : sim.start_synthetic(host, loader::minimal_program_needs);
    doctor::DoctorReport only = report;
    only.findings = doctor::import_order_findings(report, sim, host, files, {.grouped = grouped});
    fixture::write_file(std::string(out) + (grouped ? "/grouped.json" : "/exhaustive.json"),
                        report::doctor_json(only).dump());
  }
}
