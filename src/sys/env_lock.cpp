#include "sys/env_lock.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

#include "sys/posix.hpp"

namespace condacuda::sys {

Status EnvLock::acquire(const std::string& lock_path, std::chrono::milliseconds wait) {
  Fd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return errno_error(errno, "cannot create the lock file", lock_path);
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return errno_error(errno, "cannot lock", lock_path);
    if (std::chrono::steady_clock::now() >= deadline) {
      char buf[32] = {};
      ssize_t n = ::pread(fd.get(), buf, sizeof buf - 1, 0);
      std::string holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "?";
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      return make_error(ErrorCode::busy, "another condacuda (pid " + holder + ") is changing this env; try again", lock_path);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The holder's pid, for the message a waiting process prints.
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) == 0) (void)!::pwrite(fd.get(), pid.data(), pid.size(), 0);
  fd_ = std::move(fd);
  return ok_status();
}

} // namespace condacuda::sys
