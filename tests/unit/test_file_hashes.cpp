// sys/file_hashes and sys/hash_cache: the hashes `condacuda lock` records,
// through the persistent cache (hit, miss after a change, corrupt and
// unreadable caches).
#include <doctest/doctest.h>

#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include "support/fixture.hpp"
#include "sys/file_hashes.hpp"
#include "sys/hash_cache.hpp"
#include "sys/posix.hpp"
#include "util/sha256.hpp"

using namespace condacuda;
namespace fs = std::filesystem;

namespace {
std::string hex(const std::string& content) { return util::to_hex(util::sha256(content)); }

// Temporaries an atomic write left behind.
std::vector<std::string> leftovers(const std::string& dir) {
  return fixture::entries_named(dir, std::string(sys::temporary_marker));
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

TEST_CASE("HashCache: entries found by path and key, replaced, written sorted by path, read back the same") {
  fixture::TempDir t("hash-cache-entries");
  const std::string path = t / "cache";
  const std::string a(64, 'a'), b(64, 'b'), c(64, 'c');
  const sys::FileKey k1{1, 2, 3, 4, 5}, k2{1, 2, 3, 4, 6};
  std::vector<std::string> warnings;
  {
    sys::HashCache cache(path);
    cache.load(warnings); // none yet: empty
    cache.store("/z/last", k1, a);
    cache.store("/a/first", k1, b);
    cache.save(warnings);
  }
  CHECK(fixture::read_file(path) == "condacuda hash cache 1\n" + b + "\t1\t2\t3\t4\t5\t/a/first\n" + a +
                                         "\t1\t2\t3\t4\t5\t/z/last\n");
  {
    sys::HashCache cache(path);
    cache.load(warnings);
    CHECK(cache.find("/a/first", k1) == b);
    CHECK_FALSE(cache.find("/a/first", k2)); // another ctime: a miss
    CHECK_FALSE(cache.find("/a/other", k1));
    cache.store("/a/first", k2, c); // an entry loaded, replaced
    CHECK(cache.find("/a/first", k2) == c);
    cache.save(warnings);
  }
  sys::HashCache again(path);
  again.load(warnings);
  CHECK(again.find("/a/first", k2) == c);
  CHECK(again.find("/z/last", k1) == a);
  CHECK(warnings.empty());
}

TEST_CASE("hash_files: a forged cache is believed only when it is this user's own file that no one else may write") {
  // Every combination of owner, group write, other write and a link at the
  // cache's name: `lock --check` trusts what the cache says, so a cache a
  // group member or another user could have written is neither read nor
  // replaced (sys/hash_cache.cpp), and a symlink there is not followed.
  fixture::TempDir dir("hash-trust");
  fixture::make_dirs(dir / "env");
  fixture::write_file(dir / "env/x.so", "x");
  const std::string cache = dir / "hashes", good = dir / "good-cache";
  const std::string forged_digest = std::string(64, 'f');
  int trusted = 0, refused = 0;
  for (bool other_owner : {false, true})
    for (unsigned mode : {0600u, 0640u, 0644u, 0620u, 0660u, 0664u, 0602u, 0606u, 0666u})
      for (bool link : {false, true}) {
        CAPTURE(other_owner);
        CAPTURE(mode);
        CAPTURE(link);
        fs::remove(cache);
        fs::remove(good);
        REQUIRE(sys::hash_files(dir / "env", {"x.so"}, good).warnings.empty()); // a real cache of x.so
        std::string text = fixture::read_file(good);
        const auto at = text.find(hex("x"));
        REQUIRE(at != std::string::npos);
        text.replace(at, 64, forged_digest); // what a forger writes
        fixture::write_file(good, text);
        if (link) fs::create_symlink(good, cache);
        else fs::rename(good, cache);
        const std::string file = link ? good : cache;
        REQUIRE(::chmod(file.c_str(), mode) == 0);
        REQUIRE(::lchown(file.c_str(), other_owner ? 65534 : ::geteuid(), static_cast<gid_t>(-1)) == 0);
        const bool believed_ok = !other_owner && (mode & 022) == 0 && !link;
        auto r = sys::hash_files(dir / "env", {"x.so"}, cache);
        if (believed_ok) {
          ++trusted;
          CHECK(r.warnings.empty());
          CHECK(r.sha256_by_file.at("x.so") == forged_digest); // the user's own cache is believed, as git believes its index
        } else {
          ++refused;
          CHECK(r.sha256_by_file.at("x.so") == hex("x"));
          CHECK(r.stats.from_cache == 0);
          REQUIRE(r.warnings.size() == 1);
          CHECK(r.warnings[0].find("ignored") != std::string::npos);
          CHECK(fs::is_symlink(cache) == link); // neither replaced nor followed
          CHECK(fixture::read_file(file).find(forged_digest) != std::string::npos);
        }
      }
  CHECK(trusted == 3); // this user's 0600, 0640 and 0644 files
  CHECK(refused == 33);
}
