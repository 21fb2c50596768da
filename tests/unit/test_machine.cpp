// sys/machine: the facts read from this machine without starting a process.
#include <doctest/doctest.h>

#include "support/fixture.hpp"
#include "sys/machine.hpp"

using namespace condacuda;

TEST_CASE("read_driver_version: the kernel module's file, or nothing") {
  fixture::TempDir dir("lock-io");
  fixture::write_file(dir / "version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 ...\n");
  auto v = sys::read_driver_version(dir / "version");
  REQUIRE(v);
  CHECK(v->version == "570.124.06");
  CHECK(v->branch == 570);
  CHECK_FALSE(sys::read_driver_version(dir / "absent"));
}
