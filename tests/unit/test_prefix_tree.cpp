// sys/prefix_tree: every write, delete and read condacuda makes in an env
// stays inside it. Planted links (etc/conda -> a folder outside), paths with
// "..", FIFOs and oversized files are refused or reported, never followed,
// blocked on, or read whole.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/fixture.hpp"
#include "elf/pin.hpp"
#include "sys/prefix_tree.hpp"
#include "util/sha256.hpp"

using namespace condacuda;
namespace fs = std::filesystem;

namespace {
sys::PrefixTree open_tree(const std::string& prefix) {
  auto tree = sys::PrefixTree::open(prefix);
  REQUIRE(tree.ok());
  return std::move(*tree);
}

// Runs f in a child process; false when it is still running after 5 s (it is
// killed: the test reports a hang instead of hanging).
template <class F>
bool returns_promptly(F f) {
  pid_t child = ::fork();
  if (child == 0) {
    f();
    ::_exit(0);
  }
  for (int waited = 0; waited < 500; ++waited) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) return true;
    ::usleep(10000);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  return false;
}
} // namespace

TEST_CASE("writes and removes inside the env, atomically, leaving no temporary") {
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "env/etc");
  auto tree = open_tree(dir / "env");
  REQUIRE(tree.make_directory("etc/conda").ok());
  CHECK_FALSE(*tree.make_directory("etc/conda")); // already there
  REQUIRE(tree.write_file("etc/conda/a.sh", "one\n").ok());
  REQUIRE(tree.write_file("etc/conda/a.sh", "two\n", 0600).ok());
  CHECK(fixture::read_file(dir / "env/etc/conda/a.sh") == "two\n");
  struct stat st {};
  REQUIRE(::stat((dir / "env/etc/conda/a.sh").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(tree.write_symlink("etc/conda/link", "a.sh").ok());
  REQUIRE(tree.write_symlink("etc/conda/link", "b.sh").ok());
  CHECK(fs::read_symlink(dir / "env/etc/conda/link") == "b.sh");
  CHECK(fixture::entries_named(dir / "env/etc/conda", std::string(sys::temporary_marker)).empty());

  auto file = tree.state("etc/conda/a.sh");
  CHECK(file.kind == repair::PathState::Kind::file);
  CHECK(file.sha256.size() == 64);
  auto link = tree.state("etc/conda/link");
  CHECK(link.kind == repair::PathState::Kind::symlink);
  CHECK(link.target == "b.sh");
  CHECK(tree.state("etc/conda").kind == repair::PathState::Kind::other);
  CHECK(tree.state("etc/absent/x").kind == repair::PathState::Kind::absent);

  REQUIRE(tree.remove_file("etc/conda/link").ok());
  CHECK(tree.remove_file("etc/conda/link").ok()); // already gone
  tree.remove_directory_if_empty("etc/conda");     // not empty: stays
  CHECK(fs::exists(dir / "env/etc/conda/a.sh"));
}

TEST_CASE("a folder planted as a link to outside the env is reported, never written or deleted through") {
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "outside/activate.d");
  fixture::make_dirs(dir / "outside/empty");
  fixture::write_file(dir / "outside/activate.d/victim.sh", "precious\n");
  fixture::write_file(dir / "outside/activate.d/x.sh.condacuda-tmp-1-0", "looks like a temporary\n");
  fixture::make_dirs(dir / "env/etc");
  fs::create_directory_symlink(dir / "outside", dir / "env/etc/conda");
  auto tree = open_tree(dir / "env");

  auto made = tree.make_directory("etc/conda/activate.d");
  REQUIRE_FALSE(made.ok());
  CHECK(made.error().code == ErrorCode::conflict);
  CHECK(made.error().message.find("etc/conda is a symbolic link (to " + (dir / "outside") + ")") == 0);
  CHECK_FALSE(tree.write_file("etc/conda/activate.d/condacuda.sh", "x").ok());
  CHECK_FALSE(tree.write_symlink("etc/conda/activate.d/condacuda.sh", "x").ok());
  CHECK_FALSE(tree.remove_file("etc/conda/activate.d/victim.sh").ok());
  tree.remove_directory_if_empty("etc/conda/empty");
  CHECK(fs::is_directory(dir / "outside/empty"));
  CHECK(tree.remove_temporaries("etc/conda/activate.d").empty());
  CHECK(fs::exists(dir / "outside/activate.d/x.sh.condacuda-tmp-1-0"));
  CHECK_FALSE(tree.append_file("etc/conda/activate.d/victim.sh", "x").ok());
  CHECK_FALSE(tree.list("etc/conda/activate.d"));
  auto state = tree.state("etc/conda/activate.d/victim.sh");
  CHECK(state.kind == repair::PathState::Kind::unreachable);
  CHECK(state.why.find("etc/conda is a symbolic link") == 0);
  CHECK_FALSE(tree.read_file("etc/conda/activate.d/victim.sh", 1024).ok());
  // The leaf itself a link to a folder: not a folder condacuda may use.
  CHECK(tree.make_directory("etc/conda").error().code == ErrorCode::conflict);

  CHECK(fixture::read_file(dir / "outside/activate.d/victim.sh") == "precious\n");
}

