#pragma once
// python::PathProbe over an in-memory tree: folders and files by absolute
// path, listings in the order they were added (readdir order on disk).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "python/sys_path.hpp"

namespace condacuda::test {

class MemoryProbe : public python::PathProbe {
public:
  // A file (with its folders); `text` is what read_text gives.
  void file(const std::string& path, const std::string& text = "") {
    files_[path] = text;
    add_parents(path);
  }
  void dir(const std::string& path) {
    if (dirs_.insert(path).second) add_parents(path);
  }
  bool is_dir(const std::string& path) override { return dirs_.count(trim(path)) > 0; }
  bool is_file(const std::string& path) override { return files_.count(path) > 0; }
  bool exists(const std::string& path) override { return is_dir(path) || is_file(path); }
  std::vector<std::string> list(const std::string& d) override {
    auto it = children_.find(trim(d));
    return it == children_.end() ? std::vector<std::string>{} : it->second;
  }
  std::optional<std::string> read_text(const std::string& path) override {
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }

private:
  static std::string trim(std::string p) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
  }
  void add_parents(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) return;
    std::string parent = slash == 0 ? "/" : path.substr(0, slash);
    auto& names = children_[parent];
    std::string name = path.substr(slash + 1);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    if (parent != "/") dir(parent);
  }
  std::map<std::string, std::string> files_;
  std::set<std::string> dirs_{"/"};
  std::map<std::string, std::vector<std::string>> children_;
};

} // namespace condacuda::test
