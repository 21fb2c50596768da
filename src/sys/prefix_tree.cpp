#include "sys/prefix_tree.hpp"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

#include "sys/file_copy.hpp"
#include "sys/mapped_file.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/path.hpp"

namespace condacuda::sys {

namespace {
constexpr int folder_flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

std::string link_text(int dir, const std::string& name) {
  char buf[4096];
  ssize_t n = ::readlinkat(dir, name.c_str(), buf, sizeof buf);
  return n < 0 ? std::string() : std::string(buf, static_cast<std::size_t>(n));
}

// The pid holding a flock on the file (dev, ino), from /proc/locks; "?" when unknown.
std::string flock_holder(dev_t dev, ino_t ino) {
  std::ifstream locks("/proc/locks");
  char id[64];
  std::snprintf(id, sizeof id, "%02x:%02x:%llu", ::major(dev), ::minor(dev), static_cast<unsigned long long>(ino));
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string n, type, advisory, mode, pid, file;
    if (fields >> n >> type >> advisory >> mode >> pid >> file && type == "FLOCK" && file == id) return pid;
  }
  return "?";
}

} // namespace

Result<PrefixTree> PrefixTree::open(const std::string& prefix) {
  Fd root(::open(prefix.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return errno_error(errno, "cannot open the env", prefix);
  struct stat st {};
  const bool others_env = ::geteuid() == 0 && ::fstat(root.get(), &st) == 0 && (st.st_uid != 0 || st.st_gid != 0);
  PrefixTree tree(std::move(root), prefix);
  if (others_env) tree.owner_ = FileOwner{st.st_uid, st.st_gid};
  return tree;
}

void PrefixTree::give_to_owner(int dir, const std::string& leaf, unsigned type) const {
  if (!owner_) return;
  // By descriptor, after checking what it is: the env's owner could swap the
  // name for a hard link to a file of the system between our creating it and
  // this call, and chown by name would hand that file over.
  Fd held(::openat(dir, leaf.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!held.valid() || ::fstat(held.get(), &st) != 0 || (st.st_mode & S_IFMT) != type) return;
  (void)::fchownat(held.get(), "", owner_->uid, owner_->gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

void PrefixTree::give_to_owner(int fd) const {
  if (owner_) (void)::fchown(fd, owner_->uid, owner_->gid);
}

Error PrefixTree::unreachable(const std::string& rel, const std::string& component, int e) const {
  std::string shown = path_ + "/" + rel;
  if (e == ENOENT) return errno_error(e, "cannot reach", shown);
  // `component` is prefix-relative: never "/x", so dir_name is "" or a folder.
  std::string parent = util::dir_name(component);
  std::string name = util::base_name(component);
  struct stat st {};
  Fd dir(parent.empty() ? ::dup(root_.get()) : ::openat(root_.get(), parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::string what = "is not a folder";
  if (dir.valid() && ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
    what = "is a symbolic link (to " + link_text(dir.get(), name) + ")";
  return make_error(ErrorCode::conflict, component + " " + what + ": condacuda does not write or delete through it",
                    shown);
}

Result<Fd> PrefixTree::parent_of(const std::string& rel, std::string& leaf) const {
  if (!util::is_confined_relative_path(rel))
    return make_error(ErrorCode::bad_input, "'" + rel + "' is not a path inside the env", path_);
  auto parts = util::split(rel, "/");
  leaf = parts.back();
  Fd dir(::dup(root_.get()));
  if (!dir.valid()) return errno_error(errno, "cannot open the env", path_);
  std::string walked;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    walked += (walked.empty() ? "" : "/") + parts[i];
    Fd next(::openat(dir.get(), parts[i].c_str(), folder_flags));
    if (!next.valid()) {
      int e = errno;
      if (e == ELOOP || e == ENOTDIR || e == ENOENT) return unreachable(rel, walked, e);
      return errno_error(e, "cannot open", path_ + "/" + walked);
    }
    dir = std::move(next);
  }
  return dir;
}

namespace {
// flock(LOCK_EX) on `fd`, retried until `deadline`. ENOLCK and friends (NFS
// emulates flock with byte-range locks, which need a descriptor open for
// writing) come back as their errno; busy as EWOULDBLOCK.
int flock_until(int fd, std::chrono::steady_clock::time_point deadline) {
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return errno;
    if (std::chrono::steady_clock::now() >= deadline) return EWOULDBLOCK;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

bool flock_unsupported(int e) { return e == EBADF || e == ENOLCK || e == EOPNOTSUPP || e == EINVAL; }
} // namespace

Status PrefixTree::lock(std::chrono::milliseconds wait) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  int locked_fd = root_.get();
  int e = flock_until(locked_fd, deadline);
  if (flock_unsupported(e)) {
    // Where a folder cannot be locked: a file every env has and condacuda
    // never writes, opened for writing only so that the lock can be exclusive.
    for (const char* marker : {"conda-meta/history", "pyvenv.cfg"}) {
      std::string leaf;
      auto dir = parent_of(marker, leaf);
      if (!dir) continue;
      Fd f(::openat(dir->get(), leaf.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
      struct stat st {};
      if (f.valid() && ::fstat(f.get(), &st) == 0 && S_ISREG(st.st_mode)) {
        lock_fd_ = std::move(f);
        break;
      }
    }
    if (!lock_fd_.valid()) return errno_error(e, "cannot lock the env (nor its conda-meta/history or pyvenv.cfg)", path_);
    locked_fd = lock_fd_.get();
    e = flock_until(locked_fd, deadline);
  }
  if (e == EWOULDBLOCK) {
    struct stat st {};
    std::string holder = ::fstat(locked_fd, &st) == 0 ? flock_holder(st.st_dev, st.st_ino) : "?";
    return make_error(ErrorCode::busy, "another condacuda (pid " + holder + ") is changing this env; try again", path_);
  }
  if (e != 0) return errno_error(e, "cannot lock the env", path_);
  return ok_status();
}

repair::PathState PrefixTree::state(const std::string& rel, std::uint64_t max_bytes) const {
  repair::PathState s;
  std::string leaf;
  auto dir = parent_of(rel, leaf);
  if (!dir) {
    if (dir.error().code != ErrorCode::not_found) {
      s.kind = repair::PathState::Kind::unreachable;
      s.why = dir.error().message;
    }
    return s;
  }
  struct stat st {};
  if (::fstatat(dir->get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) { // there, but not for condacuda to judge (EACCES): never taken as gone
      s.kind = repair::PathState::Kind::unreachable;
      s.why = rel + ": " + std::strerror(errno);
    }
    return s;
  }
  if (S_ISLNK(st.st_mode)) {
    s.kind = repair::PathState::Kind::symlink;
    s.target = link_text(dir->get(), leaf);
    return s;
  }
  s.kind = repair::PathState::Kind::other;
  if (!S_ISREG(st.st_mode)) return s;
  Fd f(::openat(dir->get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  auto content = f.valid() ? read_regular_file(f.get(), max_bytes, rel) : Result<std::string>(Error{});
  if (!content) return s; // not readable, or larger than anything condacuda writes
  s.kind = repair::PathState::Kind::file;
  s.sha256 = util::to_hex(util::sha256(*content));
  return s;
}

Result<std::optional<std::string>> PrefixTree::read_file(const std::string& rel, std::uint64_t max_bytes) const {
  std::string leaf, shown = path_ + "/" + rel;
  auto dir = parent_of(rel, leaf);
  if (!dir) return dir.error().code == ErrorCode::not_found ? Result<std::optional<std::string>>(std::nullopt)
                                                            : Result<std::optional<std::string>>(dir.error());
  struct stat st {};
  if (::fstatat(dir->get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return errno_error(errno, "cannot read", shown);
  }
  if (S_ISLNK(st.st_mode)) return make_error(ErrorCode::corrupt, "is a symbolic link, not a file condacuda wrote", shown);
  Fd f(::openat(dir->get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!f.valid()) return errno_error(errno, "cannot read", shown);
  auto content = read_regular_file(f.get(), max_bytes, shown);
  if (!content) return content.error();
  return std::optional<std::string>(std::move(*content));
}

Result<std::optional<PrefixTree::Source>> PrefixTree::open_source(const std::string& rel, bool through_link,
                                                                  std::uint64_t max_bytes) const {
  std::string leaf, shown = path_ + "/" + rel;
  auto dir = parent_of(rel, leaf);
  if (!dir) return dir.error().code == ErrorCode::not_found ? Result<std::optional<Source>>(std::nullopt)
                                                            : Result<std::optional<Source>>(dir.error());
  Source out;
  struct stat st {};
  int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  if (through_link) {
    if (::fstatat(dir->get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(st.st_mode))
      return std::optional<Source>();
    out.link_text = link_text(dir->get(), leaf);
    // Following the link is the point here: O_NONBLOCK so that a FIFO at the
    // far end never blocks, and only a regular file is read.
  } else {
    flags |= O_NOFOLLOW;
  }
  out.fd = Fd(::openat(dir->get(), leaf.c_str(), flags));
  if (!out.fd.valid()) {
    if (errno == ENOENT && !through_link) return std::optional<Source>();
    if (errno == ELOOP && !through_link)
      return make_error(ErrorCode::conflict, "is a symbolic link: condacuda does not read through it", shown);
    return errno_error(errno, through_link ? "cannot read what the link leads to" : "cannot read", shown);
  }
  if (::fstat(out.fd.get(), &st) != 0) return errno_error(errno, "cannot read", shown);
  if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::corrupt, "is not a regular file", shown);
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return make_error(ErrorCode::corrupt, "is " + std::to_string(st.st_size) + " bytes, more than the " +
                                              std::to_string(max_bytes) + " condacuda reads of such a file", shown);
  out.mode = static_cast<unsigned>(st.st_mode & 07777);
  out.size = static_cast<std::uint64_t>(st.st_size);
  return std::optional<Source>(std::move(out));
}

Result<std::optional<PrefixTree::Digests>> PrefixTree::digests(const std::string& rel, const elf::TagEdit& edit,
                                                               bool through_link, std::uint64_t max_bytes) const {
  auto source = open_source(rel, through_link, max_bytes);
  if (!source) return source.error();
  if (!*source) return std::optional<Digests>();
  auto hashed = hash_file((*source)->fd.get(), edit, path_ + "/" + rel);
  if (!hashed) return hashed.error();
  return std::optional<Digests>(Digests{(*source)->link_text, hashed->sha256, hashed->retagged_sha256});
}

Result<bool> PrefixTree::write_edited_copy(const EditedCopy& copy, std::uint64_t max_bytes) {
  const std::string shown = path_ + "/" + copy.to;
  auto source = open_source(copy.from, copy.through_link, max_bytes);
  if (!source) return source.error();
  if (!*source || (copy.through_link && (*source)->link_text != copy.link_text)) return false;
  std::string leaf;
  auto dir = parent_of(copy.to, leaf);
  if (!dir) return dir.error();
  auto tmp = create_temporary_at(dir->get(), leaf, shown);
  if (!tmp) return tmp.error();
  const int out = tmp->fd.get();
  auto fail = [&](Result<bool> r) {
    ::unlinkat(dir->get(), tmp->name.c_str(), 0);
    return r;
  };
  if (auto s = copy_file_sparse((*source)->fd.get(), out, (*source)->size, shown); !s) return fail(s.error());
  // The tags in the copy: what the edit expects, then what it makes.
  const std::string was = elf::tag_bytes(copy.edit.from), now = elf::tag_bytes(copy.edit.to);
  for (std::uint64_t at : copy.edit.offsets) {
    char tag[8];
    if (at > (*source)->size || (*source)->size - at < sizeof tag ||
        ::pread(out, tag, sizeof tag, static_cast<off_t>(at)) != static_cast<ssize_t>(sizeof tag) ||
        std::string_view(tag, sizeof tag) != was)
      return fail(false);
  }
  for (std::uint64_t at : copy.edit.offsets)
    if (::pwrite(out, now.data(), now.size(), static_cast<off_t>(at)) != static_cast<ssize_t>(now.size()))
      return fail(errno_error(errno, "cannot write", shown));
  auto hashed = hash_file(out, {}, shown);
  if (!hashed) return fail(hashed.error());
  if (hashed->sha256 != copy.sha256) return fail(false);
  give_to_owner(out); // before the mode: chown clears set-id bits
  if (auto s = commit_temporary_at(dir->get(), std::move(*tmp), leaf, (*source)->mode, shown); !s) return s.error();
  return true;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> PrefixTree::identity(const std::string& rel) const {
  std::string leaf;
  auto dir = parent_of(rel, leaf);
  struct stat st {};
  if (!dir || ::fstatat(dir->get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return std::make_pair(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
}

std::string PrefixTree::file_sha256(const std::string& rel) const {
  std::string leaf;
  auto dir = parent_of(rel, leaf);
  if (!dir) return "";
  Fd f(::openat(dir->get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!f.valid() || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  auto hashed = hash_file(f.get(), {}, path_ + "/" + rel);
  return hashed ? hashed->sha256 : "";
}

namespace {
bool cannot_link_here(int e) { return e == EXDEV || e == EPERM || e == EOPNOTSUPP || e == EMLINK; }
} // namespace

Result<bool> PrefixTree::hard_link(const std::string& from, const std::string& to) {
  std::string from_leaf, to_leaf;
  auto from_dir = parent_of(from, from_leaf);
  if (!from_dir) return from_dir.error();
  auto to_dir = parent_of(to, to_leaf);
  if (!to_dir) return to_dir.error();
  if (::linkat(from_dir->get(), from_leaf.c_str(), to_dir->get(), to_leaf.c_str(), 0) == 0) return true;
  if (cannot_link_here(errno)) return false;
  return errno_error(errno, "cannot link " + path_ + "/" + from + " as", path_ + "/" + to);
}

Result<bool> PrefixTree::replace_with_link(const std::string& from, const std::string& to) {
  std::string from_leaf, to_leaf;
  auto from_dir = parent_of(from, from_leaf);
  if (!from_dir) return from_dir.error();
  auto to_dir = parent_of(to, to_leaf);
  if (!to_dir) return to_dir.error();
  std::string tmp;
  for (int attempt = 0;; ++attempt) {
    tmp = temporary_name(to_leaf);
    if (::linkat(from_dir->get(), from_leaf.c_str(), to_dir->get(), tmp.c_str(), 0) == 0) break;
    if (cannot_link_here(errno)) return false;
    if (errno != EEXIST || attempt > 100) return errno_error(errno, "cannot link next to", path_ + "/" + to);
  }
  if (::renameat(to_dir->get(), tmp.c_str(), to_dir->get(), to_leaf.c_str()) != 0) {
    int e = errno;
    ::unlinkat(to_dir->get(), tmp.c_str(), 0);
    return errno_error(e, "cannot rename into place", path_ + "/" + to);
  }
  return true;
}

Result<bool> PrefixTree::make_directory(const std::string& rel) {
  std::string leaf;
  auto dir = parent_of(rel, leaf);
  if (!dir) return dir.error();
  if (::mkdirat(dir->get(), leaf.c_str(), 0755) == 0) {
    give_to_owner(dir->get(), leaf, S_IFDIR);
    return true;
  }
  if (errno != EEXIST) return errno_error(errno, "cannot create folder", path_ + "/" + rel);
  struct stat st {};
  if (::fstatat(dir->get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) return false;
  return unreachable(rel, rel, ENOTDIR);
}

Status PrefixTree::write_file(const std::string& rel, std::string_view content, unsigned mode) {
  std::string leaf;
  auto dir = parent_of(rel, leaf);
  if (!dir) return dir.error();
  return write_file_at(dir->get(), leaf, content, mode, path_ + "/" + rel, owner_);
}

Status PrefixTree::write_symlink(const std::string& rel, const std::string& target) {
  std::string leaf;
  auto dir = parent_of(rel, leaf);
  if (!dir) return dir.error();
  auto written = write_symlink_at(dir->get(), leaf, target, path_ + "/" + rel);
  if (written) give_to_owner(dir->get(), leaf, S_IFLNK);
  return written;
}

Status PrefixTree::append_file(const std::string& rel, std::string_view text) {
  std::string leaf, shown = path_ + "/" + rel;
  auto dir = parent_of(rel, leaf);
  if (!dir) return dir.error();
  Fd f(::openat(dir->get(), leaf.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                0644));
  if (!f.valid()) return errno_error(errno, "cannot append to", shown);
  struct stat st {};
  if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return make_error(ErrorCode::conflict, "is not a regular file: condacuda does not write to it", shown);
  give_to_owner(f.get());
  return write_all(f.get(), text, "cannot append to", shown);
}

Status PrefixTree::remove_file(const std::string& rel) {
  std::string leaf;
  auto dir = parent_of(rel, leaf);
  if (!dir) return dir.error().code == ErrorCode::not_found ? ok_status() : Status(dir.error());
  if (::unlinkat(dir->get(), leaf.c_str(), 0) != 0 && errno != ENOENT)
    return errno_error(errno, "cannot remove", path_ + "/" + rel);
  return ok_status();
}

void PrefixTree::remove_directory_if_empty(const std::string& rel) {
  std::string leaf;
  if (auto dir = parent_of(rel, leaf)) ::unlinkat(dir->get(), leaf.c_str(), AT_REMOVEDIR);
}

Status PrefixTree::touch_folder(const std::string& rel) {
  auto dir = folder(rel);
  if (!dir) return dir.error();
  if (::futimens(dir->get(), nullptr) != 0) return errno_error(errno, "cannot set the time of", path_ + "/" + rel);
  return ok_status();
}

Result<Fd> PrefixTree::folder(const std::string& rel) const {
  if (rel.empty()) {
    // A new open file description: a dup would share its directory offset.
    Fd root(::openat(root_.get(), ".", folder_flags));
    if (!root.valid()) return errno_error(errno, "cannot open the env", path_);
    return root;
  }
  std::string leaf;
  auto parent = parent_of(rel, leaf);
  if (!parent) return parent.error();
  Fd dir(::openat(parent->get(), leaf.c_str(), folder_flags));
  if (!dir.valid()) return unreachable(rel, rel, errno);
  return dir;
}

namespace {
// The names in the open folder `dir` but . and .., sorted; `dir` is not consumed.
std::optional<std::vector<std::string>> names_in(int dir) {
  int fd = ::openat(dir, ".", folder_flags); // its own offset: a dup would share it
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (!d) {
    if (fd >= 0) ::close(fd);
    return std::nullopt;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..") names.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}
} // namespace

std::optional<std::vector<std::string>> PrefixTree::list(const std::string& rel) const {
  auto dir = folder(rel);
  if (!dir) return std::nullopt;
  return names_in(dir->get());
}

Status PrefixTree::rename_new(const std::string& from, const std::string& to) {
  std::string from_leaf, to_leaf;
  auto from_dir = parent_of(from, from_leaf);
  if (!from_dir) return from_dir.error();
  auto to_dir = parent_of(to, to_leaf);
  if (!to_dir) return to_dir.error();
  if (::renameat2(from_dir->get(), from_leaf.c_str(), to_dir->get(), to_leaf.c_str(), RENAME_NOREPLACE) != 0)
    return errno_error(errno, "cannot rename into place", path_ + "/" + to);
  return ok_status();
}

namespace {
// Removes the entry `name` of `dir`, and when it is a folder (not a link)
// everything in it first; bounded in depth (temporaries are shallow).
void remove_entry(int dir, const std::string& name, int depth) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    ::unlinkat(dir, name.c_str(), 0);
    return;
  }
  int fd = depth < 4 ? ::openat(dir, name.c_str(), folder_flags) : -1;
  if (DIR* d = fd < 0 ? nullptr : ::fdopendir(fd)) { // owns fd from here
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d))
      if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..") names.emplace_back(e->d_name);
    for (const auto& n : names) remove_entry(::dirfd(d), n, depth + 1);
    ::closedir(d);
  } else if (fd >= 0) {
    ::close(fd);
  }
  ::unlinkat(dir, name.c_str(), AT_REMOVEDIR);
}
} // namespace

std::vector<std::string> PrefixTree::remove_temporaries(const std::string& rel_dir) {
  std::vector<std::string> removed;
  auto dir = folder(rel_dir);
  if (!dir) return removed;
  for (const auto& name : names_in(dir->get()).value_or(std::vector<std::string>{})) {
    if (name.find(temporary_marker) == std::string::npos) continue;
    remove_entry(dir->get(), name, 0);
    removed.push_back(rel_dir.empty() ? name : rel_dir + "/" + name);
  }
  return removed;
}

} // namespace condacuda::sys