TEST_CASE("a link planted as a middle component of a path is never followed, by any entry point (issue 26 point 10 g)") {
  // lib/pkg -> a folder outside the env; every path goes on below it
  // (lib/pkg/sub/...), so the link is neither the leaf nor its folder: a walk
  // that checks only the last folder (one openat of the parent path with
  // O_NOFOLLOW) would go through it.
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "outside/sub/empty");
  fixture::make_dirs(dir / "outside/sub/deeper");
  fixture::write_file(dir / "outside/sub/victim.so", "precious\n");
  fixture::write_file(dir / "outside/sub/x.so.condacuda-tmp-1-0", "looks like a temporary\n");
  fixture::make_dirs(dir / "env/lib");
  fixture::write_file(dir / "env/lib/real.so", "the env's own\n");
  fs::create_directory_symlink(dir / "outside", dir / "env/lib/pkg");
  auto before = [&] {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir / "outside")) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }();
  struct stat outside_st {};
  REQUIRE(::stat((dir / "outside/sub").c_str(), &outside_st) == 0);
  auto tree = open_tree(dir / "env");
  const std::string victim = "lib/pkg/sub/victim.so";

  // Writes and deletes.
  auto made = tree.make_directory("lib/pkg/sub/new");
  REQUIRE_FALSE(made.ok());
  CHECK(made.error().code == ErrorCode::conflict);
  CHECK(made.error().message.find("lib/pkg is a symbolic link (to " + (dir / "outside") + ")") == 0);
  CHECK_FALSE(tree.write_file("lib/pkg/sub/new.so", "x").ok());
  CHECK_FALSE(tree.write_file(victim, "overwritten").ok());
  CHECK_FALSE(tree.write_symlink("lib/pkg/sub/link.so", "x").ok());
  CHECK_FALSE(tree.append_file(victim, "x").ok());
  CHECK_FALSE(tree.remove_file(victim).ok());
  tree.remove_directory_if_empty("lib/pkg/sub/empty");
  CHECK(tree.remove_temporaries("lib/pkg/sub").empty());
  CHECK_FALSE(tree.touch_folder("lib/pkg/sub").ok());
  CHECK_FALSE(tree.hard_link("lib/real.so", "lib/pkg/sub/hard.so").ok());
  CHECK_FALSE(tree.hard_link(victim, "lib/hard.so").ok());
  CHECK_FALSE(tree.replace_with_link("lib/real.so", victim).ok());
  CHECK_FALSE(tree.rename_new("lib/real.so", "lib/pkg/sub/moved.so").ok());
  CHECK_FALSE(tree.rename_new("lib/pkg/sub/deeper", "lib/deeper").ok());
  auto copied = tree.write_edited_copy({"lib/real.so", false, "", "lib/pkg/sub/copy.so", elf::pin_edit({}),
                                        util::to_hex(util::sha256("the env's own\n"))}, 1u << 20);
  CHECK_FALSE((copied.ok() && *copied));
  auto copied_in = tree.write_edited_copy({victim, false, "", "lib/copy.so", elf::pin_edit({}),
                                           util::to_hex(util::sha256("precious\n"))}, 1u << 20);
  CHECK_FALSE((copied_in.ok() && *copied_in));
  CHECK_FALSE(fs::exists(dir / "env/lib/copy.so"));
  CHECK_FALSE(fs::exists(dir / "env/lib/hard.so"));
  CHECK_FALSE(fs::exists(dir / "env/lib/deeper"));
  CHECK(fixture::read_file(dir / "env/lib/real.so") == "the env's own\n");

  // Reads: nothing of the file outside comes back.
  auto state = tree.state(victim);
  CHECK(state.kind == repair::PathState::Kind::unreachable);
  CHECK(state.why.find("lib/pkg is a symbolic link") == 0);
  CHECK_FALSE(tree.read_file(victim, 1024).ok());
  auto digests = tree.digests(victim, elf::pin_edit({}), false, 1u << 20);
  CHECK_FALSE((digests.ok() && *digests));
  CHECK(tree.file_sha256(victim).empty());
  CHECK_FALSE(tree.identity(victim));
  CHECK_FALSE(tree.list("lib/pkg/sub"));

  // The folder of the paths it acts on a link itself (lib/leaf -> outside/sub):
  // the folder remove_temporaries, list and touch_folder open is the middle
  // component of every path they reach in it.
  fs::create_directory_symlink(dir / "outside/sub", dir / "env/lib/leaf");
  CHECK(tree.remove_temporaries("lib/leaf").empty());
  CHECK_FALSE(tree.list("lib/leaf"));
  CHECK_FALSE(tree.touch_folder("lib/leaf").ok());
  CHECK(fs::exists(dir / "outside/sub/x.so.condacuda-tmp-1-0"));

  // The folder outside, as it was.
  std::vector<std::string> after;
  for (const auto& e : fs::recursive_directory_iterator(dir / "outside")) after.push_back(e.path().string());
  std::sort(after.begin(), after.end());
  CHECK(after == before);
  CHECK(fixture::read_file(dir / "outside/sub/victim.so") == "precious\n");
  struct stat now_st {};
  REQUIRE(::stat((dir / "outside/sub").c_str(), &now_st) == 0);
  CHECK(now_st.st_mtim.tv_sec == outside_st.st_mtim.tv_sec);
  CHECK(now_st.st_mtim.tv_nsec == outside_st.st_mtim.tv_nsec);
}

