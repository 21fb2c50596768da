#include "app/share_dir.hpp"

#include <filesystem>

#include "sys/posix.hpp"

namespace condacuda::app {

ShareDir share_dir() {
  namespace fs = std::filesystem;
  fs::path exe = sys::self_executable();
  auto dir = (exe.parent_path().parent_path() / "share" / "condacuda").lexically_normal().string();
  return {dir, sys::is_directory(dir)};
}

} // namespace condacuda::app
