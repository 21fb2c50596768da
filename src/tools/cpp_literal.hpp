#pragma once
// A C++ string literal that says `text` byte for byte: every byte that is not
// a plain letter, digit or one of a few marks is written as an octal escape.
// What the build-time compilers of templates/ (tools/) write their strings
// as, and how they read and write their files.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace condacuda::tools {

inline std::string cpp_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 std::string_view("._-+:/ ").find(static_cast<char>(c)) != std::string_view::npos;
    if (plain) {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\%03o", c);
      out += escaped;
    }
  }
  return out + "\"";
}

// The whole file at `path`; nullopt when it cannot be read.
inline std::optional<std::string> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return std::nullopt;
  return text;
}

// Writes `source` to `path` only when it changes (the files that include it
// are not rebuilt for nothing); false when it cannot be written.
inline bool write_if_changed(const char* path, const std::string& source) {
  std::ifstream old(path, std::ios::binary);
  if (old && std::string((std::istreambuf_iterator<char>(old)), std::istreambuf_iterator<char>()) == source) return true;
  old.close();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << source;
  out.close();
  return static_cast<bool>(out);
}

} // namespace condacuda::tools
