#pragma once
// The CUDA release table (templates/releases.yml, or the file given with
// --releases): which component versions each CUDA release ships, the driver
// branch each CUDA major needs and the driver each installer bundles. Data,
// not code: the alignment rules only look things up here. Pure: YAML text in,
// table out.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::lock {

struct ReleaseRow {
  std::string release;          // "13.0.2"
  std::string installer_driver; // "580.65.06", "" when the table does not say
  std::map<std::string, std::string> components; // component id -> version
};

struct MajorRow {
  int major = 0;
  int min_driver_branch = 0; // minor-version compatibility: 525 for 12.x
};

// The releases a component version belongs to, and the series they share.
struct ReleaseMatch {
  std::vector<std::string> releases; // rows listing this exact version, in table order
  std::string series;                // "13.0"; "" when no row lists the version
  bool known() const { return !series.empty(); }
};

struct ReleaseTable {
  std::string name;   // the table's own `name:`, recorded in lockfiles
  std::string sha256; // of the YAML text, to tell two tables with one name apart
  std::map<std::string, std::string> same_version_as; // "cublaslt" -> "cublas"
  std::vector<MajorRow> majors;
  std::vector<ReleaseRow> releases; // in file order

  // Matches a component's package version against every row. A version listed
  // by rows of two series (possible in principle) belongs to the oldest.
  ReleaseMatch match(const std::string& component, const std::string& version) const;
  // The column a component's version is listed under ("cublaslt" -> "cublas").
  const std::string& column_for(const std::string& component) const;
  std::optional<int> min_driver_branch(int major) const;
  // The newest row of a series ("13.0") that names an installer driver.
  const ReleaseRow* installer_row(const std::string& series) const;
};

// "13.0.2" -> "13.0"; "13" -> "13".
std::string series_of(std::string_view release);

// Parses a release table. Errors (ErrorCode::corrupt) name the line and column
// yaml-cpp reports, or the entry that is wrong; source_name prefixes them.
Result<ReleaseTable> parse_release_table(std::string_view yaml_text, const std::string& source_name);

// The table of templates/releases.yml, as the build compiled it
// (src/tools/compile_release_table.cpp, run by src/CMakeLists.txt): the value
// parse_release_table gives on the file, built without parsing at run time (a
// unit test holds the two equal). A table that does not parse fails the build.
ReleaseTable compiled_release_table();

// That table, built once a process.
Result<ReleaseTable> embedded_release_table();

} // namespace condacuda::lock
