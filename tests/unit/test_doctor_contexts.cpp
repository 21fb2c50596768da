// doctor/contexts: the not-activated context beside the activated one. The
// `not-activated` warning lists exactly the roots that load activated and
// fail not activated: a root that fails in both is the activated report's
// own finding (the launch does not matter to it), and one that loads not
// activated needs nothing. Each root's verdict in both contexts is recorded.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "doctor/contexts.hpp"

using namespace condacuda;

namespace {

doctor::RootResult root(const std::string& file, bool loads, const std::string& error = "") {
  doctor::RootResult r;
  r.file = file;
  r.kind = doctor::RootKind::library;
  r.loads = loads;
  r.first_error = error;
  return r;
}

std::vector<doctor::Finding> with_code(const doctor::DoctorReport& r, const std::string& code) {
  std::vector<doctor::Finding> out;
  for (const auto& f : r.findings)
    if (f.code == code) out.push_back(f);
  return out;
}

} // namespace

TEST_CASE("add_not_activated: the warning lists only the roots that load activated and fail not activated") {
  // Every pair of verdicts, the failing-in-both root first so that an
  // affects list or first error taken from it would show.
  doctor::DoctorReport activated, not_activated;
  activated.roots = {root("lib/both-fail.so", false, "both: libmissing.so: cannot open shared object file"),
                     root("lib/only-activated.so", true),
                     root("lib/both-load.so", true),
                     root("lib/only-not-activated.so", false, "activated: undefined symbol: f"),
                     root("lib/only-activated-2.so", true)};
  not_activated.roots = {root("lib/both-fail.so", false, "both, not activated: libmissing.so: cannot open shared object file"),
                         root("lib/only-activated.so", false, "not activated: undefined symbol: g, version X_12"),
                         root("lib/both-load.so", true),
                         root("lib/only-not-activated.so", true),
                         root("lib/only-activated-2.so", false, "not activated: second")};
  not_activated.inputs.config.ld_library_path = std::string("/opt/cuda-12.0/lib64");

  doctor::add_not_activated(activated, not_activated);

  const auto found = with_code(activated, doctor::code::not_activated);
  REQUIRE(found.size() == 1);
  const doctor::Finding& f = found[0];
  CHECK(f.severity == doctor::Severity::warning);
  const std::vector<std::string> only_activated = {"lib/only-activated.so", "lib/only-activated-2.so"};
  CHECK_MESSAGE(f.affects == only_activated,
                "the not-activated finding lists a root that does not load activated, or misses one");
  CHECK(f.title == "2 file(s) load only when the env is activated");
  CHECK_MESSAGE(f.first_error == "not activated: undefined symbol: g, version X_12",
                "the first error is not the first listed root's, not activated");
  // Every root keeps its verdict in both contexts.
  REQUIRE(activated.roots.size() == 5);
  for (std::size_t i = 0; i < activated.roots.size(); ++i) {
    REQUIRE(activated.roots[i].not_activated.has_value());
    CHECK(activated.roots[i].not_activated->loads == not_activated.roots[i].loads);
    CHECK(activated.roots[i].not_activated->first_error == not_activated.roots[i].first_error);
  }
  REQUIRE(activated.not_activated);
  CHECK(activated.not_activated->ld_library_path == std::string("/opt/cuda-12.0/lib64"));
}

TEST_CASE("add_not_activated: no warning when every failure not activated fails activated too") {
  doctor::DoctorReport activated, not_activated;
  activated.roots = {root("lib/a.so", false, "a"), root("lib/b.so", true)};
  not_activated.roots = {root("lib/a.so", false, "a, not activated"), root("lib/b.so", true)};
  doctor::add_not_activated(activated, not_activated);
  CHECK_MESSAGE(with_code(activated, doctor::code::not_activated).empty(),
                "a not-activated warning for a root that fails activated as well");
  REQUIRE(activated.roots[0].not_activated.has_value());
  CHECK_FALSE(activated.roots[0].not_activated->loads);
}

TEST_CASE("add_not_activated: an import-order failure not activated is its own warning unless the activated report has the same one") {
  // "The same" is the whole identity: code, library, the copy taken and the
  // copy expected. A not-activated failure that differs in any of them
  // (here only in the expected copy) is a launch-specific warning of its own.
  auto order = [](const std::string& expected) {
    doctor::Finding f;
    f.code = doctor::code::import_order;
    f.severity = doctor::Severity::error;
    f.library = "libnvJitLink.so.12";
    f.resolved = "/opt/cuda-12.0/lib64/libnvJitLink.so.12";
    f.expected = expected;
    f.title = "import order";
    return f;
  };
  for (const bool same : {true, false}) {
    CAPTURE(same);
    doctor::DoctorReport activated, not_activated;
    activated.findings = {order("lib/python3.11/site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12")};
    not_activated.findings = {order(same ? "lib/python3.11/site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12"
                                         : "lib/python3.11/site-packages/nvidia/cu13/lib/libnvJitLink.so.12")};
    doctor::add_not_activated(activated, not_activated);
    const auto orders = with_code(activated, doctor::code::import_order);
    REQUIRE(orders.size() == (same ? 1u : 2u));
    if (!same) {
      CHECK(orders[1].severity == doctor::Severity::warning);
      CHECK(orders[1].title == "without activation: import order");
      CHECK(orders[1].expected == "lib/python3.11/site-packages/nvidia/cu13/lib/libnvJitLink.so.12");
    }
  }
}
