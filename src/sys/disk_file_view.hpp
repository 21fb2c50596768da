#pragma once
// The loader model's view of the real file system: open_verify done with
// stat + mmap, cached per path (a doctor run asks for the same files often).
#include <string>
#include <unordered_map>
#include <utility>

#include "loader/file_system_view.hpp"
#include "sys/hash_cache.hpp"

namespace condacuda::sys {

// Where load checks computed before come from (sys/load_check_cache.hpp).
class LoadCheckSource {
public:
  virtual ~LoadCheckSource() = default;
  virtual std::optional<elf::LoadCheck> find(const std::string& path, const FileKey& key) = 0;
  // The check of `object` computed apart from the view (on another thread);
  // nullopt when the source has none.
  virtual std::optional<elf::LoadCheck> prepared(const elf::ElfObject& object) {
    (void)object;
    return std::nullopt;
  }
};

class DiskFileView final : public loader::FileSystemView {
public:
  explicit DiskFileView(std::uint16_t host_machine) : machine_(host_machine) {}
  const loader::OpenedFile& open_verify(const std::string& absolute_path) override;
  bool directory_exists(const std::string& absolute_path) override;
  std::string real_path(const std::string& absolute_path) override;
  // The file mapped again privately, the patches written into that map: the
  // kernel copies the pages they touch, nothing else. nullopt when the path
  // no longer leads to `file` (another inode or size) or a patch is out of range.
  std::optional<elf::FileBytes> patched_bytes(const std::string& absolute_path, const loader::OpenedFile& file,
                                              const std::vector<elf::BytePatch>& patches) override;
  // Reuse what another reader already made of this path (env_scan's map and
  // parse without symbols): the file is not mapped twice, its header pages
  // are already in, and only its symbol tables are read when it is opened.
  void adopt(const std::string& absolute_path, std::shared_ptr<const elf::ElfObject> parsed);
  // Files opened from now on take their load check from `source` when it has
  // one for the file as it is (nullptr: none). The source must outlive its use.
  void use_load_checks(LoadCheckSource* source) { load_checks_ = source; }
  // Where the loader model keeps results between runs (nullptr: nowhere).
  // The memo must outlive its use.
  void use_result_memo(loader::ResultMemo* memo) { result_memo_ = memo; }
  loader::ResultMemo* result_memo() override { return result_memo_; }
  std::optional<elf::LoadCheck> prepared_load_check(const loader::OpenedFile& file) override {
    return load_checks_ && file.elf ? load_checks_->prepared(*file.elf) : std::nullopt;
  }
  // Every regular file opened whose load check is known, with its key: the
  // check the view holds, or else the one `elsewhere` prepared (a file no
  // simulation mapped).
  template <class F> void each_load_check(F&& f, LoadCheckSource* elsewhere = nullptr) const {
    for (const auto& [path, key] : keys_) {
      auto it = cache_.find(path);
      if (it == cache_.end()) continue;
      std::optional<elf::LoadCheck> check = it->second.load;
      if (!check && elsewhere && it->second.elf) check = elsewhere->prepared(*it->second.elf);
      if (check) f(path, key, *check);
    }
  }

private:
  // The memo key of what parsing a file's symbol tables found (elf::
  // ElfObject::symbol_facts), "" when there is no memo or the file changed
  // within the last second.
  std::string symbol_facts_key(const loader::FileStamp& stamp) const;

  std::uint16_t machine_;
  std::unordered_map<std::string, loader::OpenedFile> cache_; // node-based: the pointers below stay valid
  struct InodeHash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const { return k.first * 1000003u ^ k.second; }
  };
  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, const loader::OpenedFile*, InodeHash> by_inode_;
  std::unordered_map<std::string, bool> directories_;
  std::unordered_map<std::string, std::shared_ptr<const elf::ElfObject>> adopted_;
  std::unordered_map<std::string, std::string> real_paths_;
  std::unordered_map<std::string, FileKey> keys_; // regular files opened, as stat saw them
  LoadCheckSource* load_checks_ = nullptr;
  loader::ResultMemo* result_memo_ = nullptr;
};

// A regular file's stamp as stat gave it; none when it changed within the
// last second (has_settled).
loader::FileStamp stamp_of(const struct stat& st);

// The process-wide view: the files a command maps stay mapped until the
// process exits (unmapping them one by one costs a TLB shootdown each; the
// kernel drops them all at once at exit).
DiskFileView& process_file_view();

} // namespace condacuda::sys
