#include "sys/lock_io.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "sys/env_scan.hpp"
#include "sys/file_view.hpp"
#include "sys/mapped_file.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

std::optional<lock::DriverVersion> read_driver_version(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return std::nullopt;
  return lock::parse_proc_driver_version(*text);
}

std::string default_hash_cache_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/condacuda/hashes";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/condacuda/hashes";
  return "";
}

namespace {
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error errno_error(const std::string& what, const std::string& path, int e = errno) {
  return make_error(e == ENOENT ? ErrorCode::not_found : ErrorCode::io, what + ": " + std::strerror(e), path);
}

// What says a file is the one hashed before: a file rewritten in place changes
// mtime or size; a file replaced changes inode; cp -p and touch -r can set
// mtime back, but not ctime.
struct FileKey {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileKey&) const = default;
};

FileKey key_of(const struct stat& st) {
  auto ns = [](const struct timespec& t) { return std::int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; };
  return {std::uint64_t(st.st_dev), std::uint64_t(st.st_ino), std::uint64_t(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

constexpr std::string_view cache_magic = "condacuda hash cache 1";
constexpr std::size_t cache_limit = 100000; // entries; beyond it only this run's are kept

// The persistent cache: one line per file, "hex dev ino size mtime ctime path", tab-separated.
class HashCache {
public:
  explicit HashCache(std::string path) : path_(std::move(path)) {}

  void load(std::vector<std::string>& warnings) {
    if (path_.empty()) return;
    auto text = read_text_file(path_);
    if (!text) {
      if (text.error().code != ErrorCode::not_found) {
        warnings.push_back("hash cache ignored: " + text.error().describe());
        dirty_ = true;
      }
      return;
    }
    auto lines = util::split(*text, "\n");
    bool ok = !lines.empty() && lines.front() == cache_magic;
    for (std::size_t i = 1; ok && i < lines.size(); ++i) ok = lines[i].empty() || parse_line(lines[i]);
    if (!ok) {
      warnings.push_back(path_ + ": hash cache is corrupt; ignored and rewritten");
      entries_.clear();
      dirty_ = true;
    }
  }

  std::optional<std::string> find(const std::string& path, const FileKey& key) {
    auto it = entries_.find(path);
    if (it == entries_.end() || !(it->second.key == key)) return std::nullopt;
    it->second.used = true;
    return it->second.hex;
  }

  void store(const std::string& path, const FileKey& key, const std::string& hex) {
    // Tabs and newlines would break the line format: such paths are not cached.
    if (path.find_first_of("\t\n") != std::string::npos) return;
    entries_[path] = Entry{key, hex, true};
    dirty_ = true;
  }

  void save(std::vector<std::string>& warnings) const {
    if (path_.empty() || !dirty_) return;
    bool trim = entries_.size() > cache_limit;
    std::string out = std::string(cache_magic) + "\n";
    for (const auto& [path, e] : entries_) {
      if (trim && !e.used) continue;
      out += e.hex + "\t" + std::to_string(e.key.dev) + "\t" + std::to_string(e.key.ino) + "\t" + std::to_string(e.key.size) +
             "\t" + std::to_string(e.key.mtime_ns) + "\t" + std::to_string(e.key.ctime_ns) + "\t" + path + "\n";
    }
    std::error_code ec;
    fs::create_directories(fs::path(path_).parent_path(), ec);
    if (auto status = write_file_atomically(path_, out); !status)
      warnings.push_back("hash cache not saved: " + status.error().describe());
  }

private:
  struct Entry {
    FileKey key;
    std::string hex;
    bool used = false;
  };

  bool parse_line(const std::string& line) {
    auto f = util::split(line, "\t");
    if (f.size() != 7 || f[0].size() != 64 || f[0].find_first_not_of("0123456789abcdef") != std::string::npos) return false;
    FileKey k;
    if (!whole_number(f[1], k.dev) || !whole_number(f[2], k.ino) || !whole_number(f[3], k.size) ||
        !whole_number(f[4], k.mtime_ns) || !whole_number(f[5], k.ctime_ns) || f[6].empty())
      return false;
    entries_[f[6]] = Entry{k, f[0], false};
    return true;
  }

  template <class T>
  static bool whole_number(const std::string& s, T& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  }

  std::string path_;
  std::map<std::string, Entry> entries_;
  bool dirty_ = false;
};

struct Job {
  std::string rel, abs;
  FileKey key;
  std::string hex, error;
  bool stable = false; // the file did not change while it was read
};

// Reads the file through and hashes it; 1 MiB reads, sequential readahead.
void hash_one(Job& job, std::uint64_t& bytes) {
  Fd f;
  f.fd = ::open(job.abs.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f.fd < 0) {
    job.error = errno_error("cannot open", job.rel).describe();
    return;
  }
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  util::Sha256 sha;
  std::vector<std::byte> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(f.fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      job.error = errno_error("cannot read", job.rel).describe();
      return;
    }
    if (n == 0) break;
    sha.update(std::span<const std::byte>(buffer.data(), std::size_t(n)));
    bytes += std::uint64_t(n);
  }
  job.hex = util::to_hex(sha.finish());
  struct stat st {};
  job.stable = ::fstat(f.fd, &st) == 0 && key_of(st) == job.key;
}

// Hashes the jobs on up to 8 threads, largest files first so that one big
// library does not finish last alone.
std::uint64_t hash_all(std::vector<Job*>& jobs) {
  std::sort(jobs.begin(), jobs.end(), [](const Job* a, const Job* b) { return a->key.size > b->key.size; });
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> total{0};
  auto worker = [&] {
    std::uint64_t bytes = 0;
    for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();) hash_one(*jobs[i], bytes);
    total += bytes;
  };
  unsigned n = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  n = std::min<unsigned>(n, unsigned(jobs.size()));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return total;
}
} // namespace

