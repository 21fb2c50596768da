// The system side of `lock`: hashes through the persistent cache (hit, miss
// after a change, corrupt and unreadable caches), atomic writes, the driver file.
#include <doctest/doctest.h>

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "support/fixture.hpp"
#include "sys/lock_io.hpp"
#include "util/sha256.hpp"

using namespace condacuda;
namespace fs = std::filesystem;

namespace {
std::string hex(const std::string& content) { return util::to_hex(util::sha256(content)); }

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}
} // namespace

TEST_CASE("hash_files: digests of the files, then the same digests from the cache") {
  fixture::TempDir dir("lock-io");
  fixture::make_dirs(dir / "env/lib");
  fixture::write_file(dir / "env/lib/a.so", "alpha");
  fixture::write_file(dir / "env/lib/b.so", std::string(3 << 20, 'b')); // several read chunks
  std::string cache = dir / "cache/condacuda/hashes";
  std::vector<std::string> files{"lib/a.so", "lib/b.so"};

  auto first = sys::hash_files(dir / "env", files, cache);
  CHECK(first.warnings.empty());
  CHECK(first.sha256_by_file.at("lib/a.so") == hex("alpha"));
  CHECK(first.sha256_by_file.at("lib/b.so") == hex(std::string(3 << 20, 'b')));
  CHECK(first.stats.hashed == 2);
  CHECK(first.stats.from_cache == 0);
  CHECK(first.stats.bytes_hashed == 5 + (3u << 20));
  CHECK(fixture::read_file(cache).rfind("condacuda hash cache 1\n", 0) == 0);

  auto second = sys::hash_files(dir / "env", files, cache);
  CHECK(second.stats.from_cache == 2);
  CHECK(second.stats.hashed == 0);
  CHECK(second.sha256_by_file == first.sha256_by_file);

  // Rewritten in place: size and mtime/ctime change, the cache entry no longer matches.
  fixture::write_file(dir / "env/lib/a.so", "alpha, again");
  auto third = sys::hash_files(dir / "env", files, cache);
  CHECK(third.stats.hashed == 1);
  CHECK(third.sha256_by_file.at("lib/a.so") == hex("alpha, again"));
  CHECK(leftovers(dir / "cache/condacuda").empty());
}

TEST_CASE("hash_files: a corrupt cache is ignored with a warning and rewritten; no cache path, no cache") {
  fixture::TempDir dir("lock-io");
  fixture::make_dirs(dir / "env");
  fixture::write_file(dir / "env/x.so", "x");
  std::string cache = dir / "hashes";
  for (std::string junk : {std::string("not a cache\n"), std::string("condacuda hash cache 1\nzz\t1\t2\t3\t4\t5\tp\n"),
                           std::string("condacuda hash cache 1\n") + std::string(64, 'a') + "\t1\t2\t3\t4\tfive\t/p\n"}) {
    fixture::write_file(cache, junk);
    auto r = sys::hash_files(dir / "env", {"x.so"}, cache);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("hash cache is corrupt; ignored and rewritten") != std::string::npos);
    CHECK(r.sha256_by_file.at("x.so") == hex("x"));
    auto again = sys::hash_files(dir / "env", {"x.so"}, cache);
    CHECK(again.warnings.empty());
    CHECK(again.stats.from_cache == 1);
  }
  auto none = sys::hash_files(dir / "env", {"x.so"}, "");
  CHECK(none.stats.hashed == 1);
  CHECK(none.warnings.empty());
}

TEST_CASE("hash_files: an unreadable cache and an unreadable file are warnings, not failures") {
  fixture::TempDir dir("lock-io");
  fixture::make_dirs(dir / "env");
  fixture::make_dirs(dir / "cache-is-a-dir");
  fixture::write_file(dir / "env/x.so", "x");
  auto r = sys::hash_files(dir / "env", {"x.so", "gone.so"}, dir / "cache-is-a-dir");
  CHECK(r.sha256_by_file.size() == 1);
  REQUIRE(r.warnings.size() == 3); // cache unreadable, gone.so, cache not saved
  CHECK(r.warnings[0].find("hash cache ignored") == 0);
  CHECK(r.warnings[1].find("gone.so") != std::string::npos);
  CHECK(r.warnings[2].find("hash cache not saved") == 0);
}

TEST_CASE("write_file_atomically: replaces the file whole, leaves nothing behind on failure") {
  fixture::TempDir dir("lock-io");
  std::string path = dir / "cuda.lock.yml";
  fixture::write_file(path, "old");
  REQUIRE(sys::write_file_atomically(path, "version: 1\n").ok());
  CHECK(fixture::read_file(path) == "version: 1\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  auto missing = sys::write_file_atomically(dir / "no/such/dir/x.yml", "x");
  CHECK_FALSE(missing.ok());
  CHECK(leftovers(dir.path()).empty());
}

TEST_CASE("read_driver_version: the kernel module's file, or nothing") {
  fixture::TempDir dir("lock-io");
  fixture::write_file(dir / "version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 ...\n");
  auto v = sys::read_driver_version(dir / "version");
  REQUIRE(v);
  CHECK(v->version == "570.124.06");
  CHECK(v->branch == 570);
  CHECK_FALSE(sys::read_driver_version(dir / "absent"));
}
