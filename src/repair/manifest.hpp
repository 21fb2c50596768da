#pragma once
// The manifest of what `condacuda repair` created in an env
// ($PREFIX/etc/condacuda/manifest.yml, never under conda-meta/, where conda
// reads every file as a package record). `undo` removes exactly what it
// lists, when unchanged. Deterministic YAML: version first, fixed key order.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::repair {

inline constexpr const char* manifest_path = "etc/condacuda/manifest.yml";

struct ManifestEntry {
  enum class Kind { file, symlink };
  std::string path; // relative to the prefix
  Kind kind = Kind::file;
  std::string sha256; // files: of the content written
  std::string target; // symlinks: the link text (relative)
  // In a journal (the manifest a running repair writes first): what the path
  // held before, when condacuda is replacing an older version of its own. A
  // run killed before the rename leaves that older version, which is still
  // condacuda's. Empty in a finished manifest.
  std::string previous_sha256; // it was a file with this content
  std::string previous_target; // it was a link with this text
  bool operator==(const ManifestEntry&) const = default;
};

// A library `repair --pin` changed in place (its DT_RUNPATH tags became
// DT_RPATH). The original inode is kept at `original` (a hard link: no space
// while conda's or uv's cache shares it), so that undo can put it back.
struct ManifestPin {
  std::string path;            // the library, relative to the prefix
  std::string original_sha256; // its content before the pin
  std::string pinned_sha256;   // its content pinned
  std::vector<std::uint64_t> offsets; // the d_tags changed (file offsets)
  std::string original;        // where the original is kept, relative to the prefix
  // A private copy: the path was a symlink with this text (into uv's cache,
  // outside the env); the pinned file replaced the link, and undo puts the
  // link back (nothing is kept at `original` then). Empty for a file pinned in place.
  std::string link_target;
  bool operator==(const ManifestPin&) const = default;
};

// Where the original of a pinned library is kept: one name per path.
std::string original_store_path(const std::string& pinned_path);
inline constexpr const char* originals_folder = "etc/condacuda/originals";

struct Manifest {
  int version = 1; // 2 when it records pins, 3 with private copies (an older condacuda must not undo half)
  std::string tool;                 // "condacuda 0.1.0"
  std::vector<std::string> folders; // put first on LD_LIBRARY_PATH by the hooks, relative to the prefix
  std::vector<ManifestEntry> entries;
  std::vector<std::string> dirs;    // directories repair created (removed by undo when empty)
  bool pin = false;                 // repair pins (--pin, or a venv): kept by later repairs
  std::vector<ManifestPin> pins;
  // Every launch the repairs verified (launch/launch.hpp): the LD_LIBRARY_PATH
  // each was run with, without the env's hook (nullopt: unset), oldest first.
  // Each later repair verifies its plan against all of them, so a repair from
  // another shell never removes what a recorded launch needs.
  std::vector<std::optional<std::string>> launches;
  bool operator==(const Manifest&) const = default;
};

std::string render_manifest(const Manifest& manifest);

// More launches than a repair records (launch::max_recorded_launches) are corrupt.
// Errors: ErrorCode::corrupt with the line and column yaml-cpp reports, or
// naming the missing/ill-typed key; unsupported for a newer version.
Result<Manifest> parse_manifest(std::string_view text);

} // namespace condacuda::repair
