// Reading lockfiles: version dispatch, then one reader per format version.
// Every error names where yaml-cpp says the problem is (1-based line, column).
#include <algorithm>
#include <yaml-cpp/yaml.h>

#include "lock/lockfile.hpp"
#include "util/yaml.hpp"

namespace condacuda::lock {

namespace {
std::string at(const YAML::Mark& mark) { return util::yaml_position(mark); }

class Reader {
public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Error bad(const YAML::Node& where, const std::string& what) const {
    return make_error(ErrorCode::corrupt, at(where.Mark()) + ": " + what, source_);
  }

  Result<std::string> text(const YAML::Node& map, const char* key, const std::string& context, bool required = true) const {
    YAML::Node v = map[key];
    // null (a lock written as JSON, e.g. by condacuda 0.1's `lock --json -o`) is absent
    if (!v || v.IsNull()) {
      if (!required) return std::string();
      return bad(map, context + "'" + key + "' is missing");
    }
    if (!v.IsScalar()) return bad(v, context + "'" + key + "' is not a scalar");
    return v.Scalar();
  }

  Result<bool> boolean(const YAML::Node& map, const char* key, const std::string& context) const {
    auto s = text(map, key, context);
    if (!s) return s.error();
    if (*s == "true") return true;
    if (*s == "false") return false;
    return bad(map[key], context + "'" + key + "' is not true or false");
  }

  Result<std::vector<std::string>> strings(const YAML::Node& map, const char* key, const std::string& context) const {
    std::vector<std::string> out;
    YAML::Node v = map[key];
    if (!v) return out;
    if (!v.IsSequence()) return bad(v, context + "'" + key + "' is not a list");
    for (const auto& item : v) {
      if (!item.IsScalar()) return bad(item, context + "'" + key + "' holds something that is not a string");
      out.push_back(item.Scalar());
    }
    return out;
  }

  const std::string& source() const { return source_; }

private:
  std::string source_;
};

bool is_sha256(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<LockedRule> read_rule(const Reader& r, const YAML::Node& node, const std::string& context) {
  if (!node.IsMap()) return r.bad(node, context + "is not a mapping");
  LockedRule rule;
  auto name = r.text(node, "rule", context);
  auto result = r.text(node, "result", context);
  auto min_release = r.text(node, "min_release", context, false);
  auto evidence = r.strings(node, "evidence", context);
  if (!name) return name.error();
  if (!result) return result.error();
  if (!min_release) return min_release.error();
  if (!evidence) return evidence.error();
  auto parsed = parse_rule_result(*result);
  if (!parsed) return r.bad(node["result"], context + "'result' is not pass, fail, unknown or skipped");
  return LockedRule{*name, *parsed, *min_release, *evidence};
}

Result<LockedVerdict> read_alignment(const Reader& r, const YAML::Node& root) {
  YAML::Node node = root["alignment"];
  if (!node) return r.bad(root, "'alignment' is missing");
  if (!node.IsMap()) return r.bad(node, "'alignment' is not a mapping");
  LockedVerdict v;
  auto series = r.text(node, "series", "alignment: ");
  auto aligned = r.boolean(node, "aligned", "alignment: ");
  if (!series) return series.error();
  if (!aligned) return aligned.error();
  v.series = *series;
  v.aligned = *aligned;
  YAML::Node rules = node["rules"];
  if (rules && !rules.IsSequence()) return r.bad(rules, "alignment: 'rules' is not a list");
  for (std::size_t i = 0; rules && i < rules.size(); ++i) {
    auto rule = read_rule(r, rules[i], "alignment.rules[" + std::to_string(i) + "]: ");
    if (!rule) return rule.error();
    v.rules.push_back(std::move(*rule));
  }
  return v;
}

Result<LockedComponent> read_component(const Reader& r, const YAML::Node& node, const std::string& context) {
  if (!node.IsMap()) return r.bad(node, context + "is not a mapping");
  LockedComponent c;
  struct Field {
    const char* key;
    std::string* out;
    bool required;
  };
  const Field fields[] = {{"component", &c.component, true}, {"soname", &c.soname, true},   {"path", &c.path, true},
                          {"manager", &c.manager, true},     {"package", &c.package, true}, {"version", &c.version, true},
                          {"build", &c.build, false},        {"sha256", &c.sha256, true},   {"cuda_release", &c.cuda_release, true}};
  for (const auto& f : fields) {
    auto v = r.text(node, f.key, context, f.required);
    if (!v) return v.error();
    *f.out = *v;
  }
  if (!c.sha256.empty() && !is_sha256(c.sha256)) return r.bad(node["sha256"], context + "'sha256' is not 64 lower-case hex digits");
  auto toolkit = r.boolean(node, "toolkit", context);
  if (!toolkit) return toolkit.error();
  c.toolkit = *toolkit;
  auto major = r.text(node, "cuda_major", context);
  if (!major) return major.error();
  try {
    c.cuda_major = node["cuda_major"].as<int>();
  } catch (const YAML::Exception&) {
    return r.bad(node["cuda_major"], context + "'cuda_major' is not a number");
  }
  return c;
}

Result<Lockfile> read_v1(const Reader& r, const YAML::Node& root) {
  Lockfile lock;
  lock.version = 1;
  auto env = r.text(root, "env", "");
  if (!env) return env.error();
  lock.env = *env;
  YAML::Node table = root["release_table"];
  if (!table || !table.IsMap()) return r.bad(table ? table : root, "'release_table' is missing or not a mapping");
  auto table_name = r.text(table, "name", "release_table: ");
  auto table_sha = r.text(table, "sha256", "release_table: ", false);
  if (!table_name) return table_name.error();
  if (!table_sha) return table_sha.error();
  lock.release_table = *table_name;
  lock.release_table_sha256 = *table_sha;
  auto alignment = read_alignment(r, root);
  if (!alignment) return alignment.error();
  lock.alignment = std::move(*alignment);
  YAML::Node components = root["components"];
  if (!components || !components.IsSequence()) return r.bad(components ? components : root, "'components' is missing or not a list");
  for (std::size_t i = 0; i < components.size(); ++i) {
    auto c = read_component(r, components[i], "components[" + std::to_string(i) + "]: ");
    if (!c) return c.error();
    lock.components.push_back(std::move(*c));
  }
  return lock;
}
} // namespace

Result<Lockfile> parse_lock(std::string_view text, const std::string& source_name) {
  Reader r(source_name);
  auto loaded = util::load_yaml(text);
  if (!loaded) return make_error(loaded.error().code, loaded.error().message, source_name);
  try {
    const YAML::Node& root = *loaded;
    if (!root.IsMap() || !root["version"])
      return make_error(ErrorCode::corrupt, "not a condacuda lock (expected a mapping that starts with 'version: 1')", source_name);
    auto version = r.text(root, "version", "");
    if (!version) return version.error();
    // Reading dispatches on the format version: a newer lock is refused, never misread.
    if (*version == "1") return read_v1(r, root);
    return make_error(ErrorCode::unsupported,
                      at(root["version"].Mark()) + ": lock format version " + *version + " is not supported (this condacuda reads 1)",
                      source_name);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorCode::corrupt, "ill-typed value at " + util::yaml_position(e.mark) + ": " + e.msg, source_name);
  }
}

} // namespace condacuda::lock
