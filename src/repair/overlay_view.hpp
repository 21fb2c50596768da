#pragma once
// The file system as it will be once planned symlinks exist and planned pins
// are written: lets repair verify its plan with the loader model before
// writing anything.
#include <filesystem>
#include <cerrno>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loader/file_system_view.hpp"

namespace condacuda::repair {

class OverlayFileView final : public loader::FileSystemView {
public:
  explicit OverlayFileView(loader::FileSystemView& base) : base_(base) {}

  // A symlink at `link` (absolute) that resolves to `target` (absolute).
  void add_symlink(const std::string& link, const std::string& target) { links_[normal(link)] = target; }

  // A path that will not exist (a link condacuda made and replans).
  void hide(const std::string& path) { hidden_.insert(normal(path)); }

  // The file at `path` (absolute) with `patches` written over it (on top of
  // those given before for the same file): a pinned library, or a pinned one
  // seen as its original, under every name that reaches it (its symlinks
  // too): the same file for ld.so (dev, inode). Its bytes come from the base
  // view's patched_bytes: never a copy of the whole file where the system
  // layer can map it copy-on-write. Nothing changes when they cannot be had.
  void replace_patched(const std::string& path, const std::vector<elf::BytePatch>& patches) {
    loader::OpenedFile f = base_.open_verify(normal(path));
    if (!f.opened() || f.is_directory || f.blocks || !f.elf) return;
    std::pair<std::uint64_t, std::uint64_t> key{f.dev, f.ino};
    std::vector<elf::BytePatch> all = patches_[key];
    for (const auto& p : patches) { // a later patch at the same offset replaces the earlier
      std::erase_if(all, [&](const elf::BytePatch& q) { return q.offset == p.offset; });
      all.push_back(p);
    }
    auto bytes = base_.patched_bytes(normal(path), f, all);
    if (!bytes) return;
    patches_[key] = std::move(all);
    replaced_.erase(key);
    f.load.reset();
    f.stamp = {}; // the bytes are no longer the file's: nothing computed from them is kept
    f.elf.reset();
    f.parse_error.clear();
    auto parsed = elf::ElfObject::parse(std::move(*bytes), true);
    if (parsed) f.elf = *parsed;
    else f.parse_error = parsed.error().message;
    replaced_.emplace(key, std::move(f));
  }

  // stat() follows symlinks: a planned link looks like its target (same
  // inode), opened under the link's own path. Paths are compared after
  // lexical normalisation (the loader asks for ".../pkg/../nvidia/x/lib/y").
  const loader::OpenedFile& open_verify(const std::string& absolute_path) override {
    if (!links_.empty() || !hidden_.empty() || !replaced_.empty()) {
      std::string key = normal(absolute_path);
      auto it = links_.find(key);
      if (it == links_.end() && hidden_.count(key)) return missing_;
      const loader::OpenedFile& f = base_.open_verify(it != links_.end() ? it->second : absolute_path);
      if (auto r = replaced_.find({f.dev, f.ino}); r != replaced_.end() && f.opened()) return r->second;
      return f;
    }
    return base_.open_verify(absolute_path);
  }
  bool directory_exists(const std::string& absolute_path) override { return base_.directory_exists(absolute_path); }
  // Results keyed by stamps hold here too: a patched file has none.
  loader::ResultMemo* result_memo() override { return base_.result_memo(); }
  // Checks prepared for the base's files (a patched file's bytes are its own: none).
  std::optional<elf::LoadCheck> prepared_load_check(const loader::OpenedFile& file) override {
    return base_.prepared_load_check(file);
  }
  std::string real_path(const std::string& absolute_path) override {
    auto it = links_.find(normal(absolute_path));
    return base_.real_path(it != links_.end() ? it->second : absolute_path);
  }

private:
  static std::string normal(const std::string& p) { return std::filesystem::path(p).lexically_normal().string(); }
  loader::FileSystemView& base_;
  std::map<std::string, std::string> links_;
  std::set<std::string> hidden_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, loader::OpenedFile> replaced_; // by (dev, inode)
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<elf::BytePatch>> patches_; // what replaced_ shows
  const loader::OpenedFile missing_{ENOENT, false, false, 0, 0, {}, {}, nullptr, "", {}};
};

} // namespace condacuda::repair
