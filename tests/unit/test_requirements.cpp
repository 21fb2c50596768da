#include <doctest/doctest.h>

#include "inventory/records.hpp"
#include "inventory/requirements.hpp"

#include <string>
#include <vector>

using namespace condacuda::inventory;

namespace {
int cmp(const char* a, const char* b) {
  auto x = parse_pep440(a);
  auto y = parse_pep440(b);
  REQUIRE(x);
  REQUIRE(y);
  return compare(*x, *y);
}
std::string normal(const char* v) {
  auto p = parse_pep440(v);
  return p ? p->to_string() : std::string("<invalid>");
}
std::optional<bool> marker(const char* m, const MarkerEnvironment& env) {
  auto r = evaluate_marker(m, env);
  REQUIRE_MESSAGE(r.ok(), std::string(m));
  return *r;
}
MarkerEnvironment py311() {
  MarkerEnvironment env;
  env.python_version = "3.11";
  env.python_full_version = "3.11.2";
  return env;
}
} // namespace

TEST_CASE("PEP 440: the specification's ordering") {
  const std::vector<const char*> ordered{"1.0.dev456", "1.0a1",   "1.0a2.dev456",       "1.0a12.dev456", "1.0a12",
                                         "1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456",
                                         "1.0rc1",     "1.0",     "1.0+abc.5",          "1.0+abc.7",     "1.0+5",
                                         "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1"};
  for (std::size_t i = 0; i + 1 < ordered.size(); ++i) {
    CAPTURE(ordered[i]);
    CAPTURE(ordered[i + 1]);
    CHECK(cmp(ordered[i], ordered[i + 1]) < 0);
    CHECK(cmp(ordered[i + 1], ordered[i]) > 0);
  }
  CHECK(cmp("1.0", "1.0.0") == 0);
  CHECK(cmp("1!0.5", "2.0") > 0); // epoch first
  CHECK(cmp("9.10.2.21", "9.1.0") > 0);
  CHECK(cmp("1.0+abc", "1.0+abc.1") < 0);
  CHECK(cmp("1.0+1", "1.0+01") == 0);
}

TEST_CASE("PEP 440: normalisation of permitted spellings") {
  CHECK(normal("1.0-post1") == "1.0.post1");
  CHECK(normal("1.0RC1") == "1.0rc1");
  CHECK(normal("v1.0") == "1.0");
  CHECK(normal("  1.0  ") == "1.0");
  CHECK(normal("1.0alpha2") == "1.0a2");
  CHECK(normal("1.0-beta.3") == "1.0b3");
  CHECK(normal("1.0c1") == "1.0rc1");
  CHECK(normal("1.0pre") == "1.0rc0");
  CHECK(normal("1.0preview_2") == "1.0rc2");
  CHECK(normal("1.0a") == "1.0a0");
  CHECK(normal("1.0-1") == "1.0.post1");
  CHECK(normal("1.0rev3") == "1.0.post3");
  CHECK(normal("1.0r") == "1.0.post0");
  CHECK(normal("1.0.post") == "1.0.post0");
  CHECK(normal("1.0-dev") == "1.0.dev0");
  CHECK(normal("1.0a.dev1") == "1.0a0.dev1");
  CHECK(normal("01.002.0003") == "1.2.3");
  CHECK(normal("0!1.0") == "1.0");
  CHECK(normal("2!1.0") == "2!1.0");
  CHECK(normal("1.0+Ubuntu-1_02") == "1.0+ubuntu.1.2");
  CHECK(normal("12.8.90+cu128") == "12.8.90+cu128");
  auto v = parse_pep440("1.0b2.post345.dev456");
  REQUIRE(v);
  CHECK(v->is_prerelease());
  CHECK(v->is_postrelease());
  for (const char* bad : {"", " ", "1.", ".1", "1..0", "a1", "1.0+", "1.0+abc..1", "1.0-", "1.0a1b1", "1.0.dev1.post1",
                          "1.0 1", "vv1.0", "1!", "!1.0", "1.0post.", "1.0.*", "1.0-foo"})
    CHECK_MESSAGE(!parse_pep440(bad), std::string(bad));
  CHECK(!parse_pep440(std::string("1.0\0x", 5)));
  // Numbers are digit strings: no overflow, exact order.
  std::string big(100, '9');
  auto huge = parse_pep440("1." + big);
  REQUIRE(huge);
  CHECK(huge->release[1] == big);
  CHECK(cmp(("1." + big).c_str(), ("1." + big + "0").c_str()) < 0);
  CHECK(cmp(("1." + big).c_str(), "1.99999999999999999999") > 0);
  CHECK(!parse_pep440(std::string(300, '1'))); // longer than a version
}