TEST_CASE("paths that leave the env by their spelling are refused before anything is touched") {
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "env/etc");
  fixture::write_file(dir / "victim.txt", "precious\n");
  auto tree = open_tree(dir / "env");
  for (std::string bad : {"../victim.txt", "etc/../../victim.txt", "/etc/passwd", "etc//x", "etc/./x", ""}) {
    auto removed = tree.remove_file(bad);
    REQUIRE_FALSE(removed.ok());
    CHECK(removed.error().code == ErrorCode::bad_input);
    CHECK_FALSE(tree.write_file(bad, "x").ok());
  }
  CHECK(fixture::read_file(dir / "victim.txt") == "precious\n");
}

TEST_CASE("a FIFO or an oversized file is never read whole, and nothing blocks") {
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "env/etc/condacuda");
  REQUIRE(::mkfifo((dir / "env/etc/condacuda/manifest.yml").c_str(), 0644) == 0);
  fixture::write_file(dir / "env/etc/big", std::string(2048, 'x'));
  auto tree = open_tree(dir / "env");
  CHECK(returns_promptly([&] {
    (void)tree.read_file("etc/condacuda/manifest.yml", 1 << 20);
    (void)tree.state("etc/condacuda/manifest.yml");
    (void)tree.append_file("etc/condacuda/manifest.yml", "x");
  }));
  auto fifo = tree.read_file("etc/condacuda/manifest.yml", 1 << 20);
  REQUIRE_FALSE(fifo.ok());
  CHECK(fifo.error().message == "is not a regular file (a FIFO)");
  CHECK(tree.state("etc/condacuda/manifest.yml").kind == repair::PathState::Kind::other);
  CHECK_FALSE(tree.append_file("etc/condacuda/manifest.yml", "x").ok()); // ENXIO: no reader, and never waits for one
  auto big = tree.read_file("etc/big", 1024);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message.find("2048 bytes, more than the 1024") != std::string::npos);
  CHECK(tree.state("etc/big", 1024).kind == repair::PathState::Kind::other);
  auto absent = tree.read_file("etc/none", 1024);
  REQUIRE(absent.ok());
  CHECK_FALSE(absent->has_value());
}

