#pragma once
// Package records: pip's *.dist-info (METADATA, RECORD) and conda's
// conda-meta/*.json. Pure parsers: text in, data out.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::inventory {

struct RecordEntry {
  std::string path;   // relative to site-packages, as written (may start with "../")
  std::string hash;   // "sha256=<urlsafe base64>" or ""
  std::string size;   // as written, "" when absent
};

struct Distribution {
  std::string name;      // from METADATA "Name:", e.g. "nvidia-cusparse-cu12"
  std::string version;   // from METADATA "Version:"
  std::string dist_info; // the folder, relative to the prefix
  std::string site_packages; // relative to the prefix
  std::vector<RecordEntry> files; // RECORD's entries (an env scan keeps the shared libraries only)
  std::vector<std::string> requires_dist; // METADATA "Requires-Dist:" values, as written
};

struct CondaPackage {
  std::string name, version, build, channel;
  std::string record; // the conda-meta/*.json file, relative to the prefix
  std::vector<std::string> files;   // relative to the prefix
  std::vector<std::string> depends; // match specs
};

// RECORD is CSV (PEP 376/627): path,hash,size with optional double quotes.
// With `keep`, only the entries whose path it accepts (the others are never
// copied: a CUDA wheel's RECORD lists thousands of headers).
std::vector<RecordEntry> parse_record(std::string_view text, bool (*keep)(std::string_view path) = nullptr);
// The lines of a RECORD that parse_record(text, keep) makes entries of, each
// ended by a newline: parsing them gives the same entries as the whole text
// (RECORD is read line by line). What the dist-info cache keeps.
std::string kept_record_lines(std::string_view text, bool (*keep)(std::string_view path));

// METADATA is RFC 822 style: the first "Name:" and "Version:" headers, and
// every "Requires-Dist:" value in order (continuation lines, which start
// with whitespace, joined with one space). Headers end at the first empty
// line.
struct Metadata {
  std::string name, version;
  std::vector<std::string> requires_dist; // as written; parse with inventory/requirements.hpp
};
Metadata parse_metadata(std::string_view text);
// The lines of a METADATA that parse_metadata takes values from, each ended
// by a newline: its Name, Version and Requires-Dist headers and the
// continuations of the last, up to the first empty line (parsing them gives
// the same Metadata as the whole text). What the dist-info cache keeps.
std::string kept_metadata_lines(std::string_view text);

// A conda-meta/<name>-<version>-<build>.json record.
Result<CondaPackage> parse_conda_record(std::string_view json_text);

// PEP 503 normalisation: lower case, runs of -_. become '-'.
std::string normalize_package_name(std::string_view name);

// The CUDA major a wheel was built for, from a "-cu12"/"-cu13" name suffix.
std::optional<int> wheel_cuda_suffix(std::string_view normalized_name);

// The CUDA major a conda package is pinned to through a "cuda-version"
// dependency (e.g. "cuda-version >=12.8,<12.9.0a0" -> 12).
std::optional<int> conda_cuda_version_pin(const std::vector<std::string>& depends);

} // namespace condacuda::inventory
