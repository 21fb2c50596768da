#pragma once
// What ld.so would meet mapping, relocating and initialising each file
// (elf/load_checks.hpp), computed once per file version: on every core the
// first time, then kept in $XDG_CACHE_HOME/condacuda/load-checks by device,
// inode, size, mtime and ctime, like the hash cache. A CUDA env holds over a
// million relocations; walking them is most of a first doctor run, and none
// of it depends on anything but the file's bytes and the loader's release,
// page size, commit limit and machine, which each entry records too (other
// values are a miss). A damaged cache file, or one another user owns or others
// can write, is ignored: a miss, never a verdict.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "elf/load_checks.hpp"
#include "loader/config.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/hash_cache.hpp"

namespace condacuda::sys {

class LoadCheckCache final : public LoadCheckSource {
public:
  // `path` "" : no cache (--no-cache), every file checked. `config`: the
  // loader the checks are for.
  LoadCheckCache(std::string path, const loader::LoaderConfig& config);
  // $XDG_CACHE_HOME/condacuda/load-checks, beside the hash cache; "" when there is no cache folder.
  static std::string default_path();
  void load(std::vector<std::string>& warnings);

  // The recorded check of `path` when the file is unchanged (DiskFileView asks).
  std::optional<elf::LoadCheck> find(const std::string& path, const FileKey& key) override;

  // Starts checking `object`, the file at `path` as the env scan mapped it,
  // on another thread, unless the cache holds its check (the file unchanged)
  // or it is under way: threads are started as files come, on all but one of
  // the CPUs this process may use, and each takes the largest file waiting,
  // while this thread goes on (scanning, then simulating: each check is taken
  // with prepared() when the model maps the file).
  void start(const std::string& path, std::shared_ptr<const elf::ElfObject> object);

  // Opens every path in `paths` in `files` (a cached check is filled there)
  // and starts, as start() does, each ELF object the cache has no check for
  // that none has begun. Returns at once.
  void prepare(DiskFileView& files, const std::vector<std::string>& paths);

  // The check of `object`'s bytes when a task has them: computed here when
  // no thread has begun it; when another is at it, this thread checks the
  // files none has begun (the smallest first), then waits. nullopt: no task
  // has these bytes.
  std::optional<elf::LoadCheck> prepared(const elf::ElfObject& object) override;

  // Waits for the checks under way (and makes, on this thread, any no thread
  // took: with one usable CPU there are no others), then records every check
  // `files` holds or prepare() computed (those the simulations computed, for the system's
  // libraries, included) and rewrites the cache file.
  void save(const DiskFileView& files, std::vector<std::string>& warnings);

  // Lets the threads finish the checks under way, drops those none has begun.
  ~LoadCheckCache() override;
  LoadCheckCache(const LoadCheckCache&) = delete;
  LoadCheckCache& operator=(const LoadCheckCache&) = delete;

private:
  // One file to check: taken by exactly one thread (its state goes from
  // waiting to taken), whose result others read once it is done.
  struct Task {
    enum State : int { waiting, taken, done };
    std::string path;
    std::shared_ptr<const elf::ElfObject> object; // keeps the bytes mapped while a thread reads them
    std::atomic<int> state{waiting};
    std::optional<elf::LoadCheck> result;
  };
  // A task for `object`'s bytes, handed to the threads, unless one has them.
  void add(const std::string& path, std::shared_ptr<const elf::ElfObject> object);
  // A thread's loop: the largest task waiting, until join() and none is left.
  void work();
  // Checks `task` when no thread has taken it yet; false when one has.
  bool run_if_waiting(Task& task) const;
  // Lets the threads finish what is queued, then ends them.
  void join();

  HashCache cache_;
  bool cached_; // a cache file, not --no-cache
  loader::LoaderConfig config_;
  std::string params_;
  // This thread's alone: every task, and each by the first byte of its
  // file's map (every ElfObject made of that map, the scan's and the
  // model's, has its task; the task keeps the map, so no other file can be
  // mapped there while it lives).
  std::vector<std::unique_ptr<Task>> tasks_;
  std::unordered_map<const std::byte*, Task*> task_of_;
  std::vector<Task*> smallest_first_; // the order this thread helps in; rebuilt after an add
  std::optional<unsigned> threads_wanted_;
  std::vector<std::thread> workers_;
  // Shared with the threads, under queue_mutex_: the tasks handed to them and
  // not yet taken from the queue (this thread may have run some meanwhile).
  std::mutex queue_mutex_;
  std::condition_variable queue_changed_;
  std::vector<Task*> queue_;
  bool closing_ = false;
};

} // namespace condacuda::sys
