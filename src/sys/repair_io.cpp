#include "sys/repair_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/env_lock.hpp"
#include "sys/mapped_file.hpp"
#include "util/sha256.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

namespace {
constexpr auto lock_wait = std::chrono::seconds(30);

Error errno_error(const std::string& what, const std::string& path) {
  return make_error(ErrorCode::io, what + ": " + std::strerror(errno), path);
}

std::string join(const std::string& prefix, const std::string& rel) { return prefix + "/" + rel; }
} // namespace

std::string condacuda_dir(const std::string& prefix) { return join(prefix, "etc/condacuda"); }

Result<std::optional<repair::Manifest>> read_manifest(const std::string& prefix) {
  std::string path = join(prefix, repair::manifest_path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::optional<repair::Manifest>();
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto m = repair::parse_manifest(*text);
  if (!m) return make_error(m.error().code, m.error().message, path);
  return std::optional<repair::Manifest>(std::move(*m));
}

std::map<std::string, repair::PathState> read_path_states(const std::string& prefix,
                                                          const std::vector<std::string>& paths) {
  std::map<std::string, repair::PathState> out;
  for (const auto& rel : paths) {
    repair::PathState s;
    std::string path = join(prefix, rel);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
      if (S_ISLNK(st.st_mode)) {
        s.kind = repair::PathState::Kind::symlink;
        std::error_code ec;
        s.target = fs::read_symlink(path, ec).string();
      } else if (S_ISREG(st.st_mode)) {
        s.kind = repair::PathState::Kind::file;
        if (auto text = read_text_file(path)) s.sha256 = util::to_hex(util::sha256(*text));
      } else {
        s.kind = repair::PathState::Kind::other;
      }
    }
    out[rel] = s;
  }
  return out;
}

std::vector<std::string> paths_of(const repair::DesiredState& desired, const std::optional<repair::Manifest>& previous) {
  std::set<std::string> paths;
  for (const auto& d : desired.entries) paths.insert(d.entry.path);
  if (previous)
    for (const auto& e : previous->entries) paths.insert(e.path);
  return {paths.begin(), paths.end()};
}

Status write_file_atomic(const std::string& path, const std::string& content, unsigned mode) {
  std::string tmp = path + ".condacuda-tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return errno_error("cannot write", path);
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e = errno_error("cannot write", path);
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Error e = errno_error("cannot write", path);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = errno_error("cannot rename into place", path);
    ::unlink(tmp.c_str());
    return e;
  }
  return ok_status();
}

Status write_symlink_atomic(const std::string& path, const std::string& target) {
  std::string tmp = path + ".condacuda-tmp-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  if (::symlink(target.c_str(), tmp.c_str()) != 0) return errno_error("cannot create symlink", path);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = errno_error("cannot rename into place", path);
    ::unlink(tmp.c_str());
    return e;
  }
  return ok_status();
}

namespace {
// Creates the folders the wanted files need, parents first; returns those it created.
Result<std::vector<std::string>> make_folders(const std::string& prefix, const std::vector<std::string>& files) {
  std::vector<std::string> created;
  std::set<std::string> wanted{"etc/condacuda"};
  for (const auto& f : files)
    for (fs::path p = fs::path(f).parent_path(); !p.empty(); p = p.parent_path()) wanted.insert(p.generic_string());
  for (const auto& rel : wanted) { // std::set order: parents before children
    std::string path = join(prefix, rel);
    if (::mkdir(path.c_str(), 0755) == 0) {
      created.push_back(rel);
    } else if (errno != EEXIST) {
      return errno_error("cannot create folder", path);
    }
  }
  return created;
}

Status write_manifest(const std::string& prefix, const repair::Manifest& m) {
  std::string path = join(prefix, repair::manifest_path);
  std::string text = repair::render_manifest(m);
  if (auto existing = read_text_file(path); existing && *existing == text) return ok_status();
  return write_file_atomic(path, text);
}

Status carry_out(const std::string& prefix, const repair::DesiredState& desired, const repair::Change& c) {
  using A = repair::Change::Action;
  std::string path = join(prefix, c.path);
  if (c.action == A::remove) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errno_error("cannot remove", path);
    return ok_status();
  }
  if (c.action != A::create && c.action != A::update) return ok_status();
  for (const auto& d : desired.entries) {
    if (d.entry.path != c.path) continue;
    if (d.entry.kind == repair::ManifestEntry::Kind::symlink) return write_symlink_atomic(path, d.entry.target);
    return write_file_atomic(path, d.content);
  }
  return make_error(ErrorCode::internal, "no content for a planned file", path);
}