TEST_CASE("PEP 440: specifiers") {
  CHECK(pep440_satisfies("9.10.2.21", "==9.10.2.21") == true);
  CHECK(pep440_satisfies("9.1.0", "==9.10.2.21") == false);
  CHECK(pep440_satisfies("9.10.2.21.0", "==9.10.2.21") == true); // zero padding
  CHECK(pep440_satisfies("9.10.2.21+local", "==9.10.2.21") == true); // no local in the specifier
  CHECK(pep440_satisfies("9.10.2.21+local", "==9.10.2.21+other") == false);
  CHECK(pep440_satisfies("12.4", ">=12.1,<13") == true);
  CHECK(pep440_satisfies("13.0", ">=12.1,<13") == false);
  CHECK(pep440_satisfies("12.0.1", ">=12.1,<13") == false);
  CHECK(pep440_satisfies("12.1", " >= 12.1 , < 13 ") == true);
  // ~=2.21 is >=2.21,==2.*
  CHECK(pep440_satisfies("2.22", "~=2.21") == true);
  CHECK(pep440_satisfies("2.21.5", "~=2.21") == true);
  CHECK(pep440_satisfies("3.0", "~=2.21") == false);
  CHECK(pep440_satisfies("2.20", "~=2.21") == false);
  CHECK(pep440_satisfies("2.21.9", "~=2.21.5") == true);
  CHECK(pep440_satisfies("2.22.0", "~=2.21.5") == false);
  CHECK(pep440_satisfies("1.4.5", "~=1.4.5a4") == true);
  // Prefix matching.
  CHECK(pep440_satisfies("12.4.127", "==12.*") == true);
  CHECK(pep440_satisfies("12", "==12.*") == true);
  CHECK(pep440_satisfies("13.0", "==12.*") == false);
  CHECK(pep440_satisfies("120.0", "==12.*") == false);
  CHECK(pep440_satisfies("1.1rc1", "==1.1.*") == true);
  CHECK(pep440_satisfies("1.1.post1", "==1.1.*") == true);
  CHECK(pep440_satisfies("1.1", "==1.1.0.*") == true);
  CHECK(pep440_satisfies("1!1.1", "==1.1.*") == false);
  CHECK(pep440_satisfies("1.2.3", "!=1.2.*") == false);
  CHECK(pep440_satisfies("1.3", "!=1.2.*") == true);
  CHECK(pep440_satisfies("1.2", "!=1.2") == false);
  CHECK(pep440_satisfies("1.2.1", "!=1.2") == true);
  // Arbitrary equality compares text and needs no PEP 440 version.
  CHECK(pep440_satisfies("foo", "===foo") == true);
  CHECK(pep440_satisfies("FOO", "===foo") == true);
  CHECK(pep440_satisfies("1.0.0", "===1.0") == false);
  CHECK(pep440_satisfies("foo", ">=1") == std::nullopt);
  // The exclusive comparisons.
  CHECK(pep440_satisfies("1.7.1", ">1.7") == true);
  CHECK(pep440_satisfies("1.7.0.post1", ">1.7") == false);
  CHECK(pep440_satisfies("1.7.0.post3", ">1.7.post2") == true);
  CHECK(pep440_satisfies("1.7+local", ">1.7") == false);
  CHECK(pep440_satisfies("1.7+local", "<=1.7") == true);
  CHECK(pep440_satisfies("13.0.0rc1", "<13") == false);
  CHECK(pep440_satisfies("13.0.0rc1", "<13.0.0rc2") == true);
  CHECK(pep440_satisfies("12.9", "<13") == true);
  // An installed pre-release is judged by the order alone (pip check).
  CHECK(pep440_satisfies("13.0.0rc1", ">=12") == true);
  CHECK(pep440_satisfies("2.0.dev1", ">=1.0") == true);
  CHECK(pep440_satisfies("1.0a1", ">=1.0a1") == true);
  // Any version; unknown versions and malformed specifiers are unknown.
  CHECK(pep440_satisfies("1.0", "") == true);
  CHECK(pep440_satisfies("", ">=1") == std::nullopt);
  CHECK(pep440_satisfies("unknown", "") == std::nullopt);
  for (const char* bad : {"==", ">=", "1.0", ">=1,", ",>=1", ">=1,,<2", "=>1", "=1", "~=1", "<1.*", "~=1.0.*",
                          ">=1.0+local", "==1.0a1.*", "== 1.0 1", ">=1;", "<>1", "==1.0.*.*"}) {
    CAPTURE(bad);
    CHECK(pep440_satisfies("1.0", bad) == std::nullopt);
    CHECK(!normalize_pep440_specifiers(bad));
  }
  CHECK(normalize_pep440_specifiers(" >= 1.0 ,<2.0-RC1") == ">=1.0,<2.0rc1");
  CHECK(normalize_pep440_specifiers("==12.*") == "==12.*");
  CHECK(normalize_pep440_specifiers("===Foo") == "===Foo");
  CHECK(normalize_pep440_specifiers("") == "");
  CHECK(pep440_satisfies("1." + std::string(100, '9'), ">=1." + std::string(99, '9')) == true);
}

