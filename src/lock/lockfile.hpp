#pragma once
// The lockfile (format version 1): an env's CUDA libraries with their package,
// file hash and CUDA release, and the alignment verdict. Deterministic: no
// timestamps, no absolute paths, fixed key order, components sorted by path;
// the same env gives the same bytes. Pure: values in, text out, text in.
//
//   # header comment (templates/lock-header.txt)
//   version: 1
//   env: NAME                       the prefix's base name (envs move; it is not compared)
//   release_table: {name, sha256}   the table that judged the verdict
//   alignment: {series, aligned, rules: [{rule, result, min_release?, evidence}]}
//   components: [{component, soname, path, manager, package, version, build?,
//                 sha256, toolkit, cuda_major, cuda_release}]
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/inventory.hpp"
#include "lock/alignment.hpp"
#include "lock/release_table.hpp"
#include "util/result.hpp"

namespace condacuda::lock {

inline constexpr int lock_format_version = 1;

struct LockedComponent {
  std::string component; // "cusparse"
  std::string soname;
  std::string path;      // the real file, relative to the prefix (the key)
  std::string manager;   // "pip", "conda" or "" (no package)
  std::string package, version, build; // build: conda only
  std::string sha256;    // lower-case hex of the file's bytes
  bool toolkit = false;
  int cuda_major = -1;   // -1: unknown
  std::string cuda_release; // "13.0"; "unknown" (toolkit, not in the table); "none" (not a toolkit library)
};

struct LockedRule {
  std::string rule;
  RuleResult result = RuleResult::unknown;
  std::string min_release; // "" when the rule has none
  std::vector<std::string> evidence;
};

struct LockedVerdict {
  std::string series;
  bool aligned = true;
  std::vector<LockedRule> rules;
  const LockedRule* find(std::string_view rule_name) const;
};

struct Lockfile {
  int version = lock_format_version;
  std::string env;
  std::string release_table, release_table_sha256;
  LockedVerdict alignment;
  std::vector<LockedComponent> components; // sorted by path
};

// The lock of an env. `sha256_by_file` maps prefix-relative files to hex
// digests; a library missing from it is locked with an empty digest (the
// caller reports why).
Lockfile make_lock(const std::string& env_name, const inventory::Inventory& inv,
                   const std::map<std::string, std::string>& sha256_by_file, const Alignment& alignment,
                   const ReleaseTable& table);

// YAML text: the header (templates/lock-header.txt, with the tool version),
// then the fields in the order above. Errors only if the header template is
// missing (internal).
Result<std::string> render_lock(const Lockfile& lock, std::string_view tool_version);

// Reads a lockfile. Dispatches on `version`; errors (ErrorCode::corrupt for
// broken YAML or a file that is not a condacuda lock, unsupported for another
// version) carry "line L, column C" as yaml-cpp reports it; `source_name`
// becomes the error's path.
Result<Lockfile> parse_lock(std::string_view text, const std::string& source_name);

} // namespace condacuda::lock
