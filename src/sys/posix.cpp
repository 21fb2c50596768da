#include "sys/posix.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace condacuda::sys {

namespace fs = std::filesystem;

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::release() noexcept {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

ErrorCode error_code_for_errno(int e) { return (e == ENOENT || e == ENOTDIR) ? ErrorCode::not_found : ErrorCode::io; }

Error errno_error(int e, std::string_view what, const std::string& path) {
  return make_error(error_code_for_errno(e), std::string(what) + ": " + std::strerror(e), path);
}

namespace {
// A name beside `path` that no other writer of this process or another uses
// at the same time: the pid and a per-process counter.
std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + std::string(temporary_marker) + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// The error of the call that just failed (errno), after removing the temporary.
Status fail_removing(const std::string& tmp, const std::string& path, const char* what) {
  Error e = errno_error(errno, what, path);
  ::unlink(tmp.c_str());
  return e;
}
} // namespace

Status write_file_atomically(const std::string& path, std::string_view content, unsigned mode) {
  std::string tmp;
  Fd f;
  for (int attempt = 0; !f.valid(); ++attempt) {
    tmp = temporary_name(path);
    // O_EXCL: a file (or a link planted) at that name is never opened.
    f = Fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!f.valid() && (errno != EEXIST || attempt > 100))
      return errno_error(errno, "cannot create a temporary file next to it", path);
  }
  for (std::size_t done = 0; done < content.size();) {
    ssize_t n = ::write(f.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail_removing(tmp, path, "cannot write");
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(f.get(), mode) != 0 || ::fsync(f.get()) != 0) return fail_removing(tmp, path, "cannot write");
  if (::close(f.release()) != 0) return fail_removing(tmp, path, "cannot write");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail_removing(tmp, path, "cannot rename into place");
  return ok_status();
}

Status write_symlink_atomically(const std::string& path, const std::string& target) {
  std::string tmp;
  for (int attempt = 0;; ++attempt) {
    tmp = temporary_name(path);
    if (::symlink(target.c_str(), tmp.c_str()) == 0) break;
    if (errno != EEXIST || attempt > 100) return errno_error(errno, "cannot create symlink", path);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail_removing(tmp, path, "cannot rename into place");
  return ok_status();
}

Result<bool> make_directory(const std::string& path, unsigned mode) {
  if (::mkdir(path.c_str(), mode) == 0) return true;
  if (errno == EEXIST) return false;
  return errno_error(errno, "cannot create folder", path);
}

Status remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errno_error(errno, "cannot remove", path);
  return ok_status();
}

void remove_directory_if_empty(const std::string& path) { ::rmdir(path.c_str()); }

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  return ec ? fs::path(path).lexically_normal().string() : real.string();
}

std::string self_executable() { return canonical_path("/proc/self/exe"); }

} // namespace condacuda::sys