TEST_CASE("PEP 508: Requires-Dist lines as torch and jax wheels write them") {
  auto cudnn = parse_requires_dist(
      "nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\" and platform_machine == \"x86_64\"");
  REQUIRE(cudnn.ok());
  CHECK(cudnn->name == "nvidia-cudnn-cu12");
  CHECK(cudnn->specifiers == "==9.10.2.21");
  CHECK(cudnn->marker == "platform_system == \"Linux\" and platform_machine == \"x86_64\"");
  CHECK(cudnn->kind == Requirement::Kind::wheel);
  CHECK(applies(*cudnn, MarkerEnvironment{}) == true);
  CHECK(satisfies(*cudnn, "9.10.2.21") == true);
  CHECK(satisfies(*cudnn, "9.1.0") == false);
  MarkerEnvironment arm;
  arm.platform_machine = "aarch64";
  CHECK(applies(*cudnn, arm) == false);

  auto nccl = parse_requires_dist("nvidia-nccl-cu12==2.27.3; platform_system == \"Linux\"");
  REQUIRE(nccl.ok());
  CHECK(nccl->name == "nvidia-nccl-cu12");
  CHECK(satisfies(*nccl, "2.27.3") == true);
  CHECK(satisfies(*nccl, "2.21.5") == false);

  auto triton = parse_requires_dist("triton==3.4.0; platform_system == \"Linux\"");
  REQUIRE(triton.ok());
  CHECK(triton->specifiers == "==3.4.0");

  auto sympy = parse_requires_dist("sympy>=1.13.3");
  REQUIRE(sympy.ok());
  CHECK(sympy->marker.empty());
  CHECK(applies(*sympy, MarkerEnvironment{}) == true);

  auto jax = parse_requires_dist("jax[cuda12]>=0.4 ; extra == \"cuda\"");
  REQUIRE(jax.ok());
  CHECK(jax->name == "jax");
  CHECK(jax->extras == std::vector<std::string>{"cuda12"});
  CHECK(jax->specifiers == ">=0.4");
  CHECK(applies(*jax, MarkerEnvironment{}) == false); // extras are not installed
  MarkerEnvironment with_cuda;
  with_cuda.extras = {"CUDA"};
  CHECK(applies(*jax, with_cuda) == true);

  auto numpy = parse_requires_dist("numpy (>=1.21)");
  REQUIRE(numpy.ok());
  CHECK(numpy->specifiers == ">=1.21");
  auto numpy2 = parse_requires_dist("NumPy (>=1.21, <2.0); python_version >= '3.9'");
  REQUIRE(numpy2.ok());
  CHECK(numpy2->name == "numpy");
  CHECK(numpy2->specifiers == ">=1.21,<2.0");
  CHECK(applies(*numpy2, py311()) == true);
  CHECK(applies(*numpy2, MarkerEnvironment{}) == std::nullopt); // python unknown

  auto url = parse_requires_dist("foo @ https://x/y.whl");
  REQUIRE(url.ok());
  CHECK(url->name == "foo");
  CHECK(url->url == "https://x/y.whl");
  CHECK(url->specifiers.empty());
  auto url_marker = parse_requires_dist("Foo_Bar[a, b] @ file:///w/x.whl ; os_name == 'posix'");
  REQUIRE(url_marker.ok());
  CHECK(url_marker->name == "foo-bar");
  CHECK(url_marker->extras == std::vector<std::string>{"a", "b"});
  CHECK(url_marker->marker == "os_name == 'posix'");

  auto cu13 = parse_requires_dist("nvidia-cublas==13.0.0.19; extra == \"cuda13\"");
  REQUIRE(cu13.ok());
  auto plain = parse_requires_dist("typing-extensions>=4.10.0");
  REQUIRE(plain.ok());
  CHECK(plain->name == "typing-extensions");
  auto normalised = parse_requires_dist("Foo.Bar_baz >= 1.0.0-RC1");
  REQUIRE(normalised.ok());
  CHECK(normalised->name == "foo-bar-baz");
  CHECK(normalised->specifiers == ">=1.0.0rc1");
  CHECK(normalised->text == "Foo.Bar_baz >= 1.0.0-RC1");
}

