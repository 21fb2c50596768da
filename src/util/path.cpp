#include "util/path.hpp"

#include <filesystem>

namespace condacuda::util {

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string dir_name(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

namespace {
bool already_normal(std::string_view path) {
  if (path.size() < 2 || path[0] != '/') return false;
  for (std::size_t start = 1;;) {
    const std::size_t slash = path.find('/', start);
    const std::string_view element = path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (element.empty() || element == "." || element == "..") return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}
} // namespace

std::string lexically_normal(const std::string& path) {
  if (already_normal(path)) return path;
  return std::filesystem::path(path).lexically_normal().string();
}

} // namespace condacuda::util
