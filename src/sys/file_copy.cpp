#include "sys/file_copy.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "sys/posix.hpp"

namespace condacuda::sys {

namespace {
// The data extents of `fd` in [0, size): calls f(begin, end) for each, in
// order. Where the file system cannot tell (SEEK_DATA unsupported), the whole
// range is one extent.
template <class F>
Status for_each_extent(int fd, std::uint64_t size, const std::string& shown, F&& f) {
  for (std::uint64_t pos = 0; pos < size;) {
    off_t data = ::lseek(fd, static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) return ok_status(); // a hole to the end
      if (errno != EINVAL && errno != EOPNOTSUPP) return errno_error(errno, "cannot read", shown);
      return f(pos, size);
    }
    off_t hole = ::lseek(fd, data, SEEK_HOLE);
    std::uint64_t end = hole < 0 ? size : std::min<std::uint64_t>(static_cast<std::uint64_t>(hole), size);
    std::uint64_t begin = std::min<std::uint64_t>(static_cast<std::uint64_t>(data), size);
    if (begin < end)
      if (auto s = f(begin, end); !s) return s;
    if (end <= pos) break; // no progress: the file shrank under us
    pos = end;
  }
  return ok_status();
}

Error shrank(const std::string& shown) {
  return make_error(ErrorCode::conflict, "changed while condacuda was reading it (shorter than it was)", shown);
}

// pread of exactly n bytes at `at`, retrying short reads.
Status read_exactly(int fd, char* buf, std::size_t n, std::uint64_t at, const std::string& shown) {
  for (std::size_t done = 0; done < n;) {
    ssize_t r = ::pread(fd, buf + done, n - done, static_cast<off_t>(at + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno_error(errno, "cannot read", shown);
    if (r == 0) return shrank(shown);
    done += static_cast<std::size_t>(r);
  }
  return ok_status();
}

bool all_zero(const char* p, std::size_t n) {
  return std::all_of(p, p + n, [](char c) { return c == 0; });
}

// copy_file_range cannot serve here (an old kernel, another file system, a
// file system without it): the caller copies by reading and writing.
bool no_copy_file_range(int e) { return e == EXDEV || e == ENOSYS || e == EOPNOTSUPP || e == EINVAL || e == EBADF || e == EPERM; }
} // namespace

Result<elf::RetagHasher::Digests> hash_file(int fd, const elf::TagEdit& edit, const std::string& shown) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_error(errno, "cannot read", shown);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  elf::RetagHasher hasher(edit);
  std::vector<char> buf(stream_piece);
  static const std::string zeros(stream_piece, '\0');
  std::uint64_t fed = 0;
  auto feed_zeros_to = [&](std::uint64_t end) {
    for (; fed < end; fed += std::min<std::uint64_t>(end - fed, stream_piece))
      hasher.update(std::string_view(zeros.data(), std::min<std::uint64_t>(end - fed, stream_piece)));
  };
  auto s = for_each_extent(fd, size, shown, [&](std::uint64_t begin, std::uint64_t end) -> Status {
    feed_zeros_to(begin);
    while (fed < end) {
      auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - fed, stream_piece));
      if (auto r = read_exactly(fd, buf.data(), n, fed, shown); !r) return r;
      hasher.update(std::string_view(buf.data(), n));
      fed += n;
    }
    return ok_status();
  });
  if (!s) return s.error();
  feed_zeros_to(size);
  return hasher.finish();
}

Status copy_file_sparse(int from, int to, std::uint64_t size, const std::string& shown) {
  bool kernel_copy = true;
  std::vector<char> buf;
  auto s = for_each_extent(from, size, shown, [&](std::uint64_t begin, std::uint64_t end) -> Status {
    while (begin < end) {
      if (kernel_copy) {
        loff_t in = static_cast<loff_t>(begin), out = static_cast<loff_t>(begin);
        std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(end - begin, std::uint64_t{1} << 30));
        ssize_t n = ::copy_file_range(from, &in, to, &out, want, 0);
        if (n > 0) {
          begin += static_cast<std::uint64_t>(n);
          continue;
        }
        if (n == 0) return shrank(shown);
        if (errno == EINTR) continue;
        if (!no_copy_file_range(errno)) return errno_error(errno, "cannot copy", shown);
        kernel_copy = false;
      }
      if (buf.empty()) buf.resize(stream_piece);
      auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - begin, stream_piece));
      if (auto r = read_exactly(from, buf.data(), n, begin, shown); !r) return r;
      if (!all_zero(buf.data(), n)) { // a block of zeros stays a hole
        for (std::size_t done = 0; done < n;) {
          ssize_t w = ::pwrite(to, buf.data() + done, n - done, static_cast<off_t>(begin + done));
          if (w < 0 && errno == EINTR) continue;
          if (w < 0) return errno_error(errno, "cannot write a copy of", shown);
          done += static_cast<std::size_t>(w);
        }
      }
      begin += n;
    }
    return ok_status();
  });
  if (!s) return s;
  if (::ftruncate(to, static_cast<off_t>(size)) != 0) return errno_error(errno, "cannot write a copy of", shown);
  return ok_status();
}

} // namespace condacuda::sys
