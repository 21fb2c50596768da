// Result<T>: the value or the error, and the ownership of a move-only value
// that releases something in its destructor (a lock's file descriptor): it is
// released exactly once, by whoever holds the value last.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "util/result.hpp"

using namespace condacuda;

namespace {

// Counts the releases of what it holds, like a lock that closes its fd.
struct Handle {
  explicit Handle(int id, int* releases) : id_(id), releases_(releases) {}
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), releases_(other.releases_) {}
  Handle& operator=(Handle&&) = delete;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) ++*releases_;
  }
  int id() const { return id_; }

private:
  int id_;
  int* releases_;
};

Result<Handle> acquire(bool succeed, int* releases) {
  if (!succeed) return make_error(ErrorCode::busy, "held by another process", "/env/.lock");
  return Handle(7, releases);
}

// A real descriptor, closed by the destructor, as EnvLock once held it.
struct FdOwner {
  explicit FdOwner(int descriptor) : fd(descriptor) {}
  FdOwner(FdOwner&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
  FdOwner& operator=(FdOwner&&) = delete;
  ~FdOwner() {
    if (fd >= 0) ::close(fd);
  }
  int fd;
};

Result<FdOwner> open_null() {
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::io, "cannot open", "/dev/null");
  return FdOwner(fd);
}

Result<std::string> use_fd(int* seen) {
  auto owner = open_null();
  if (!owner) return owner.error();
  *seen = owner->fd;
  return std::string("done");
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

} // namespace

TEST_CASE("Result holds the value or the error") {
  Result<int> five = 5;
  REQUIRE(five.ok());
  CHECK(*five == 5);
  Result<int> failed = make_error(ErrorCode::corrupt, "bad magic", "/lib/x.so");
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == ErrorCode::corrupt);
  CHECK(failed.error().describe() == "/lib/x.so: bad magic");
  CHECK(make_error(ErrorCode::io, "no space").describe() == "no space");
}

TEST_CASE("a move-only value with a destructor is released once, by its last holder") {
  int releases = 0;
  {
    auto held = acquire(true, &releases);
    REQUIRE(held.ok());
    CHECK(held->id() == 7);
    CHECK(releases == 0); // the temporaries it was moved out of released nothing
  }
  CHECK(releases == 1);

  releases = 0;
  {
    auto held = acquire(true, &releases);
    REQUIRE(held.ok());
    Handle taken = std::move(held).value();
    CHECK(taken.id() == 7);
    CHECK(releases == 0);
  }
  CHECK(releases == 1);

  releases = 0;
  {
    auto refused = acquire(false, &releases);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::busy);
    CHECK(refused.error().path == "/env/.lock");
  }
  CHECK(releases == 0);
}

TEST_CASE("a descriptor owned through a Result is open while held and closed after") {
  int fd = -1;
  auto done = use_fd(&fd);
  REQUIRE(done.ok());
  CHECK(*done == "done");
  REQUIRE(fd >= 0);
  CHECK_FALSE(is_open(fd));

  auto owner = open_null();
  REQUIRE(owner.ok());
  const int held = owner->fd;
  CHECK(is_open(held));
  {
    FdOwner moved = std::move(owner).value();
    CHECK(moved.fd == held);
    CHECK(is_open(held));
  }
  CHECK_FALSE(is_open(held));
}
