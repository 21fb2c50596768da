#pragma once
// An exclusive lock on an env while condacuda changes it: flock(2) on
// $PREFIX/etc/condacuda/.lock. A second condacuda waits up to `wait` for it,
// then gives up with ErrorCode::busy naming the holder's pid.
#include <chrono>
#include <string>

#include "util/result.hpp"

namespace condacuda::sys {

class EnvLock {
public:
  static Result<EnvLock> acquire(const std::string& lock_path, std::chrono::milliseconds wait);
  EnvLock(EnvLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  EnvLock& operator=(EnvLock&&) = delete;
  EnvLock(const EnvLock&) = delete;
  ~EnvLock();

private:
  explicit EnvLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

} // namespace condacuda::sys