TEST_CASE("PEP 508: markers") {
  auto env = py311();
  CHECK(marker("python_version >= \"3.9\"", env) == true);
  CHECK(marker("python_version < \"3.10\"", env) == false); // versions, not strings: 3.11 > 3.10
  CHECK(marker("python_version > '3.9'", env) == true);
  CHECK(marker("python_full_version >= '3.11.1'", env) == true);
  CHECK(marker("python_full_version < '3.11.1'", env) == false);
  CHECK(marker("python_version == '3.*'", env) == true);
  CHECK(marker("python_version ~= '3.10'", env) == true);
  CHECK(marker("python_version in '3.10 3.11'", env) == true);
  CHECK(marker("python_version not in '3.10 3.11'", env) == false);
  CHECK(marker("'3.9' < python_version", env) == true); // the variable on the right
  CHECK(marker("sys_platform == 'linux' and platform_machine == 'x86_64'", env) == true);
  CHECK(marker("sys_platform == 'win32' or sys_platform == 'linux'", env) == true);
  CHECK(marker("sys_platform == 'win32' or (sys_platform == 'linux' and python_version < '3.8')", env) == false);
  CHECK(marker("(sys_platform == 'darwin' or platform_machine == 'x86_64') and python_version >= '3.10'", env) == true);
  CHECK(marker("platform_system != 'Windows' and implementation_name == 'cpython'", env) == true);
  CHECK(marker("platform_python_implementation == 'CPython'", env) == true);
  CHECK(marker("python_implementation == 'CPython' and os.name == 'posix'", env) == true); // legacy names
  CHECK(marker("platform_machine == 'aarch64' and python_version >= '3.9'", env) == false);
  CHECK(marker("implementation_version >= '3.11'", env) == true); // CPython: python_full_version
  CHECK(marker("'linux' in sys_platform", env) == true);
  CHECK(marker("platform_machine < 'y'", env) == true); // strings compare as strings
  // Unknown values: three-valued logic.
  MarkerEnvironment unknown_python;
  CHECK(marker("python_version >= '3.9'", unknown_python) == std::nullopt);
  CHECK(marker("platform_system == 'Windows' and python_version >= '3.9'", unknown_python) == false);
  CHECK(marker("platform_system == 'Linux' and python_version >= '3.9'", unknown_python) == std::nullopt);
  CHECK(marker("platform_system == 'Linux' or python_version >= '3.9'", unknown_python) == true);
  CHECK(marker("platform_release >= '5.0'", env) == std::nullopt);
  CHECK(marker("some_future_variable == 'x'", env) == std::nullopt);
  CHECK(marker("platform_machine ~= 'x86'", env) == std::nullopt); // ~= means nothing for strings
  MarkerEnvironment full_only;
  full_only.python_full_version = "3.12.1";
  CHECK(marker("python_version == '3.12'", full_only) == true); // derived from python_full_version
  // extra
  CHECK(marker("extra == 'cuda'", env) == false);
  CHECK(marker("extra != 'cuda'", env) == true);
  env.extras = {"cuda_12"};
  CHECK(marker("extra == 'cuda-12'", env) == true);
  CHECK(marker("extra == 'cpu'", env) == false);
  CHECK(marker("'cuda-12' in extras", env) == true);
  // Malformed: an Error, never a crash.
  for (const char* bad : {"", "   ", "(python_version >= '3.9'", "python_version >= '3.9')", "python_version >= ",
                          "python_version '3.9'", "python_version >= '3.9", "and", "python_version >= '3.9' and",
                          "python_version = '3.9'", "python_version >= 3.9", "python_version not '3.9'",
                          "os_name == 'posix' or or os_name == 'nt'", "()", "os_name == 'posix' os_name",
                          "os_name == 'a' ; x", "os_name == 'a\x01'"}) {
    CAPTURE(bad);
    CHECK_FALSE(evaluate_marker(bad, env).ok());
  }
  CHECK_FALSE(evaluate_marker(std::string(5000, '('), env).ok());
  CHECK_FALSE(evaluate_marker(std::string(2000, '(') + "os_name == 'posix'" + std::string(2000, ')'), env).ok());
  std::string deep = std::string(50, '(') + "os_name == 'posix'" + std::string(50, ')');
  CHECK(marker(deep.c_str(), env) == true);
}

