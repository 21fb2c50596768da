#pragma once
// The file system as it will be once planned symlinks exist: lets repair
// verify its plan with the loader model before writing anything.
#include <filesystem>
#include <map>
#include <string>

#include "loader/file_view.hpp"

namespace condacuda::repair {

class OverlayFileView final : public loader::FileSystemView {
public:
  explicit OverlayFileView(loader::FileSystemView& base) : base_(base) {}

  // A symlink at `link` (absolute) that resolves to `target` (absolute).
  void add_symlink(const std::string& link, const std::string& target) { links_[normal(link)] = target; }

  // stat() follows symlinks: a planned link looks like its target (same
  // inode), opened under the link's own path. Paths are compared after
  // lexical normalisation (the loader asks for ".../pkg/../nvidia/x/lib/y").
  const loader::FileProbe& probe(const std::string& absolute_path) override {
    if (!links_.empty()) {
      auto it = links_.find(normal(absolute_path));
      if (it != links_.end()) return base_.probe(it->second);
    }
    return base_.probe(absolute_path);
  }
  bool directory_exists(const std::string& absolute_path) override { return base_.directory_exists(absolute_path); }

private:
  static std::string normal(const std::string& p) { return std::filesystem::path(p).lexically_normal().string(); }
  loader::FileSystemView& base_;
  std::map<std::string, std::string> links_;
};

} // namespace condacuda::repair
