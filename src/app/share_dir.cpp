#include "app/share_dir.hpp"

#include <filesystem>

#include "sys/posix.hpp"

namespace condacuda::app {

namespace {
std::filesystem::path installation_root() {
  return std::filesystem::path(sys::self_executable()).parent_path().parent_path();
}
} // namespace

ShareDir share_dir() {
  auto dir = (installation_root() / "share" / "condacuda").lexically_normal().string();
  return {dir, sys::is_directory(dir)};
}

std::string probe_executable() {
  namespace fs = std::filesystem;
  fs::path exe = sys::self_executable();
  std::string installed = (installation_root() / "libexec" / "condacuda" / "condacuda-probe").lexically_normal().string();
  if (sys::path_exists(installed)) return installed;
  std::string beside = (exe.parent_path() / "condacuda-probe").string();
  return sys::path_exists(beside) ? beside : installed;
}

} // namespace condacuda::app