TEST_CASE("PEP 508: malformed Requires-Dist lines are errors") {
  std::string nul_line = "foo>=1.0";
  nul_line[3] = '\0';
  std::string long_line = "foo>=" + std::string(10 * 1024, '1');
  std::string long_marker = "foo; " + std::string(10 * 1024, '(');
  std::vector<std::string> bad{"",
                               "   ",
                               "==",
                               "foo bar baz qux",
                               "foo (>=1.0",
                               "foo >=1.0)",
                               "foo ((>=1.0))",
                               "foo[bar >=1",
                               "foo[b@r]",
                               "foo[a,,b]",
                               "foo >=",
                               "foo >=1.0;",
                               "foo; python_version >= '3.9",
                               "foo; (python_version >= '3.9'",
                               "foo @",
                               "foo @ https://x/y.whl extra",
                               "-foo",
                               ">=1.0",
                               "foo ==1.0.*.*",
                               "foo >=1.0+local",
                               "foo\tbar",
                               nul_line,
                               long_line,
                               long_marker,
                               "foo\n>=1"};
  for (const auto& line : bad) {
    CAPTURE(line.substr(0, 60));
    auto r = parse_requires_dist(line);
    CHECK_FALSE(r.ok());
    if (!r.ok()) CHECK_FALSE(r.error().message.empty());
  }
}

