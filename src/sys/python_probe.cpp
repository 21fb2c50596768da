#include "sys/python_probe.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <memory>

#include "sys/mapped_file.hpp"

namespace condacuda::sys {

DiskPathProbe::Kind DiskPathProbe::kind(const std::string& path) {
  auto it = kinds_.find(path);
  if (it != kinds_.end()) return it->second;
  struct stat st {};
  Kind k = Kind::missing;
  if (::stat(path.c_str(), &st) == 0) k = S_ISDIR(st.st_mode) ? Kind::dir : S_ISREG(st.st_mode) ? Kind::file : Kind::other;
  kinds_.emplace(path, k);
  return k;
}

bool DiskPathProbe::is_dir(const std::string& path) { return kind(path) == Kind::dir; }
bool DiskPathProbe::is_file(const std::string& path) { return kind(path) == Kind::file; }
bool DiskPathProbe::exists(const std::string& path) { return kind(path) != Kind::missing; }

std::vector<std::string> DiskPathProbe::list(const std::string& dir) {
  auto it = listings_.find(dir);
  if (it != listings_.end()) return it->second;
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (d) {
    while (const dirent* e = ::readdir(d.get())) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      names.push_back(name);
      if (names.size() >= max_listed) break;
    }
  }
  return listings_.emplace(dir, std::move(names)).first->second;
}

// A name the folder lists is one lstat finds (a broken link too): asked of
// the few names the model looks up, whatever the folder's size (a working
// directory of 100,000 files costs what an empty one does).
bool DiskPathProbe::has(const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + name;
  auto it = has_.find(path);
  if (it != has_.end()) return it->second;
  struct stat st {};
  const bool found = ::lstat(path.c_str(), &st) == 0;
  has_.emplace(std::move(path), found);
  return found;
}

std::optional<std::string> DiskPathProbe::read_text(const std::string& path) {
  auto text = read_text_file(path, read_cap::config);
  if (!text) return std::nullopt;
  return std::move(*text);
}

} // namespace condacuda::sys
