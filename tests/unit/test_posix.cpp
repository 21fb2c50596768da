// sys/posix: the atomic writers every write of condacuda goes through, and
// the one errno -> ErrorCode map.
#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "support/fixture.hpp"
#include "sys/posix.hpp"

using namespace condacuda;
namespace fs = std::filesystem;

namespace {
// Temporaries an atomic write left behind.
std::vector<std::string> leftovers(const std::string& dir) {
  return fixture::entries_named(dir, std::string(sys::temporary_marker));
}
} // namespace

TEST_CASE("write_file_atomically: replaces the file whole with its mode, leaves nothing behind on failure") {
  fixture::TempDir dir("lock-io");
  std::string path = dir / "cuda.lock.yml";
  fixture::write_file(path, "old");
  REQUIRE(sys::write_file_atomically(path, "version: 1\n").ok());
  CHECK(fixture::read_file(path) == "version: 1\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  auto missing = sys::write_file_atomically(dir / "no/such/dir/x.yml", "x");
  CHECK(missing.error().code == ErrorCode::not_found);
  // The rename fails (a non-empty folder is in the way): the temporary, written whole, is removed.
  fixture::write_file(dir / "taken/inside", "x");
  auto taken = sys::write_file_atomically(dir / "taken", "x");
  REQUIRE_FALSE(taken.ok());
  CHECK(taken.error().message.find("cannot rename into place") == 0);
  CHECK(leftovers(dir.path()).empty());
}

TEST_CASE("errno_error: one code per errno whichever adapter saw it") {
  CHECK(sys::error_code_for_errno(ENOENT) == ErrorCode::not_found);
  CHECK(sys::error_code_for_errno(ENOTDIR) == ErrorCode::not_found);
  CHECK(sys::error_code_for_errno(EACCES) == ErrorCode::io);
  CHECK(sys::error_code_for_errno(ENOSPC) == ErrorCode::io);
  auto e = sys::errno_error(EACCES, "cannot write", "/x");
  CHECK(e.describe() == "/x: cannot write: Permission denied");
}

TEST_CASE("write_file_atomically: links planted at the temporary names it will try are never followed") {
  // The temporary's name is predictable ("<target>.condacuda-tmp-<pid>-<n>"):
  // links planted at the next names, each to a file of the victim's, must be
  // passed over (O_EXCL | O_NOFOLLOW), the victim unchanged, the target written.
  fixture::TempDir dir("planted-temp");
  const std::string target = dir / "manifest.yml", victim = dir / "victim";
  fixture::write_file(victim, "the victim's own bytes\n");
  const std::string probe = sys::temporary_name(target); // the name just used up: the counter's place
  const std::string stem = probe.substr(0, probe.rfind('-') + 1);
  const unsigned next = static_cast<unsigned>(std::stoul(probe.substr(probe.rfind('-') + 1))) + 1;
  std::vector<std::string> planted{probe}; // the name just given out too: a temporary name is never given twice
  fs::create_symlink(victim, probe);
  for (unsigned n = next; n < next + 40; ++n) {
    planted.push_back(stem + std::to_string(n));
    fs::create_symlink(victim, planted.back());
  }
  REQUIRE(sys::write_file_atomically(target, "written\n", 0644).ok());
  CHECK(fixture::read_file(target) == "written\n");
  CHECK(fixture::read_file(victim) == "the victim's own bytes\n");
  CHECK_FALSE(fs::is_symlink(target));
  for (const auto& p : planted) CHECK(fs::is_symlink(p)); // left as they were, none replaced
}