TEST_CASE("conda: VersionOrder") {
  auto order = [](const std::string& a, const std::string& b) {
    auto c = conda_compare(a, b);
    REQUIRE_MESSAGE(c, std::string(a + " vs " + b));
    return *c;
  };
  // The order conda's VersionOrder docstring lists.
  const std::vector<const char*> ordered{"0.4",     "0.4.0",    "0.4.1.rc", "0.4.1",   "0.5a1",   "0.5b3",     "0.5C1",
                                         "0.5",     "0.9.6",    "0.960923", "1.0",     "1.1dev1", "1.1_",      "1.1a1",
                                         "1.1.0dev1", "1.1.a1", "1.1.0rc1", "1.1.0",   "1.1.0post1", "1.1post1", "1996.07.12",
                                         "1!0.4.1", "1!3.1.1.6", "2!0.4.1"};
  for (std::size_t i = 0; i + 1 < ordered.size(); ++i) {
    CAPTURE(ordered[i]);
    CAPTURE(ordered[i + 1]);
    CHECK(order(ordered[i], ordered[i + 1]) <= 0);
    CHECK(order(ordered[i + 1], ordered[i]) >= 0);
  }
  CHECK(order("0.4", "0.4.0") == 0);
  CHECK(order("0.4.1.rc", "0.4.1.RC") == 0);
  CHECK(order("1.1.0dev1", "1.1.dev1") == 0);
  CHECK(order("1.1.0post1", "1.1.post1") == 0);
  CHECK(order("0.4.1", "0.5a1") < 0);
  CHECK(order("10.0a0", "9.10.2.21") > 0);
  CHECK(order("10.0.0", "10.0a0") > 0); // "a0" sorts before 0
  CHECK(order("12.4.5.8", "12.4.5.10") < 0);
  CHECK(order("1.0.1_", "1.0.1a") < 0); // openssl-like
  CHECK(order("1.0.1", "1.0.1a") > 0);
  CHECK(order("2.21.5-1", "2.21.5_1") == 0); // "-" read as "_" when there is no "_"
  CHECK(order("1.0+1", "1.0+2") < 0);
  CHECK(order("1." + std::string(100, '9') + "", "1." + std::string(99, '9')) > 0);
  for (const char* bad : {"", "1..2", "1.2+", "+1", "1!2!3", "x!1", "1.2+3+4", "1.2-3_4", "1 2", "1,2", "1.2$"})
    CHECK_MESSAGE(!conda_compare(bad, "1.0"), std::string(bad));
}

TEST_CASE("conda: version specs") {
  CHECK(conda_satisfies("9.10.2.21", ">=9.1,<10.0a0") == true);
  CHECK(conda_satisfies("10.0.0", ">=9.1,<10.0a0") == false);
  CHECK(conda_satisfies("10.0.0rc1", ">=9.1,<10.0a0") == false); // rc sorts after a0
  CHECK(conda_satisfies("9.0.0", ">=9.1,<10.0a0") == false);
  CHECK(conda_satisfies("2.21.5.1", "2.21.5.*") == true);
  CHECK(conda_satisfies("2.21.5", "2.21.5.*") == true);
  CHECK(conda_satisfies("2.21.50", "2.21.5.*") == false); // component by component
  CHECK(conda_satisfies("2.22.0", "2.21.5.*") == false);
  CHECK(conda_satisfies("1.7.1", "1.7*") == true);
  CHECK(conda_satisfies("1.2", "1.2|1.3") == true);
  CHECK(conda_satisfies("1.3.0", "1.2|1.3") == true);
  CHECK(conda_satisfies("1.4", "1.2|1.3") == false);
  CHECK(conda_satisfies("1.2.1", "1.2") == false); // a bare version is exact
  CHECK(conda_satisfies("1.5", ">=1,<2|>=3") == true);
  CHECK(conda_satisfies("2.5", ">=1,<2|>=3") == false);
  CHECK(conda_satisfies("3.1", ">=1,<2|>=3") == true);
  CHECK(conda_satisfies("1.5", "(>=1|>=3),<2") == true);
  CHECK(conda_satisfies("12.4.5.8", ">=12.4.5.8,<13.0a0") == true);
  CHECK(conda_satisfies("13.0.0", ">=12.4.5.8,<13.0a0") == false);
  CHECK(conda_satisfies("12.8", ">=12.0,<13") == true);
  CHECK(conda_satisfies("1.2", "==1.2.0") == true);
  CHECK(conda_satisfies("1.2.1", "!=1.2") == true);
  CHECK(conda_satisfies("1.2.1", "!=1.2.*") == false);
  CHECK(conda_satisfies("1.3", "!=1.2.*") == true);
  CHECK(conda_satisfies("1.2.9", "=1.2") == true); // "=" starts with
  CHECK(conda_satisfies("1.3", "=1.2") == false);
  CHECK(conda_satisfies("2.22", "~=2.21") == true);
  CHECK(conda_satisfies("3.0", "~=2.21") == false);
  CHECK(conda_satisfies("2.20", "~=2.21") == false);
  CHECK(conda_satisfies("1.2.3", "1.*.3") == true); // a glob inside
  CHECK(conda_satisfies("1.2.4", "1.*.3") == false);
  CHECK(conda_satisfies("anything", "*") == true);
  CHECK(conda_satisfies("1.0", "") == true);
  CHECK(conda_satisfies("1.0", "^1\\.0$") == std::nullopt); // regular expressions are not evaluated
  CHECK(conda_satisfies("", ">=1") == std::nullopt);
  CHECK(conda_satisfies("1..0", ">=1") == std::nullopt);
  for (const char* bad : {"==", ">=", "<>1", "=>1", "~=1", "~=1.2.*", ">= 1", "(>=1", ">=1)", ">=1,", "|1", "1 2",
                          ">=1,,<2", "!1.2", "1.2[x]"}) {
    CAPTURE(bad);
    CHECK(conda_satisfies("1.0", bad) == std::nullopt);
  }
  CHECK(conda_satisfies("1.0", std::string(5000, '(') + "1.0" + std::string(5000, ')')) == std::nullopt);
}

