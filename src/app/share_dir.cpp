#include "app/share_dir.hpp"

#include <filesystem>

#include "sys/posix.hpp"

namespace condacuda::app {

ShareDir share_dir() {
  std::filesystem::path root = std::filesystem::path(sys::self_executable()).parent_path().parent_path();
  auto dir = (root / "share" / "condacuda").lexically_normal().string();
  return {dir, sys::is_directory(dir)};
}

std::string probe_executable() {
  std::filesystem::path exe = sys::self_executable();
  std::string installed =
      (exe.parent_path().parent_path() / "libexec" / "condacuda" / "condacuda-probe").lexically_normal().string();
  if (sys::path_exists(installed)) return installed;
  std::string beside = (exe.parent_path() / "condacuda-probe").string();
  return sys::path_exists(beside) ? beside : installed;
}

} // namespace condacuda::app
