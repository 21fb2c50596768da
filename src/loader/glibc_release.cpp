#include "loader/glibc_release.hpp"

#include <cctype>

#include "elf/sections.hpp"

namespace condacuda::loader {

namespace {
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "2.31" at the start of `text` (digits, a dot, digits), else empty.
std::string release_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i == 0 || i + 1 >= text.size() || text[i] != '.' || !is_digit(text[i + 1])) return {};
  ++i;
  while (i < text.size() && is_digit(text[i])) ++i;
  return std::string(text.substr(0, i));
}
} // namespace

std::optional<std::string> glibc_release_from_loader_name(std::string_view file_name) {
  constexpr std::string_view prefix = "ld-", suffix = ".so";
  if (!file_name.starts_with(prefix) || !file_name.ends_with(suffix)) return std::nullopt;
  std::string_view middle = file_name.substr(prefix.size(), file_name.size() - prefix.size() - suffix.size());
  std::string release = release_at(middle);
  if (release.empty() || release.size() != middle.size()) return std::nullopt;
  return release;
}

namespace {
std::optional<std::string> banner_release(std::span<const std::byte> bytes) {
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  constexpr std::string_view library = "GNU C Library", marker = "release version ";
  for (std::size_t at = text.find(library); at != std::string_view::npos; at = text.find(library, at + 1)) {
    // The banner is one line: the version follows on it.
    std::string_view line = text.substr(at, text.substr(at).find('\n'));
    std::size_t version = line.find(marker);
    if (version == std::string_view::npos) continue;
    std::string release = release_at(line.substr(version + marker.size()));
    if (!release.empty()) return release;
  }
  return std::nullopt;
}
} // namespace

std::optional<std::string> glibc_release_from_libc(std::span<const std::byte> libc) {
  // The banner is a const array: .rodata, a tenth of the file (Debian 12's
  // libc: 150 KiB of 1.9 MiB, the banner at 1.6 MiB), searched first; then
  // the whole file, for a libc built otherwise.
  if (auto rodata = elf::find_section(elf::ByteReader(libc), ".rodata").bytes)
    if (auto release = banner_release(rodata->span())) return release;
  return banner_release(libc);
}

std::optional<int> glibc_minor_of(std::string_view release) {
  if (!release.starts_with("2.")) return std::nullopt;
  int minor = 0;
  std::size_t i = 2;
  for (; i < release.size() && is_digit(release[i]) && minor < 1000; ++i) minor = minor * 10 + (release[i] - '0');
  if (i == 2) return std::nullopt;
  return minor;
}

} // namespace condacuda::loader
