#include "sys/load_check_cache.hpp"

#include <algorithm>
#include <atomic>
#include <sched.h>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <unistd.h>

#include "elf/load_checks.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "util/sha256.hpp"

namespace condacuda::sys {

namespace {
constexpr unsigned max_threads = 64;

// "<release>,<page size>,<commit limit>,<machine>": what a verdict depends on besides the bytes.
std::string parameters(const loader::LoaderConfig& c) {
  return std::to_string(c.glibc_minor) + "," + std::to_string(c.page_size) + "," + std::to_string(c.commit_limit) + "," +
         std::to_string(c.machine);
}

std::string hex(std::string_view s) {
  return util::to_hex(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}

std::optional<std::string> unhex(std::string_view s) {
  if (s.size() % 2) return std::nullopt;
  auto value = [](char ch) { return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    int hi = value(s[i]), lo = value(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// A value is "<parameters> <o|r|c> <hex reason>", the reason empty for o.
std::string serialize(const std::string& params, const elf::LoadCheck& check) {
  char kind = check.outcome == elf::LoadCheck::Outcome::ok ? 'o' : check.outcome == elf::LoadCheck::Outcome::refuses ? 'r' : 'c';
  return params + " " + kind + " " + hex(check.reason);
}

std::optional<elf::LoadCheck> deserialize(std::string_view value, const std::string& params) {
  if (!value.starts_with(params + " ") || value.size() < params.size() + 3 || value[params.size() + 2] != ' ')
    return std::nullopt;
  auto reason = unhex(value.substr(params.size() + 3));
  if (!reason) return std::nullopt;
  elf::LoadCheck check;
  switch (value[params.size() + 1]) {
  case 'o': if (!reason->empty()) return std::nullopt; return check;
  case 'r': check.outcome = elf::LoadCheck::Outcome::refuses; break;
  case 'c': check.outcome = elf::LoadCheck::Outcome::crashes; break;
  default: return std::nullopt;
  }
  if (reason->empty()) return std::nullopt;
  check.reason = std::move(*reason);
  return check;
}

bool valid_value(std::string_view v) {
  auto first = v.find(' ');
  if (first == std::string_view::npos || first == 0) return false;
  return v.substr(0, first).find_first_not_of("0123456789,") == std::string_view::npos &&
         deserialize(v, std::string(v.substr(0, first))).has_value();
}

const CacheFormat load_check_cache_format{"load-check cache", "condacuda load-check cache 1", valid_value};

// The CPUs this process may run on (its affinity mask: a Slurm job's or a
// cgroup's share, not the machine's count); at least 1.
unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

struct Work {
  const std::string* path;
  const loader::OpenedFile* file;
  std::size_t size;
};

} // namespace

LoadCheckCache::LoadCheckCache(std::string path, const loader::LoaderConfig& config)
    : cache_(std::move(path), load_check_cache_format), config_(config), params_(parameters(config)) {}

std::string LoadCheckCache::default_path() {
  return default_cache_path("load-checks");
}

void LoadCheckCache::load(std::vector<std::string>& warnings) { cache_.load(warnings); }

std::optional<elf::LoadCheck> LoadCheckCache::find(const std::string& path, const FileKey& key) {
  auto hit = cache_.find(path, key);
  if (!hit) return std::nullopt;
  return deserialize(*hit, params_);
}

void LoadCheckCache::prepare(DiskFileView& files, const std::vector<std::string>& paths) {
  std::vector<Work> work;
  for (const auto& path : paths) {
    const loader::OpenedFile& opened = files.open_verify(path); // a cached check is filled here
    if (opened.elf && !opened.load) work.push_back({&path, &opened, opened.elf->bytes().data.size()});
  }
  std::sort(work.begin(), work.end(), [](const Work& a, const Work& b) { return a.size > b.size; });
  // Each thread writes the `load` of the files it takes, nothing else; the
  // view's tables are not touched until every thread has finished.
  std::atomic<std::size_t> next{0};
  auto run = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < work.size();) {
      const loader::OpenedFile& f = *work[i].file;
      // The relocation tables read with pread(2) from the file itself, not
      // through its map (elf/table_source.hpp).
      const ReopenedCopies tables(*work[i].path, f.elf->bytes());
      f.load = elf::check_load(f.elf->bytes().data, config_.machine, config_.page_size, config_.commit_limit,
                               config_.glibc_minor, &tables);
    }
  };
  unsigned threads = std::min<unsigned>({usable_cpus(), max_threads, static_cast<unsigned>(work.size())});
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run);
  } catch (const std::system_error&) {
    // No more threads to be had: the ones started and this one do the rest.
  }
  run();
  for (auto& t : pool) t.join();
}

void LoadCheckCache::save(const DiskFileView& files, std::vector<std::string>& warnings) {
  files.each_load_check([&](const std::string& path, const FileKey& key, const elf::LoadCheck& check) {
    if (has_settled(key)) cache_.store(path, key, serialize(params_, check));
  });
  cache_.save(warnings);
}

} // namespace condacuda::sys
