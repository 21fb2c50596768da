#include "sys/mapped_file.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/posix.hpp"

namespace condacuda::sys {

namespace {
constexpr std::size_t head_bytes = 4096; // the header's page
} // namespace

Result<elf::FileBytes> map_file(const std::string& path, int* errno_out) {
  auto opened = map_file_open(path, errno_out);
  if (!opened) return opened.error();
  return std::move(opened->bytes);
}

bool DescriptorCopies::copy(std::uint64_t offset, std::span<std::byte> out) const {
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool ReopenedCopies::copy(std::uint64_t offset, std::span<std::byte> out) const {
  if (!opened_) {
    opened_ = true;
    fd_ = reopen_mapped(path_, mapped_);
  }
  return fd_.valid() && DescriptorCopies(fd_.get()).copy(offset, out);
}

Result<OpenMap> map_file_open(const std::string& path, int* errno_out) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer,
  // forever in an env scan. It changes nothing for the mmap of a regular file.
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!f.valid()) {
    int e = errno;
    if (errno_out) *errno_out = e;
    return errno_error(e, "cannot open", path);
  }
  struct stat st {};
  if (::fstat(f.get(), &st) != 0) {
    int e = errno;
    if (errno_out) *errno_out = e;
    return errno_error(e, "cannot stat", path);
  }
  if (S_ISDIR(st.st_mode)) {
    if (errno_out) *errno_out = EISDIR;
    return errno_error(EISDIR, "cannot read", path);
  }
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    // Not a file of bytes (ld.so itself would block reading the FIFO).
    if (errno_out) *errno_out = EINVAL;
    return make_error(ErrorCode::io, std::string("cannot read: not a regular file (a ") +
                                         (S_ISFIFO(st.st_mode) ? "FIFO" : "socket") + ")", path);
  }
  auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) return OpenMap{elf::FileBytes{}, std::move(f)};
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f.get(), 0);
  if (p == MAP_FAILED) {
    int e = errno;
    if (errno_out) *errno_out = e;
    return errno_error(e, "cannot map", path);
  }
  std::shared_ptr<const void> owner(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
  elf::FileBytes bytes{owner, std::span<const std::byte>(static_cast<const std::byte*>(p), size),
                       elf::FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)},
                       nullptr, {}};
  // The first page read with pread as well (elf::FileBytes::head): every
  // reader of the header reads the copy; a short read leaves the map alone.
  const std::size_t head_size = std::min<std::size_t>(size, head_bytes);
  auto head = std::make_shared<std::array<std::byte, head_bytes>>();
  if (DescriptorCopies(f.get()).copy(0, std::span<std::byte>(head->data(), head_size))) {
    bytes.head = std::span<const std::byte>(head->data(), head_size);
    bytes.head_owner = std::move(head);
  }
  return OpenMap{std::move(bytes), std::move(f)};
}

Fd reopen_mapped(const std::string& path, const elf::FileBytes& mapped) {
  if (!mapped.source.known()) return Fd();
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat st {};
  if (!f.valid() || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      elf::FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)} != mapped.source ||
      static_cast<std::uint64_t>(st.st_size) != mapped.data.size())
    return Fd();
  return f;
}

namespace {
const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a folder";
  return "not a file of bytes";
}
} // namespace

Result<std::string> read_regular_file(int fd, std::uint64_t max_bytes, const std::string& shown, struct stat* st_out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_error(errno, "cannot stat", shown);
  if (st_out) *st_out = st;
  if (!S_ISREG(st.st_mode))
    return make_error(ErrorCode::corrupt, std::string("is not a regular file (") + kind_of(st.st_mode) + ")", shown);
  if (std::uint64_t(st.st_size) > max_bytes)
    return make_error(ErrorCode::corrupt, "is " + std::to_string(st.st_size) + " bytes, more than the " +
                                              std::to_string(max_bytes) + " condacuda reads of such a file", shown);
  // Read straight into the string, sized for what fstat reported plus one
  // byte (to see the end of a file that has not grown): no bounce buffer, no
  // regrowth for a 200 KiB RECORD. A file that grows while read (or a /proc
  // file, size 0) makes it grow, up to the cap.
  std::string out;
  std::size_t used = 0;
  out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t(st.st_size), max_bytes)) + 1);
  for (;;) {
    if (used == out.size()) {
      if (out.size() > max_bytes)
        return make_error(ErrorCode::corrupt, "holds more than the " + std::to_string(max_bytes) +
                                                  " bytes condacuda reads of such a file", shown);
      out.resize(std::min<std::uint64_t>(std::max<std::size_t>(out.size() * 2, 4096), max_bytes + 1));
    }
    ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(errno, "cannot read", shown);
    }
    if (n == 0) {
      out.resize(used);
      return out;
    }
    used += static_cast<std::size_t>(n);
  }
}

Result<std::string> read_text_file(const std::string& path, std::uint64_t max_bytes, struct stat* st) {
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!f.valid()) return errno_error(errno, "cannot open", path);
  return read_regular_file(f.get(), max_bytes, path, st);
}

} // namespace condacuda::sys
