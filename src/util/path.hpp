#pragma once
// Paths as text, lexically: no file system. The one home of "the part after the
// last '/'", which the loader model (l_origin), discovery, the inventory and
// the reports all need.
#include <string>
#include <string_view>

namespace condacuda::util {

// The last component: "a/b" -> "b", "b" -> "b", "a/" -> "".
std::string base_name(std::string_view path);

// Everything before the last '/': "a/b" -> "a", "/b" -> "/" (the root is its
// own folder, as _dl_new_object's l_origin), "b" -> "" (no folder named).
std::string dir_name(std::string_view path);

// `dir` and `name` with one '/' between them: ("a", "b") and ("a/", "b") -> "a/b".
std::string join_path(std::string_view dir, std::string_view name);

// std::filesystem::path(path).lexically_normal().string(), without building
// a path where there is nothing to change: an absolute path whose every
// element is a name (no "", "." or ".."), which the loader's paths mostly
// are and a doctor run normalises by the thousand.
std::string lexically_normal(const std::string& path);

} // namespace condacuda::util
