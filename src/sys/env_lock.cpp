#include "sys/env_lock.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

namespace condacuda::sys {

Status EnvLock::acquire(const std::string& lock_path, std::chrono::milliseconds wait) {
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(ErrorCode::io, std::string("cannot create the lock file: ") + std::strerror(errno), lock_path);
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      ::close(fd);
      return make_error(ErrorCode::io, std::string("cannot lock: ") + std::strerror(e), lock_path);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      char buf[32] = {};
      ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      std::string holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "?";
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      return make_error(ErrorCode::busy, "another condacuda (pid " + holder + ") is changing this env; try again", lock_path);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The holder's pid, for the message a waiting process prints.
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  fd_ = fd;
  return ok_status();
}

EnvLock::~EnvLock() {
  if (fd_ >= 0) ::close(fd_); // closing releases the flock
}

} // namespace condacuda::sys
