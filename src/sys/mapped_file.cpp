#include "sys/mapped_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace condacuda::sys {

namespace {
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error errno_error(int e, const std::string& path, const char* what) {
  ErrorCode code = (e == ENOENT || e == ENOTDIR) ? ErrorCode::not_found : ErrorCode::io;
  return make_error(code, std::string(what) + ": " + std::strerror(e), path);
}
} // namespace

Result<elf::FileBytes> map_file(const std::string& path, int* errno_out) {
  Fd f;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer,
  // forever in an env scan. It changes nothing for the mmap of a regular file.
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f.fd < 0) {
    int e = errno;
    if (errno_out) *errno_out = e;
    return errno_error(e, path, "cannot open");
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    int e = errno;
    if (errno_out) *errno_out = e;
    return errno_error(e, path, "cannot stat");
  }
  if (S_ISDIR(st.st_mode)) {
    if (errno_out) *errno_out = EISDIR;
    return errno_error(EISDIR, path, "cannot read");
  }
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    // Not a file of bytes (ld.so itself would block reading the FIFO).
    if (errno_out) *errno_out = EINVAL;
    return make_error(ErrorCode::io, std::string("cannot read: not a regular file (a ") +
                                         (S_ISFIFO(st.st_mode) ? "FIFO" : "socket") + ")", path);
  }
  auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) return elf::FileBytes{};
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    if (errno_out) *errno_out = e;
    return errno_error(e, path, "cannot map");
  }
  std::shared_ptr<const void> owner(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
  return elf::FileBytes{owner, std::span<const std::byte>(static_cast<const std::byte*>(p), size)};
}

Result<std::string> read_text_file(const std::string& path) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) return errno_error(errno, path, "cannot open");
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(errno, path, "cannot read");
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

} // namespace condacuda::sys