TEST_CASE("conda: match specs from conda-meta depends") {
  auto cudnn = parse_conda_match_spec("cudnn >=9.1,<10.0a0");
  REQUIRE(cudnn.ok());
  CHECK(cudnn->kind == Requirement::Kind::conda);
  CHECK(cudnn->name == "cudnn");
  CHECK(cudnn->specifiers == ">=9.1,<10.0a0");
  CHECK(cudnn->text == "cudnn >=9.1,<10.0a0");
  CHECK(satisfies(*cudnn, "9.10.2.21") == true);
  CHECK(satisfies(*cudnn, "10.0.0") == false);
  CHECK(applies(*cudnn, MarkerEnvironment{}) == true);

  auto nccl = parse_conda_match_spec("nccl 2.21.5.*");
  REQUIRE(nccl.ok());
  CHECK(nccl->specifiers == "2.21.5.*");
  CHECK(satisfies(*nccl, "2.21.5.1") == true);
  CHECK(satisfies(*nccl, "2.23.4.1") == false);

  auto cublas = parse_conda_match_spec("libcublas >=12.4.5.8,<13.0a0");
  REQUIRE(cublas.ok());
  CHECK(satisfies(*cublas, "12.6.4.1") == true);

  auto cuda_version = parse_conda_match_spec("cuda-version >=12.0,<13");
  REQUIRE(cuda_version.ok());
  CHECK(cuda_version->name == "cuda-version");
  CHECK(satisfies(*cuda_version, "12.8") == true);
  CHECK(satisfies(*cuda_version, "13.0") == false);

  auto abi = parse_conda_match_spec("python_abi 3.11.* *_cp311");
  REQUIRE(abi.ok());
  CHECK(abi->name == "python_abi"); // conda names are not PEP 503-normalised
  CHECK(abi->specifiers == "3.11.*");
  CHECK(satisfies(*abi, "3.11") == true);
  CHECK(satisfies(*abi, "3.12") == false);

  auto exact = parse_conda_match_spec("libfoo 1.2.3 h123_0");
  REQUIRE(exact.ok());
  CHECK(exact->specifiers == "1.2.3");
  CHECK(satisfies(*exact, "1.2.3") == true);
  CHECK(satisfies(*exact, "1.2.30") == false);

  auto any = parse_conda_match_spec("pkg");
  REQUIRE(any.ok());
  CHECK(any->specifiers.empty());
  CHECK(satisfies(*any, "0.1") == true);

  auto eq = parse_conda_match_spec("pkg ==1.2");
  REQUIRE(eq.ok());
  CHECK(eq->specifiers == "1.2");
  CHECK(satisfies(*eq, "1.2.0") == true);
  CHECK(satisfies(*eq, "1.2.1") == false);

  auto fuzzy = parse_conda_match_spec("pkg =1.2");
  REQUIRE(fuzzy.ok());
  CHECK(fuzzy->specifiers == "1.2*");
  CHECK(satisfies(*fuzzy, "1.2.7") == true);

  auto fuzzy_build = parse_conda_match_spec("pkg =1.2 h0_1");
  REQUIRE(fuzzy_build.ok());
  CHECK(fuzzy_build->specifiers == "1.2"); // with a build, "=1.2" is exact (_sanitize_version_str)

  auto either = parse_conda_match_spec("pkg 1.2|1.3");
  REQUIRE(either.ok());
  CHECK(satisfies(*either, "1.3") == true);
  CHECK(satisfies(*either, "1.4") == false);

  auto ranges = parse_conda_match_spec("pkg >=1,<2|>=3");
  REQUIRE(ranges.ok());
  CHECK(satisfies(*ranges, "3.5") == true);
  CHECK(satisfies(*ranges, "2.5") == false);

  auto channel = parse_conda_match_spec("conda-forge::pkg >=1.0");
  REQUIRE(channel.ok());
  CHECK(channel->name == "pkg");
  CHECK(channel->specifiers == ">=1.0");
  auto subdir = parse_conda_match_spec("conda-forge/linux-64::libcudnn 9.*");
  REQUIRE(subdir.ok());
  CHECK(subdir->name == "libcudnn");

  auto spaced = parse_conda_match_spec("numpy >=1.0 , < 2.0 py34_0");
  REQUIRE(spaced.ok());
  CHECK(spaced->specifiers == ">=1.0,<2.0");
  auto glued = parse_conda_match_spec("numpy>=1.8");
  REQUIRE(glued.ok());
  CHECK(glued->name == "numpy");
  CHECK(glued->specifiers == ">=1.8");
  auto build_after_space = parse_conda_match_spec("numpy >=1.0 =py34_0");
  REQUIRE(build_after_space.ok());
  CHECK(build_after_space->specifiers == ">=1.0");
  auto build_eq = parse_conda_match_spec("numpy 1.7.1=py27_0");
  REQUIRE(build_eq.ok());
  CHECK(build_eq->specifiers == "1.7.1");
  auto star = parse_conda_match_spec("__glibc >=2.17,<3.0.a0");
  REQUIRE(star.ok());
  CHECK(star->name == "__glibc");
  auto star_build = parse_conda_match_spec("libblas * *mkl");
  REQUIRE(star_build.ok());
  CHECK(star_build->specifiers.empty());
  auto comment = parse_conda_match_spec("pkg >=1 # why");
  REQUIRE(comment.ok());
  CHECK(comment->specifiers == ">=1");

  std::string nul_spec = "pkg >=1";
  nul_spec[4] = '\0';
  for (const std::string& bad : std::vector<std::string>{"", "  ", "==", "foo bar baz qux", "pkg ==", "pkg >=",
                                                         "pkg >=1,", "pkg (>=1", "pkg[version='>=1']", ">=1", "pkg <>1",
                                                         "pkg 1..2", "p/k/g >=1", "conda-forge::", nul_spec,
                                                         "pkg " + std::string(10 * 1024, '1')}) {
    CAPTURE(bad.substr(0, 60));
    CHECK_FALSE(parse_conda_match_spec(bad).ok());
  }
}

TEST_CASE("METADATA: every Requires-Dist in order") {
  auto meta = parse_metadata("Metadata-Version: 2.1\n"
                             "Name: torch\n"
                             "Version: 2.8.0\n"
                             "Requires-Dist: filelock\n"
                             "Requires-Dist: nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\" and\n"
                             " platform_machine == \"x86_64\"\r\n"
                             "Summary: a summary\n"
                             "requires-dist: sympy>=1.13.3\r\n"
                             "Provides-Extra: opt\n"
                             "\n"
                             "Requires-Dist: in-the-body\n");
  CHECK(meta.name == "torch");
  CHECK(meta.version == "2.8.0");
  REQUIRE(meta.requires_dist.size() == 3);
  CHECK(meta.requires_dist[0] == "filelock");
  CHECK(meta.requires_dist[1] ==
        "nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\" and platform_machine == \"x86_64\"");
  CHECK(meta.requires_dist[2] == "sympy>=1.13.3");
  auto r = parse_requires_dist(meta.requires_dist[1]);
  REQUIRE(r.ok());
  CHECK(applies(*r, MarkerEnvironment{}) == true);
  CHECK(parse_metadata("Name: x\nVersion: 1\n").requires_dist.empty());
}
