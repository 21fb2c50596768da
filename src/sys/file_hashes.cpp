#include "sys/file_hashes.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <fcntl.h>
#include <span>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "sys/hash_cache.hpp"
#include "sys/posix.hpp"
#include "util/sha256.hpp"

namespace condacuda::sys {

namespace {
// The largest library condacuda hashes: the largest CUDA libraries are under
// 1 GB; a file past this (a `truncate -s 1T` one) would cost minutes of
// reading for nothing a loader could map. (Holes are not a sign of a hostile
// file: compressed file systems report fewer blocks for any library.)
constexpr std::uint64_t max_hashed_bytes = 8ull << 30;

std::optional<std::string> not_hashable(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return std::string("not a regular file");
  if (std::uint64_t(st.st_size) > max_hashed_bytes)
    return std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_hashed_bytes) + " condacuda hashes";
  return std::nullopt;
}

struct Job {
  std::string rel, abs;
  FileKey key;
  std::string hex, error;
  bool stable = false; // the file did not change while it was read
};

// Reads the file through and hashes it; 1 MiB reads, sequential readahead.
void hash_one(Job& job, std::uint64_t& bytes) {
  Fd f(::open(job.abs.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!f.valid()) {
    job.error = errno_error(errno, "cannot open", job.rel).describe();
    return;
  }
  struct stat opened {};
  if (::fstat(f.get(), &opened) != 0 || !(key_of(opened) == job.key)) {
    job.error = job.rel + ": changed while it was read";
    return;
  }
  ::posix_fadvise(f.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  util::Sha256 sha;
  std::uint64_t taken = 0;
  std::vector<std::byte> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(f.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      job.error = errno_error(errno, "cannot read", job.rel).describe();
      return;
    }
    if (n == 0) break;
    sha.update(std::span<const std::byte>(buffer.data(), std::size_t(n)));
    bytes += std::uint64_t(n);
    taken += std::uint64_t(n);
    if (taken > job.key.size) { // it grew while read (or is not what stat said): not this file's hash
      job.error = job.rel + ": changed while it was read";
      return;
    }
  }
  job.hex = util::to_hex(sha.finish());
  struct stat st {};
  job.stable = ::fstat(f.get(), &st) == 0 && key_of(st) == job.key;
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
      job.error = errno_error(errno, "cannot stat", job.rel).describe();
      continue;
    }
    job.key = key_of(st);
    if (auto why = not_hashable(st)) {
      job.error = job.rel + ": not hashed: " + *why;
      continue;
    }
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

} // namespace condacuda::sys
