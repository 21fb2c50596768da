// The release table (data, templates/releases.yml) and the driver version parser.
#include <doctest/doctest.h>

#include <algorithm>

#include "lock/driver.hpp"
#include "lock/release_table.hpp"
#include "util/embedded.hpp"

using namespace condacuda;
using namespace condacuda::lock;

TEST_CASE("the embedded release table parses and holds CUDA 12.1 ... 13.0 with their drivers") {
  auto table = embedded_release_table();
  REQUIRE(table.ok());
  CHECK(table->name == "condacuda-releases-2025.1");
  CHECK(table->sha256.size() == 64);
  CHECK(table->min_driver_branch(12) == 525);
  CHECK(table->min_driver_branch(13) == 580);
  CHECK_FALSE(table->min_driver_branch(14));
  REQUIRE(table->installer_row("13.0"));
  CHECK(table->installer_row("13.0")->installer_driver == "580.65.06");
  CHECK(table->installer_row("12.8")->release == "12.8.1");
  CHECK_FALSE(table->installer_row("12.3"));
  for (const char* r : {"12.1.1", "12.4.1", "12.6.3", "12.8.0", "12.8.1", "12.9.1", "13.0.0", "13.0.2"}) {
    auto it = std::find_if(table->releases.begin(), table->releases.end(), [&](const ReleaseRow& row) { return row.release == r; });
    REQUIRE_MESSAGE(it != table->releases.end(), r);
    CHECK_MESSAGE(it->components.size() == 8, r);
  }
}

TEST_CASE("the table the build compiled is the one parse_release_table reads from templates/releases.yml") {
  // The embedded text is the file's (cmake/embed.cmake); the compiled table
  // was parsed at build time (src/tools/compile_release_table.cpp).
  auto text = util::embedded_asset("templates/releases.yml");
  REQUIRE(text);
  auto parsed = parse_release_table(*text, "templates/releases.yml");
  REQUIRE(parsed.ok());
  const ReleaseTable compiled = compiled_release_table();
  CHECK(compiled.name == parsed->name);
  CHECK(compiled.sha256 == parsed->sha256);
  CHECK(compiled.same_version_as == parsed->same_version_as);
  REQUIRE(compiled.majors.size() == parsed->majors.size());
  for (std::size_t i = 0; i < compiled.majors.size(); ++i) {
    CHECK(compiled.majors[i].major == parsed->majors[i].major);
    CHECK(compiled.majors[i].min_driver_branch == parsed->majors[i].min_driver_branch);
  }
  REQUIRE(compiled.releases.size() == parsed->releases.size());
  for (std::size_t i = 0; i < compiled.releases.size(); ++i) {
    CHECK(compiled.releases[i].release == parsed->releases[i].release);
    CHECK(compiled.releases[i].installer_driver == parsed->releases[i].installer_driver);
    CHECK(compiled.releases[i].components == parsed->releases[i].components);
  }
  CHECK_FALSE(compiled.releases.empty());
}

TEST_CASE("a component version belongs to the releases listing it; the series is what they share") {
  auto table = embedded_release_table();
  REQUIRE(table.ok());
  // The build machine's CUDA 13 wheel set: cublas 13.1.0.3 moved within 13.0.x
  // (13.0.0 shipped 13.0.0.19); every version is listed by a 13.0.y row, so
  // the whole set is 13.0.
  const std::pair<const char*, const char*> cu13[] = {
      {"cudart", "13.0.96"}, {"nvrtc", "13.0.88"},  {"cublas", "13.1.0.3"},   {"cublaslt", "13.1.0.3"}, {"cufft", "12.0.0.61"},
      {"curand", "10.4.0.35"}, {"cusolver", "12.0.4.66"}, {"cusparse", "12.6.3.3"}, {"nvjitlink", "13.0.88"}};
  for (const auto& [component, version] : cu13) CHECK_MESSAGE(table->match(component, version).series == "13.0", component);
  CHECK(table->match("cublas", "13.1.0.3").releases == std::vector<std::string>{"13.0.2"});
  CHECK(table->match("curand", "10.4.0.35").releases == std::vector<std::string>{"13.0.0", "13.0.2"});
  CHECK(table->match("nvjitlink", "12.4.127").series == "12.4");
  CHECK(table->match("nvjitlink", "12.4.99").series == "12.4");
  CHECK(table->match("cusparse", "12.1.0.106").series == "12.1");
  CHECK(table->match("cusparse", "12.3.1.170").series == "12.4");
  // Unknown stays unknown: no nearest-version guess.
  CHECK_FALSE(table->match("cupti", "13.0.85").known());
  CHECK_FALSE(table->match("cusparse", "12.6.3.4").known());
  CHECK_FALSE(table->match("cusparse", "").known());
  CHECK(series_of("13.0.2") == "13.0");
  CHECK(series_of("12.4") == "12.4");
  CHECK(series_of("13") == "13");
}

TEST_CASE("release tables from --releases: errors name the line and column, versions are dispatched") {
  auto minimal = parse_release_table("version: 1\nname: t\nreleases:\n  - release: \"14.0.0\"\n    components: {cudart: \"14.0.1\"}\n", "t.yml");
  REQUIRE(minimal.ok());
  CHECK(minimal->match("cudart", "14.0.1").series == "14.0");

  auto broken = parse_release_table("version: 1\nname: t\nreleases: [\n", "t.yml");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().code == ErrorCode::corrupt);
  CHECK(broken.error().path == "t.yml");
  CHECK(broken.error().message.find("invalid YAML at line 4, column 1") != std::string::npos);

  auto newer = parse_release_table("version: 2\nname: t\nreleases: []\n", "t.yml");
  REQUIRE_FALSE(newer.ok());
  CHECK(newer.error().code == ErrorCode::unsupported);

  CHECK_FALSE(parse_release_table("- 1\n- 2\n", "t.yml").ok());
  CHECK_FALSE(parse_release_table("version: 1\nname: t\n", "t.yml").ok()); // no releases
  auto bad_release = parse_release_table("version: 1\nname: t\nreleases:\n  - release: twelve\n", "t.yml");
  REQUIRE_FALSE(bad_release.ok());
  CHECK(bad_release.error().message.find("'twelve' is not X.Y or X.Y.Z at line 4") != std::string::npos);
  auto bad_major = parse_release_table("version: 1\nname: t\nmajors: [{major: x, min_driver_branch: 1}]\nreleases: []\n", "t.yml");
  CHECK_FALSE(bad_major.ok());
}

TEST_CASE("driver versions: /proc/driver/nvidia/version lines and --driver values") {
  auto proprietary = parse_proc_driver_version(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:26 UTC 2025\n"
      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  REQUIRE(proprietary);
  CHECK(proprietary->version == "580.65.06");
  CHECK(proprietary->branch == 580);
  CHECK(proprietary->source == "/proc/driver/nvidia/version");
  auto open = parse_proc_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  (dvs-builder@U16)\n");
  REQUIRE(open);
  CHECK(open->branch == 575);
  CHECK_FALSE(parse_proc_driver_version("GCC version: 12.2.0\n"));
  CHECK_FALSE(parse_proc_driver_version(""));
  CHECK(parse_driver_version(" 525.60.13 ", "--driver")->branch == 525);
  CHECK_FALSE(parse_driver_version("13.0", "--driver")); // a CUDA version, not a driver
  CHECK_FALSE(parse_driver_version("580.x", "--driver"));
  CHECK_FALSE(parse_driver_version("", "--driver"));
}
