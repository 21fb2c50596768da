// loader/glibc_release: the system's glibc read from its files. The oracle is
// the C library this test runs on (the unit tests link it dynamically).
#include <cstring>
#include <doctest/doctest.h>

#include <gnu/libc-version.h>

#include "elf/elf_object.hpp"
#include "elf/sections.hpp"
#include "loader/glibc_release.hpp"
#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "util/path.hpp"

using namespace condacuda;

TEST_CASE("glibc_release_from_loader_name: ld-2.N.so before glibc 2.34, nothing after") {
  CHECK(loader::glibc_release_from_loader_name("ld-2.31.so") == "2.31");
  CHECK(loader::glibc_release_from_loader_name("ld-2.28.so") == "2.28");
  CHECK_FALSE(loader::glibc_release_from_loader_name("ld-linux-x86-64.so.2"));
  CHECK_FALSE(loader::glibc_release_from_loader_name("ld-2.so"));
  CHECK_FALSE(loader::glibc_release_from_loader_name("ld-2.31.so.1"));
  CHECK_FALSE(loader::glibc_release_from_loader_name("ld-.so"));
}

TEST_CASE("glibc_release_from_libc: the banner's release, wherever it sits") {
  auto bytes = [](std::string s) { return elf::bytes_from_string(s); };
  std::string debian = std::string("\x7f" "ELF", 4) + std::string(100, '\0') +
                       "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\nCopyright";
  CHECK(loader::glibc_release_from_libc(bytes(debian).data) == "2.36");
  CHECK(loader::glibc_release_from_libc(
            bytes("GNU C Library (GNU libc) stable release version 2.17, by Roland McGrath et al.\n").data) == "2.17");
  // Another "GNU C Library" first (an error message), the banner after it.
  CHECK(loader::glibc_release_from_libc(
            bytes("GNU C Library: bad\nGNU C Library (GNU libc) release version 2.28.\n").data) == "2.28");
  CHECK_FALSE(loader::glibc_release_from_libc(bytes("GNU C Library\nrelease version 2.28\n").data)); // not one line
  CHECK_FALSE(loader::glibc_release_from_libc(bytes("release version 2.36.").data));
  CHECK_FALSE(loader::glibc_release_from_libc(bytes("").data));
}

TEST_CASE("glibc_minor_of") {
  CHECK(loader::glibc_minor_of("2.31") == 31);
  CHECK(loader::glibc_minor_of("2.41.9000") == 41);
  CHECK_FALSE(loader::glibc_minor_of("3.1"));
  CHECK_FALSE(loader::glibc_minor_of("2."));
}

TEST_CASE("this machine's glibc, read from its files, is the one this process runs on") {
  CHECK(sys::glibc_version() == gnu_get_libc_version());
  auto facts = sys::detect_machine();
  CHECK("2." + std::to_string(facts.config.glibc_minor) == sys::glibc_version());
  std::string loader = sys::canonical_path(facts.config.interp);
  REQUIRE_FALSE(loader.empty());
  auto libc = sys::map_file(util::dir_name(loader) + "/libc.so.6");
  REQUIRE(libc);
  CHECK(loader::glibc_release_from_libc(libc->data) == gnu_get_libc_version());
}

TEST_CASE("libc's banner lies in its .rodata, the part searched first; a file without sections is searched whole") {
  auto facts = sys::detect_machine();
  auto libc = sys::map_file(util::dir_name(sys::canonical_path(facts.config.interp)) + "/libc.so.6");
  REQUIRE(libc);
  const elf::FoundSection rodata = elf::find_section(elf::ByteReader(libc->data), ".rodata");
  REQUIRE(rodata.named);
  REQUIRE(rodata.bytes);
  CHECK(rodata.bytes->size() < libc->data.size()); // a part of the file, not all of it
  CHECK(loader::glibc_release_from_libc(rodata.bytes->span()) == gnu_get_libc_version());
  CHECK_FALSE(elf::find_section(elf::ByteReader(libc->data), ".no_such_section").named);
  // The section header table put past the end of the file (e_shoff, at byte
  // 0x28 of an ELF64 header): no section, the whole file searched.
  std::string moved(reinterpret_cast<const char*>(libc->data.data()), libc->data.size());
  const std::uint64_t past_end = moved.size();
  std::memcpy(moved.data() + 0x28, &past_end, sizeof past_end); // little-endian host, as the file
  const elf::FileBytes headless = elf::bytes_from_string(moved);
  CHECK_FALSE(elf::find_section(elf::ByteReader(headless.data), ".rodata").bytes);
  CHECK(loader::glibc_release_from_libc(headless.data) == gnu_get_libc_version());
}
