#include "sys/load_check_cache.hpp"

#include <algorithm>
#include <atomic>
#include <sched.h>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <sys/mman.h>
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

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older kernels refuse it with EINVAL
#endif

// The heap memory a thread's checks take (a relocation table's piece, the
// slot writes and their sort's buffer), made present by one madvise and left
// free for them: on the 2-core VM a fault on a fresh page costs 25 to 35
// microseconds and this takes about one a page (README "Benchmarks"). The
// block freed goes back to the top of this thread's heap, where the checks'
// allocations then land (glibc trims no heap below M_TRIM_THRESHOLD, which
// main.cpp raises to 512 MiB). Nothing depends on it: a kernel that refuses
// the advice leaves the pages to be faulted in as before.
void prefault_heap_for_checks() {
  constexpr std::size_t bytes = std::size_t{512} << 10;
  auto* block = static_cast<char*>(std::malloc(bytes));
  if (!block) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto first = (reinterpret_cast<std::uintptr_t>(block) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(block) + bytes) & ~(page - 1);
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);
  std::free(block);
}

} // namespace

LoadCheckCache::LoadCheckCache(std::string path, const loader::LoaderConfig& config)
    : cache_(path, load_check_cache_format), cached_(!path.empty()), config_(config), params_(parameters(config)) {}

std::string LoadCheckCache::default_path() {
  return default_cache_path("load-checks");
}

void LoadCheckCache::load(std::vector<std::string>& warnings) { cache_.load(warnings); }

std::optional<elf::LoadCheck> LoadCheckCache::find(const std::string& path, const FileKey& key) {
  auto hit = cache_.find(path, key);
  if (!hit) return std::nullopt;
  return deserialize(*hit, params_);
}

void LoadCheckCache::start(const std::string& path, std::shared_ptr<const elf::ElfObject> object) {
  if (!object) return;
  if (cached_) {
    // The file as it is now, when it is still the one mapped: checked before?
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      const FileKey key = key_of(st);
      if (object->bytes().source == elf::FileIdentity{key.dev, key.ino} &&
          key.size == object->bytes().data.size() && find(path, key))
        return;
    }
  }
  add(path, std::move(object));
}

void LoadCheckCache::prepare(DiskFileView& files, const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    const loader::OpenedFile& opened = files.open_verify(path); // a cached check is filled here
    if (opened.elf && !opened.load) add(path, opened.elf);
  }
}

void LoadCheckCache::add(const std::string& path, std::shared_ptr<const elf::ElfObject> object) {
  const std::byte* first = object->bytes().data.data();
  if (!first || task_of_.count(first)) return;
  auto owned = std::make_unique<Task>();
  Task* task = owned.get();
  task->path = path;
  task->object = std::move(object);
  task_of_.emplace(first, task);
  tasks_.push_back(std::move(owned));
  smallest_first_.clear();
  // This thread is the last CPU's: it goes on. With no other CPU, it checks
  // each file itself when the model maps it (or save() asks).
  if (!threads_wanted_) {
    threads_wanted_ = std::min(usable_cpus() - 1, max_threads);
    prefault_heap_for_checks(); // for the checks this thread makes (a first run's, not a cached one's)
  }
  if (*threads_wanted_ == 0) return;
  {
    const std::lock_guard lock(queue_mutex_);
    queue_.push_back(task);
  }
  queue_changed_.notify_one();
  if (workers_.size() < *threads_wanted_ && workers_.size() < tasks_.size()) {
    try {
      workers_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      // No more threads to be had: those started and this one do the rest.
      threads_wanted_ = static_cast<unsigned>(workers_.size());
      if (workers_.empty()) {
        const std::lock_guard lock(queue_mutex_);
        queue_.clear();
      }
    }
  }
}

void LoadCheckCache::work() {
  prefault_heap_for_checks();
  // Each thread takes the largest task waiting and writes its result,
  // nothing else: the view and the tasks list are not touched.
  for (;;) {
    Task* task = nullptr;
    {
      std::unique_lock lock(queue_mutex_);
      queue_changed_.wait(lock, [this] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;
      auto largest = std::max_element(queue_.begin(), queue_.end(), [](const Task* a, const Task* b) {
        return a->object->bytes().data.size() < b->object->bytes().data.size();
      });
      task = *largest;
      queue_.erase(largest);
    }
    run_if_waiting(*task);
  }
}

bool LoadCheckCache::run_if_waiting(Task& task) const {
  int expected = Task::waiting;
  if (task.state.load(std::memory_order_relaxed) != Task::waiting) return false; // no write where none is needed
  if (!task.state.compare_exchange_strong(expected, Task::taken, std::memory_order_acq_rel)) return false;
  // The relocation tables read with pread(2) from the file itself, not
  // through its map (elf/table_source.hpp).
  const elf::FileBytes& bytes = task.object->bytes();
  try {
    const ReopenedCopies tables(task.path, bytes);
    task.result = elf::check_load(bytes.reader(), config_.machine, config_.page_size, config_.commit_limit,
                                  config_.glibc_minor, &tables);
  } catch (...) {
    // Out of memory, as a rule: done without a result, which whoever asks
    // computes in place (and meets the same failure where it can report it).
    task.result.reset();
  }
  task.state.store(Task::done, std::memory_order_release);
  task.state.notify_all();
  return true;
}

std::optional<elf::LoadCheck> LoadCheckCache::prepared(const elf::ElfObject& object) {
  auto it = task_of_.find(object.bytes().data.data());
  if (it == task_of_.end()) return std::nullopt;
  Task& task = *it->second;
  if (run_if_waiting(task)) return task.result;
  // Another thread has it: rather than wait, check the files no thread has
  // begun, the smallest first (the least time past the moment it is done).
  if (smallest_first_.empty()) {
    for (const auto& t : tasks_) smallest_first_.push_back(t.get());
    std::stable_sort(smallest_first_.begin(), smallest_first_.end(), [](const Task* a, const Task* b) {
      return a->object->bytes().data.size() < b->object->bytes().data.size();
    });
  }
  for (auto other = smallest_first_.begin();
       other != smallest_first_.end() && task.state.load(std::memory_order_acquire) != Task::done; ++other)
    run_if_waiting(**other);
  for (int s; (s = task.state.load(std::memory_order_acquire)) != Task::done;) task.state.wait(s, std::memory_order_acquire);
  return task.result;
}

void LoadCheckCache::join() {
  {
    const std::lock_guard lock(queue_mutex_);
    closing_ = true;
  }
  queue_changed_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
  const std::lock_guard lock(queue_mutex_);
  closing_ = false; // tasks added later start threads again
}

LoadCheckCache::~LoadCheckCache() {
  // Dropped before save() (the run failed): the files no thread has begun
  // are not checked for no one.
  {
    const std::lock_guard lock(queue_mutex_);
    queue_.clear();
  }
  join();
}

void LoadCheckCache::save(const DiskFileView& files, std::vector<std::string>& warnings) {
  join();
  files.each_load_check(
      [&](const std::string& path, const FileKey& key, const elf::LoadCheck& check) {
        if (has_settled(key)) cache_.store(path, key, serialize(params_, check));
      },
      this);
  cache_.save(warnings);
}

} // namespace condacuda::sys