TEST_CASE("the lock: one holder at a time, named to the one that waits; nothing created for it") {
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "env");
  auto first = open_tree(dir / "env");
  auto second = open_tree(dir / "env");
  REQUIRE(first.lock(std::chrono::milliseconds(100)).ok());
  auto busy = second.lock(std::chrono::milliseconds(100));
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.error().code == ErrorCode::busy);
  CHECK(busy.error().message == "another condacuda (pid " + std::to_string(::getpid()) + ") is changing this env; try again");
  CHECK(fs::is_empty(dir / "env"));
}

TEST_CASE("append_file: appends to a regular file or creates it; a link there is refused") {
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "env");
  fixture::write_file(dir / "outside.txt", "precious\n");
  auto tree = open_tree(dir / "env");
  REQUIRE(tree.append_file(".messages.txt", "one\n").ok());
  REQUIRE(tree.append_file(".messages.txt", "two\n").ok());
  CHECK(fixture::read_file(dir / "env/.messages.txt") == "one\ntwo\n");
  fs::create_symlink(dir / "outside.txt", dir / "env/link.txt");
  CHECK_FALSE(tree.append_file("link.txt", "x").ok());
  CHECK(fixture::read_file(dir / "outside.txt") == "precious\n");
  CHECK(tree.list("") == std::vector<std::string>{".messages.txt", "link.txt"});
}

TEST_CASE("remove_temporaries: only what an interrupted write left") {
  fixture::TempDir dir("tree");
  fixture::make_dirs(dir / "env/etc/conda");
  fixture::write_file(dir / "env/etc/conda/a.sh", "x");
  fixture::write_file(dir / "env/etc/conda/a.sh.condacuda-tmp-123-0", "x");
  auto tree = open_tree(dir / "env");
  auto removed = tree.remove_temporaries("etc/conda");
  CHECK(removed == std::vector<std::string>{"etc/conda/a.sh.condacuda-tmp-123-0"});
  CHECK(fs::exists(dir / "env/etc/conda/a.sh"));
}

