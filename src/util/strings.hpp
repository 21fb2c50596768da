#pragma once
// String helpers shared by every layer. Pure functions.
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::util {

// Splits on any of the separator characters; keeps empty fields ("a::b" -> a,"",b).
std::vector<std::string> split(std::string_view s, std::string_view separators);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string_view trim(std::string_view s);
bool contains(std::string_view haystack, std::string_view needle);
std::string to_lower(std::string_view s);

// Numeric-aware comparison of dotted versions: "12.10" > "12.9", "13.0.88" > "13.0".
// Non-numeric parts compare as strings. Returns <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);

// "12.6.3.3" -> 12; nullopt-like -1 when there is no leading number.
int leading_number(std::string_view s);

// A path relative to a root that cannot leave it by its spelling: not empty,
// not absolute, no empty, "." or ".." component, no NUL ("etc/conda/x.sh"
// yes; "../x", "/etc/x", "a//b", "a/./b" no). What it names on disk may still
// be reached through a symbolic link: the system layer walks it without
// following any (sys/prefix_tree.hpp).
bool is_confined_relative_path(std::string_view path);

// Replaces every occurrence of `from` in s by `to`.
std::string replace_all(std::string s, std::string_view from, std::string_view to);

} // namespace condacuda::util
