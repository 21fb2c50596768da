#pragma once
// Dynamic string tokens and search-path lists, as elf/dl-load.c builds them
// (docs/loader-model.md §3): $ORIGIN/$PLATFORM/$LIB expansion (is_dst,
// _dl_dst_substitute), and the splitting, normalising and de-duplication of
// RPATH, RUNPATH and LD_LIBRARY_PATH (decompose_rpath, fillin_rpath,
// _dl_init_paths).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::loader {

// The values tokens expand to for one object.
struct DstValues {
  std::optional<std::string> origin; // nullopt: unknown (the element is dropped)
  std::string platform;              // "" means unknown
  std::string lib;
  bool secure = false;      // AT_SECURE: $ORIGIN only alone at the start of an element
};

// Number of recognised tokens in s (_dl_dst_count).
std::size_t count_dst(std::string_view s);

// Expands every recognised token. Returns "" when a recognised token has no
// value (ld.so then discards the element); unrecognised `$NAME` stays literal.
std::string expand_dst(std::string_view s, const DstValues& values);

enum class PathListKind { rpath, runpath, ld_library_path };

// One directory of a search list: the string ld.so stores, ending in '/', or
// "" for the current directory (an empty element).
struct SearchDir {
  std::string dir;
  std::string element; // the element as written before expansion
};

// Splits and normalises an RPATH/RUNPATH (separator ':') or LD_LIBRARY_PATH
// (':' and ';') value. Empty elements mean the current directory; trailing
// slashes are reduced to one; exact duplicates are dropped; nothing else is
// normalised. An LD_LIBRARY_PATH that is empty gives an empty list.
std::vector<SearchDir> decompose_path_list(std::string_view value, PathListKind kind, const DstValues& values);

// Whether a folder can be an entry of a path list at all: ':' separates the
// entries (and ';' too in LD_LIBRARY_PATH, _dl_init_paths), with no escape.
bool fits_path_list(std::string_view folder);

} // namespace condacuda::loader
