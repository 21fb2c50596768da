#pragma once
// The file system as it will be once planned symlinks exist: lets repair
// verify its plan with the loader model before writing anything.
#include <filesystem>
#include <cerrno>
#include <map>
#include <set>
#include <string>

#include "loader/file_system_view.hpp"

namespace condacuda::repair {

class OverlayFileView final : public loader::FileSystemView {
public:
  explicit OverlayFileView(loader::FileSystemView& base) : base_(base) {}

  // A symlink at `link` (absolute) that resolves to `target` (absolute).
  void add_symlink(const std::string& link, const std::string& target) { links_[normal(link)] = target; }

  // A path that will not exist (a link condacuda made and replans).
  void hide(const std::string& path) { hidden_.insert(normal(path)); }

  // stat() follows symlinks: a planned link looks like its target (same
  // inode), opened under the link's own path. Paths are compared after
  // lexical normalisation (the loader asks for ".../pkg/../nvidia/x/lib/y").
  const loader::OpenedFile& open_verify(const std::string& absolute_path) override {
    if (!links_.empty() || !hidden_.empty()) {
      std::string key = normal(absolute_path);
      auto it = links_.find(key);
      if (it != links_.end()) return base_.open_verify(it->second);
      if (hidden_.count(key)) return missing_;
    }
    return base_.open_verify(absolute_path);
  }
  bool directory_exists(const std::string& absolute_path) override { return base_.directory_exists(absolute_path); }

private:
  static std::string normal(const std::string& p) { return std::filesystem::path(p).lexically_normal().string(); }
  loader::FileSystemView& base_;
  std::map<std::string, std::string> links_;
  std::set<std::string> hidden_;
  const loader::OpenedFile missing_{ENOENT, false, false, 0, 0, {}, nullptr, "", {}};
};

} // namespace condacuda::repair
