#pragma once
// An exclusive lock on an env while condacuda changes it: flock(2) on
// $PREFIX/etc/condacuda/.lock. A second condacuda waits up to `wait` for it,
// then gives up with ErrorCode::busy naming the holder's pid. Released when
// the EnvLock is destroyed (or the process ends).
#include <chrono>
#include <string>

#include "sys/posix.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

class EnvLock {
public:
  EnvLock() = default;
  EnvLock(const EnvLock&) = delete;
  EnvLock& operator=(const EnvLock&) = delete;

  Status acquire(const std::string& lock_path, std::chrono::milliseconds wait);

private:
  Fd fd_; // closing it releases the flock
};

} // namespace condacuda::sys
