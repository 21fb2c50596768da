#include "sys/posix.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strings.hpp"

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

std::string temporary_name(const std::string& name) {
  static std::atomic<unsigned> counter{0};
  return name + std::string(temporary_marker) + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

Status write_all(int fd, std::string_view content, const char* what, const std::string& path) {
  for (std::size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(errno, what, path);
    done += static_cast<std::size_t>(n);
  }
  return ok_status();
}

namespace {
// The error of the call that just failed (errno), after removing the temporary.
Status fail_removing(int dir, const std::string& tmp, const std::string& shown, const char* what) {
  Error e = errno_error(errno, what, shown);
  ::unlinkat(dir, tmp.c_str(), 0);
  return e;
}

// The folder that holds `path` (its parent, "." for a bare name), opened.
Result<Fd> open_parent(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  Fd dir(::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return errno_error(errno, "cannot open the folder to write in", path);
  return dir;
}
} // namespace

Result<Temporary> create_temporary_at(int dir, const std::string& name, const std::string& shown) {
  for (int attempt = 0;; ++attempt) {
    Temporary t{Fd(), temporary_name(name)};
    // O_EXCL: a file (or a link planted) at that name is never opened.
    t.fd = Fd(::openat(dir, t.name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (t.fd.valid()) return t;
    if (errno != EEXIST || attempt > 100) return errno_error(errno, "cannot create a temporary file next to it", shown);
  }
}

Status commit_temporary_at(int dir, Temporary tmp, const std::string& name, unsigned mode, const std::string& shown,
                           Durability durability) {
  if (::fchmod(tmp.fd.get(), mode) != 0 || (durability == Durability::synced && ::fsync(tmp.fd.get()) != 0))
    return fail_removing(dir, tmp.name, shown, "cannot write");
  if (::close(tmp.fd.release()) != 0) return fail_removing(dir, tmp.name, shown, "cannot write");
  if (::renameat(dir, tmp.name.c_str(), dir, name.c_str()) != 0)
    return fail_removing(dir, tmp.name, shown, "cannot rename into place");
  return ok_status();
}

Status write_file_at(int dir, const std::string& name, std::string_view content, unsigned mode,
                     const std::string& shown, std::optional<FileOwner> owner, Durability durability) {
  auto tmp = create_temporary_at(dir, name, shown);
  if (!tmp) return tmp.error();
  if (auto written = write_all(tmp->fd.get(), content, "cannot write", shown); !written) {
    ::unlinkat(dir, tmp->name.c_str(), 0);
    return written;
  }
  if (owner) (void)::fchown(tmp->fd.get(), owner->uid, owner->gid); // before fchmod: chown clears set-id bits
  return commit_temporary_at(dir, std::move(*tmp), name, mode, shown, durability);
}

Status write_symlink_at(int dir, const std::string& name, const std::string& target, const std::string& shown) {
  std::string tmp;
  for (int attempt = 0;; ++attempt) {
    tmp = temporary_name(name);
    if (::symlinkat(target.c_str(), dir, tmp.c_str()) == 0) break;
    if (errno != EEXIST || attempt > 100) return errno_error(errno, "cannot create symlink", shown);
  }
  if (::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0)
    return fail_removing(dir, tmp, shown, "cannot rename into place");
  return ok_status();
}

Status write_file_atomically(const std::string& path, std::string_view content, unsigned mode, Durability durability) {
  auto dir = open_parent(path);
  if (!dir) return dir.error();
  return write_file_at(dir->get(), fs::path(path).filename().string(), content, mode, path, std::nullopt, durability);
}

namespace {
// The path a chain of symlinks at `path` leads to (each link's text read
// relative to its own folder), without requiring that the end exists.
Result<std::string> follow_links(std::string path) {
  for (int hop = 0; hop < 40; ++hop) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::error_code ec;
    fs::path target = fs::read_symlink(path, ec);
    if (ec) return errno_error(ec.value(), "cannot read the symbolic link", path);
    path = (target.is_absolute() ? target : fs::path(path).parent_path() / target).lexically_normal().string();
  }
  return errno_error(ELOOP, "cannot follow", path);
}

// Writes into what is already there (a device, a FIFO): no rename, no O_CREAT.
Status write_in_place(const std::string& path, std::string_view content) {
  // O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting.
  Fd f(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!f.valid())
    return errno == ENXIO ? make_error(ErrorCode::io, "nothing reads this FIFO (or socket): not written", path)
                          : errno_error(errno, "cannot open to write", path);
  const int flags = ::fcntl(f.get(), F_GETFL);
  if (flags >= 0) ::fcntl(f.get(), F_SETFL, flags & ~O_NONBLOCK); // a slow reader is waited for, as any writer would
  return write_all(f.get(), content, "cannot write", path);
}
} // namespace

Status write_named_output(const std::string& named, std::string_view content) {
  auto path = follow_links(named);
  if (!path) return path.error();
  struct stat st {};
  if (::lstat(path->c_str(), &st) != 0) {
    if (errno != ENOENT) return errno_error(errno, "cannot write", *path);
    return write_file_atomically(*path, content);
  }
  if (S_ISREG(st.st_mode)) return write_file_atomically(*path, content, st.st_mode & 07777);
  if (S_ISDIR(st.st_mode)) return make_error(ErrorCode::bad_input, "is a folder, not a file to write", *path);
  if (S_ISSOCK(st.st_mode)) return make_error(ErrorCode::bad_input, "is a socket, not a file to write", *path);
  return write_in_place(*path, content); // a character or block device, a FIFO
}

Result<std::vector<std::string>> regular_files_in(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (std::error_code type_ec; it->is_regular_file(type_ec)) out.push_back(it->path().string());
  if (ec) return make_error(error_code_for_errno(ec.value()), "cannot list " + dir + ": " + ec.message(), dir);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? std::optional(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  for (const auto& dir : util::split(path ? path : "/usr/bin:/bin", ":")) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

bool path_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

bool is_directory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  return ec ? fs::path(path).lexically_normal().string() : real.string();
}

std::string self_executable() { return canonical_path("/proc/self/exe"); }

} // namespace condacuda::sys
