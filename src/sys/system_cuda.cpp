#include "sys/system_cuda.hpp"

#include <algorithm>
#include <dirent.h>
#include <filesystem>
#include <memory>
#include <set>
#include <sys/stat.h>

#include "inventory/components.hpp"
#include "sys/mapped_file.hpp"
#include "util/strings.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

namespace {
// readdir(3) names as they come, no path built for each: a system folder
// holds thousands of entries (std::filesystem's iterator took a millisecond
// on /usr/lib/x86_64-linux-gnu's 1,200, a twentieth of a repeated doctor run).
bool holds_cuda_library(const fs::path& dir) {
  // Owned by a unique_ptr: closed however the loop is left.
  const std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return false;
  while (const dirent* e = ::readdir(d.get())) {
    const std::string_view name(e->d_name);
    if (inventory::looks_like_shared_library(name) && inventory::classify_library(name)) return true;
  }
  return false;
}

std::vector<fs::path> children(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> ld_so_conf_dirs(const std::string& root) {
  std::vector<fs::path> out;
  for (const auto& conf : children(root + "/etc/ld.so.conf.d", "")) {
    auto text = read_text_file(conf.string(), read_cap::config);
    if (!text) continue;
    for (const auto& line : util::split(*text, "\n")) {
      std::string_view l = util::trim(line);
      if (l.empty() || l[0] == '#' || l.substr(0, 7) == "include") continue;
      out.push_back(root + std::string(l));
    }
  }
  return out;
}

bool valid_verdict(std::string_view value) { return value == "cuda" || value == "none"; }
const CacheFormat folder_verdict_format{"system folder cache", "condacuda system folder cache 1", valid_verdict};
} // namespace

FolderVerdicts::FolderVerdicts(std::string path) : cache_(std::move(path), folder_verdict_format) {}

std::string FolderVerdicts::default_path() {
  return default_cache_path("system-folders");
}

void FolderVerdicts::load(std::vector<std::string>& warnings) { cache_.load(warnings); }

void FolderVerdicts::save(std::vector<std::string>& warnings) const { cache_.save(warnings); }

std::optional<bool> FolderVerdicts::holds_cuda(const std::string& folder, const FileKey& key) {
  auto hit = cache_.find(folder, key);
  if (!hit) return std::nullopt;
  return *hit == "cuda";
}

void FolderVerdicts::remember(const std::string& folder, const FileKey& key, bool holds_cuda) {
  if (has_settled(key)) cache_.store(folder, key, holds_cuda ? "cuda" : "none");
}

std::vector<std::string> system_cuda_dirs(const std::string& root, FolderVerdicts* verdicts) {
  std::vector<fs::path> candidates;
  for (const auto& cuda : children(root + "/usr/local", "cuda")) {
    candidates.push_back(cuda / "lib64");
    candidates.push_back(cuda / "lib");
    for (const auto& target : children(cuda / "targets", "")) candidates.push_back(target / "lib");
  }
  for (const auto& release : children(root + "/opt/nvidia/hpc_sdk/Linux_x86_64", "")) {
    for (const auto& v : children(release / "math_libs", "")) candidates.push_back(v / "lib64");
    for (const auto& v : children(release / "cuda", "")) candidates.push_back(v / "lib64");
  }
  for (const auto& d : ld_so_conf_dirs(root)) candidates.push_back(d);
  std::vector<std::string> out;
  // Two spellings of one folder (/usr/local/cuda/lib64 through its links,
  // /lib and /usr/lib) are one inode: stat follows the links in one call,
  // where resolving the path takes a readlink for each of its components.
  std::set<std::pair<dev_t, ino_t>> seen;
  for (const auto& c : candidates) {
    struct stat st {};
    if (::stat(c.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !seen.insert({st.st_dev, st.st_ino}).second) continue;
    const FileKey key = key_of(st);
    std::optional<bool> holds = verdicts ? verdicts->holds_cuda(c.string(), key) : std::nullopt;
    if (!holds) {
      holds = holds_cuda_library(c);
      if (verdicts) verdicts->remember(c.string(), key, *holds);
    }
    if (*holds) out.push_back(c.string());
  }
  return out;
}

std::vector<std::string> stub_folders(const std::optional<std::string>& ld_library_path) {
  std::vector<std::string> out;
  if (!ld_library_path) return out;
  for (const auto& entry : util::split(*ld_library_path, ":;")) {
    if (entry.empty()) continue;
    std::error_code ec;
    fs::path dir(entry);
    if (!fs::exists(dir / "libcuda.so", ec)) continue;
    bool named_stubs = dir.lexically_normal().filename() == "stubs" ||
                       (dir.lexically_normal().filename().empty() && dir.lexically_normal().parent_path().filename() == "stubs");
    if (named_stubs || !fs::exists(dir / "libcuda.so.1", ec)) out.push_back(entry);
  }
  return out;
}

} // namespace condacuda::sys