void count(ApplyCounts& counts, repair::Change::Action a) {
  using A = repair::Change::Action;
  switch (a) {
  case A::create: ++counts.created; break;
  case A::update: ++counts.updated; break;
  case A::remove: ++counts.removed; break;
  case A::keep: ++counts.kept; break;
  case A::leave: ++counts.left; break;
  case A::conflict: break;
  }
}
} // namespace

Result<Applied> apply_repair(const std::string& prefix, const repair::DesiredState& desired, const std::string& tool) {
  std::vector<std::string> files;
  for (const auto& d : desired.entries) files.push_back(d.entry.path);
  auto dirs = make_folders(prefix, files);
  if (!dirs) return dirs.error();
  EnvLock lock;
  if (auto s = lock.acquire(join(prefix, "etc/condacuda/.lock"), lock_wait); !s) return s.error();
  // Under the lock: what is there now.
  auto previous = read_manifest(prefix);
  if (!previous) return previous.error();
  auto disk = read_path_states(prefix, paths_of(desired, *previous));
  Applied applied{{}, repair::compute_changes(desired, *previous, disk, tool)};
  if (applied.changes.conflicts()) return make_error(ErrorCode::conflict, "a path repair needs is taken", prefix);
  std::vector<std::string> all_dirs = *previous ? (*previous)->dirs : std::vector<std::string>{};
  for (const auto& d : *dirs)
    if (std::find(all_dirs.begin(), all_dirs.end(), d) == all_dirs.end()) all_dirs.push_back(d);
  applied.changes.manifest.dirs = all_dirs;
  applied.counts.dirs_created = *dirs;
  // The journal: everything that may exist after this run, old and new, so an
  // interrupted run leaves only files the manifest accounts for.
  repair::Manifest journal = applied.changes.manifest;
  if (*previous)
    for (const auto& e : (*previous)->entries)
      if (std::none_of(journal.entries.begin(), journal.entries.end(), [&](const auto& j) { return j.path == e.path; }))
        journal.entries.push_back(e);
  if (applied.changes.writes())
    if (auto s = write_manifest(prefix, journal); !s) return s.error();
  for (const auto& c : applied.changes.changes) {
    if (auto s = carry_out(prefix, desired, c); !s) return s.error();
    count(applied.counts, c.action);
  }
  if (auto s = write_manifest(prefix, applied.changes.manifest); !s) return s.error();
  return applied;
}

Result<Applied> apply_undo(const std::string& prefix) {
  auto manifest = read_manifest(prefix);
  if (!manifest) return manifest.error();
  if (!*manifest) return Applied{};
  EnvLock lock;
  if (auto s = lock.acquire(join(prefix, "etc/condacuda/.lock"), lock_wait); !s) return s.error();
  const repair::Manifest& m = **manifest;
  std::vector<std::string> paths;
  for (const auto& e : m.entries) paths.push_back(e.path);
  Applied applied{{}, repair::undo_changes(m, read_path_states(prefix, paths))};
  repair::Manifest left = m;
  left.entries.clear();
  for (const auto& c : applied.changes.changes) {
    if (c.action == repair::Change::Action::remove) {
      if (::unlink(join(prefix, c.path).c_str()) != 0 && errno != ENOENT) return errno_error("cannot remove", join(prefix, c.path));
    } else {
      for (const auto& e : m.entries)
        if (e.path == c.path) left.entries.push_back(e);
    }
    count(applied.counts, c.action);
  }
  if (!left.entries.empty()) {
    // Something stays: so does the manifest, listing what is left.
    if (auto s = write_manifest(prefix, left); !s) return s.error();
    return applied;
  }
  ::unlink(join(prefix, repair::manifest_path).c_str());
  ::unlink(join(prefix, "etc/condacuda/.lock").c_str());
  // Folders repair created, deepest first, when nothing else lives there.
  std::vector<std::string> dirs = m.dirs;
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& d : dirs) ::rmdir(join(prefix, d).c_str());
  return applied;
}

} // namespace condacuda::sys
