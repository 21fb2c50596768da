#include "lock/release_table.hpp"

#include <algorithm>
#include <yaml-cpp/yaml.h>

#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/yaml.hpp"

namespace condacuda::lock {

std::string series_of(std::string_view release) {
  auto first = release.find('.');
  if (first == std::string_view::npos) return std::string(release);
  auto second = release.find('.', first + 1);
  return std::string(release.substr(0, second));
}

const std::string& ReleaseTable::column_for(const std::string& component) const {
  auto alias = same_version_as.find(component);
  return alias == same_version_as.end() ? component : alias->second;
}

ReleaseMatch ReleaseTable::match(const std::string& component, const std::string& version) const {
  ReleaseMatch m;
  if (version.empty()) return m;
  const std::string& column = column_for(component);
  for (const auto& row : releases) {
    auto it = row.components.find(column);
    if (it == row.components.end() || it->second != version) continue;
    m.releases.push_back(row.release);
    std::string s = series_of(row.release);
    if (m.series.empty() || util::compare_versions(s, m.series) < 0) m.series = s;
  }
  return m;
}

std::optional<int> ReleaseTable::min_driver_branch(int major) const {
  for (const auto& m : majors)
    if (m.major == major) return m.min_driver_branch;
  return std::nullopt;
}

const ReleaseRow* ReleaseTable::installer_row(const std::string& series) const {
  const ReleaseRow* best = nullptr;
  for (const auto& row : releases)
    if (!row.installer_driver.empty() && series_of(row.release) == series &&
        (!best || util::compare_versions(row.release, best->release) > 0))
      best = &row;
  return best;
}

namespace {
// yaml-cpp marks are 0-based; people count from 1.
std::string at(const YAML::Mark& mark) { return util::yaml_position(mark); }

Error bad(const std::string& source, const std::string& what) {
  return make_error(ErrorCode::corrupt, what, source);
}

bool is_release(const std::string& s) {
  auto parts = util::split(s, ".");
  if (parts.size() < 2 || parts.size() > 3) return false;
  return std::all_of(parts.begin(), parts.end(), [](const std::string& p) {
    return !p.empty() && std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
  });
}

// A scalar child, or an error naming where the parent is.
Result<std::string> scalar(const YAML::Node& parent, const char* key, const std::string& source) {
  YAML::Node v = parent[key];
  if (!v || !v.IsScalar()) return bad(source, std::string("'") + key + "' is missing or not a scalar at " + at(parent.Mark()));
  return v.Scalar();
}

Result<ReleaseRow> parse_row(const YAML::Node& node, const std::string& source) {
  if (!node.IsMap()) return bad(source, "a release entry is not a mapping at " + at(node.Mark()));
  ReleaseRow row;
  auto release = scalar(node, "release", source);
  if (!release) return release.error();
  if (!is_release(*release)) return bad(source, "release '" + *release + "' is not X.Y or X.Y.Z at " + at(node.Mark()));
  row.release = *release;
  if (node["installer_driver"]) {
    auto driver = scalar(node, "installer_driver", source);
    if (!driver) return driver.error();
    row.installer_driver = *driver;
  }
  YAML::Node components = node["components"];
  if (components && !components.IsMap()) return bad(source, "'components' is not a mapping at " + at(components.Mark()));
  for (const auto& kv : components) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar())
      return bad(source, "a component version is not a scalar at " + at(kv.first.Mark()));
    row.components[kv.first.Scalar()] = kv.second.Scalar();
  }
  return row;
}

Status parse_majors(const YAML::Node& node, ReleaseTable& table, const std::string& source) {
  if (!node) return ok_status();
  if (!node.IsSequence()) return bad(source, "'majors' is not a list at " + at(node.Mark()));
  for (const auto& m : node) {
    auto major = scalar(m, "major", source);
    auto branch = scalar(m, "min_driver_branch", source);
    if (!major) return major.error();
    if (!branch) return branch.error();
    int mj = util::leading_number(*major), br = util::leading_number(*branch);
    if (mj <= 0 || br <= 0) return bad(source, "'majors' entry is not two numbers at " + at(m.Mark()));
    table.majors.push_back({mj, br});
  }
  return ok_status();
}

Result<ReleaseTable> parse_v1(const YAML::Node& root, const std::string& source) {
  ReleaseTable table;
  auto name = scalar(root, "name", source);
  if (!name) return name.error();
  table.name = *name;
  if (YAML::Node same = root["same_version_as"]) {
    if (!same.IsMap()) return bad(source, "'same_version_as' is not a mapping at " + at(same.Mark()));
    for (const auto& kv : same) {
      if (!kv.first.IsScalar() || !kv.second.IsScalar()) return bad(source, "'same_version_as' entry is not a scalar at " + at(kv.first.Mark()));
      table.same_version_as[kv.first.Scalar()] = kv.second.Scalar();
    }
  }
  if (auto status = parse_majors(root["majors"], table, source); !status) return status.error();
  YAML::Node releases = root["releases"];
  if (!releases || !releases.IsSequence()) return bad(source, "'releases' is missing or not a list");
  for (const auto& r : releases) {
    auto row = parse_row(r, source);
    if (!row) return row.error();
    table.releases.push_back(std::move(*row));
  }
  return table;
}
} // namespace

Result<ReleaseTable> parse_release_table(std::string_view yaml_text, const std::string& source_name) {
  auto loaded = util::load_yaml(yaml_text);
  if (!loaded) return bad(source_name, loaded.error().message);
  try {
    const YAML::Node& root = *loaded;
    if (!root.IsMap() || !root["version"])
      return bad(source_name, "not a condacuda release table (expected a mapping starting with 'version: 1')");
    auto version = scalar(root, "version", source_name);
    if (!version) return version.error();
    // Reading dispatches on the version: a newer table is refused, not misread.
    if (*version != "1")
      return make_error(ErrorCode::unsupported, "release table version " + *version + " is not supported (this condacuda reads 1)", source_name);
    auto table = parse_v1(root, source_name);
    if (table) table->sha256 = util::to_hex(util::sha256(yaml_text));
    return table;
  } catch (const YAML::Exception& e) {
    return bad(source_name, "ill-typed value at " + at(e.mark) + ": " + e.msg);
  }
}

} // namespace condacuda::lock