TEST_CASE("write_edited_copy: a library copied in pieces with its tags changed, holes kept; refused when not as planned") {
  fixture::TempDir dir("edited");
  fixture::make_dirs(dir / "env/lib");
  const std::string lib = dir / "env/lib/libbig.so";
  // Data, a hole of 8 MiB, data: a d_tag DT_RUNPATH at offset 64, another in the data past the hole.
  std::string head(4096, 'h'), tail(4096, 't');
  head.replace(64, 8, elf::tag_bytes(elf::runpath_tag));
  tail.replace(16, 8, elf::tag_bytes(elf::runpath_tag));
  const std::uint64_t tail_at = 4096 + (8u << 20);
  {
    fixture::write_file(lib, head);
    sys::Fd f(::open(lib.c_str(), O_WRONLY | O_CLOEXEC));
    REQUIRE(f.valid());
    REQUIRE(::pwrite(f.get(), tail.data(), tail.size(), static_cast<off_t>(tail_at)) == static_cast<ssize_t>(tail.size()));
  }
  ::chmod(lib.c_str(), 0751);
  const std::string original = fixture::read_file(lib);
  REQUIRE(original.size() == tail_at + tail.size());
  const std::vector<std::uint64_t> offsets{64, tail_at + 16};
  auto pinned = elf::retag(original, offsets, elf::runpath_tag, elf::rpath_tag);
  REQUIRE(pinned.ok());
  const std::string original_sha = util::to_hex(util::sha256(original)), pinned_sha = util::to_hex(util::sha256(*pinned));
  auto tree = open_tree(dir / "env");

  auto d = tree.digests("lib/libbig.so", elf::pin_edit(offsets), false, 1u << 30);
  REQUIRE(d.ok());
  REQUIRE(*d);
  CHECK((*d)->sha256 == original_sha);
  CHECK((*d)->retagged_sha256 == pinned_sha);
  CHECK((*d)->link_text.empty());
  CHECK_FALSE(tree.digests("lib/libbig.so", elf::pin_edit(offsets), false, 4096).ok()); // over the cap
  CHECK_FALSE(*tree.digests("lib/absent.so", elf::pin_edit(offsets), false, 1u << 30));
  CHECK(tree.file_sha256("lib/libbig.so") == original_sha);

  // A copy kept beside it (no edit), then the library pinned in place: a new inode, the mode kept.
  REQUIRE(*tree.write_edited_copy({"lib/libbig.so", false, "", "lib/kept.so", {}, original_sha}, 1u << 30));
  CHECK(fixture::read_file(dir / "env/lib/kept.so") == original);
  struct stat before {}, after {};
  REQUIRE(::stat(lib.c_str(), &before) == 0);
  // Not as planned: nothing written, nothing left beside it.
  CHECK_FALSE(*tree.write_edited_copy({"lib/libbig.so", false, "", "lib/libbig.so", elf::pin_edit(offsets), original_sha}, 1u << 30));
  CHECK_FALSE(*tree.write_edited_copy({"lib/libbig.so", false, "", "lib/libbig.so", elf::pin_edit({65}), pinned_sha}, 1u << 30));
  CHECK(fixture::entries_named(dir / "env/lib", std::string(sys::temporary_marker)).empty());
  REQUIRE(*tree.write_edited_copy({"lib/libbig.so", false, "", "lib/libbig.so", elf::pin_edit(offsets), pinned_sha}, 1u << 30));
  CHECK(fixture::read_file(lib) == *pinned);
  REQUIRE(::stat(lib.c_str(), &after) == 0);
  CHECK(after.st_ino != before.st_ino);
  CHECK((after.st_mode & 07777) == 0751);
  if (before.st_blocks * 512 < static_cast<off_t>(1u << 20)) // the file system keeps holes: so does the copy
    CHECK(after.st_blocks * 512 < static_cast<off_t>(1u << 20));
  // Pinned already: the same edit cannot be made again.
  CHECK_FALSE(*tree.write_edited_copy({"lib/libbig.so", false, "", "lib/libbig.so", elf::pin_edit(offsets), pinned_sha}, 1u << 30));

  // Through a link to a file outside the env (uv's cache): only with
  // through_link and the link's text; the file outside never changes.
  fixture::write_file(dir / "cache.so", original);
  REQUIRE(::symlink((dir / "cache.so").c_str(), (dir / "env/lib/linked.so").c_str()) == 0);
  CHECK_FALSE(tree.digests("lib/linked.so", elf::pin_edit(offsets), false, 1u << 30).ok());
  auto linked = tree.digests("lib/linked.so", elf::pin_edit(offsets), true, 1u << 30);
  REQUIRE(linked.ok());
  REQUIRE(*linked);
  CHECK((*linked)->link_text == dir / "cache.so");
  CHECK((*linked)->retagged_sha256 == pinned_sha);
  CHECK_FALSE(tree.write_edited_copy({"lib/linked.so", false, "", "lib/linked.so", elf::pin_edit(offsets), pinned_sha}, 1u << 30).ok());
  CHECK_FALSE(*tree.write_edited_copy({"lib/linked.so", true, "elsewhere.so", "lib/linked.so", elf::pin_edit(offsets), pinned_sha}, 1u << 30));
  REQUIRE(*tree.write_edited_copy({"lib/linked.so", true, dir / "cache.so", "lib/linked.so", elf::pin_edit(offsets), pinned_sha}, 1u << 30));
  struct stat ls {};
  REQUIRE(::lstat((dir / "env/lib/linked.so").c_str(), &ls) == 0);
  CHECK(S_ISREG(ls.st_mode));
  CHECK(fixture::read_file(dir / "env/lib/linked.so") == *pinned);
  CHECK(fixture::read_file(dir / "cache.so") == original);
}