HashedFiles hash_files(const std::string& prefix, const std::vector<std::string>& files, const std::string& cache_path) {
  auto start = std::chrono::steady_clock::now();
  HashedFiles out;
  HashCache cache(cache_path);
  cache.load(out.warnings);
  std::vector<Job> jobs(files.size());
  std::vector<Job*> to_hash;
  for (std::size_t i = 0; i < files.size(); ++i) {
    Job& job = jobs[i];
    job.rel = files[i];
    job.abs = prefix + "/" + files[i];
    struct stat st {};
    if (::stat(job.abs.c_str(), &st) != 0) {
      job.error = errno_error("cannot stat", job.rel).describe();
      continue;
    }
    job.key = key_of(st);
    if (auto hex = cache.find(job.abs, job.key)) job.hex = *hex, ++out.stats.from_cache;
    else to_hash.push_back(&job);
  }
  if (!to_hash.empty()) out.stats.bytes_hashed = hash_all(to_hash);
  for (auto& job : jobs) {
    if (!job.error.empty()) {
      out.warnings.push_back(job.error);
      continue;
    }
    if (job.stable) cache.store(job.abs, job.key, job.hex);
    out.sha256_by_file[job.rel] = job.hex;
  }
  cache.save(out.warnings);
  out.stats.files = files.size();
  out.stats.hashed = to_hash.size();
  out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

Status write_file_atomically(const std::string& path, std::string_view content) {
  fs::path target(path);
  std::string tmp = (target.parent_path().empty() ? fs::path(".") : target.parent_path()).string() + "/." +
                    target.filename().string() + ".tmp.XXXXXX";
  Fd f;
  f.fd = ::mkstemp(tmp.data());
  if (f.fd < 0) return errno_error("cannot create a temporary file next to it", path);
  auto fail = [&](const char* what) {
    Error e = errno_error(what, path);
    ::unlink(tmp.c_str());
    return e;
  };
  for (std::size_t done = 0; done < content.size();) {
    ssize_t n = ::write(f.fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("cannot write");
    done += std::size_t(n);
  }
  // mkstemp makes 0600; a lockfile is for everyone to read.
  if (::fchmod(f.fd, 0644) != 0 || ::fsync(f.fd) != 0) return fail("cannot write");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot rename into place");
  return ok_status();
}

Result<LockedEnv> lock_env(const LockRequest& request) {
  auto snapshot = scan_env(request.env.prefix);
  if (!snapshot) return snapshot.error();
  DiskFileView& files = process_file_view();
  for (const auto& f : snapshot->shared_objects)
    if (f.elf && !f.symlink) files.adopt(snapshot->prefix + "/" + f.path, f.elf->bytes());
  inventory::Inventory inv = inventory::build_inventory(*snapshot);
  LockedEnv out;
  out.warnings = inv.warnings;
  lock::AlignmentInputs in;
  in.inventory = &inv;
  in.table = request.table;
  in.files = &files;
  in.driver = request.driver ? *request.driver : read_driver_version();
  lock::Alignment alignment = lock::evaluate_alignment(in);
  std::vector<std::string> paths;
  for (const auto& lib : inv.libraries) paths.push_back(lib.file);
  HashedFiles hashed = hash_files(inv.prefix, paths, request.hash_cache);
  out.stats = hashed.stats;
  out.warnings.insert(out.warnings.end(), hashed.warnings.begin(), hashed.warnings.end());
  for (const auto& p : paths)
    if (!hashed.sha256_by_file.count(p)) out.unhashed.push_back(p);
  out.lock = lock::make_lock(request.env.name, inv, hashed.sha256_by_file, alignment, *request.table);
  return out;
}

} // namespace condacuda::sys
