#include "lock/lockfile.hpp"

#include <algorithm>
#include <array>
#include <yaml-cpp/yaml.h>

#include "util/template.hpp"
#include "util/embedded.hpp"

namespace condacuda::lock {

const LockedRule* LockedVerdict::find(std::string_view rule_name) const {
  for (const auto& r : rules)
    if (r.rule == rule_name) return &r;
  return nullptr;
}

Lockfile make_lock(const std::string& env_name, const inventory::Inventory& inv,
                   const std::map<std::string, std::string>& sha256_by_file, const Alignment& alignment,
                   const ReleaseTable& table) {
  Lockfile lock;
  lock.env = env_name;
  lock.release_table = table.name;
  lock.release_table_sha256 = table.sha256;
  lock.alignment.series = alignment.series;
  lock.alignment.aligned = alignment.aligned;
  for (const auto& r : alignment.rules) lock.alignment.rules.push_back({r.rule, r.result, r.min_release, r.evidence});
  for (const auto& lib : inv.libraries) {
    LockedComponent c;
    c.component = lib.component;
    c.soname = lib.soname;
    c.path = lib.file;
    c.manager = lib.manager;
    c.package = lib.package;
    c.version = lib.version;
    c.build = lib.build;
    auto hash = sha256_by_file.find(lib.file);
    if (hash != sha256_by_file.end()) c.sha256 = hash->second;
    c.toolkit = lib.toolkit;
    c.cuda_major = lib.cuda_major;
    auto match = alignment.releases.find(lib.file);
    if (!lib.toolkit) c.cuda_release = "none";
    else c.cuda_release = match != alignment.releases.end() && match->second.known() ? match->second.series : "unknown";
    lock.components.push_back(std::move(c));
  }
  std::sort(lock.components.begin(), lock.components.end(),
            [](const LockedComponent& a, const LockedComponent& b) { return a.path < b.path; });
  return lock;
}

namespace {
// Every string value quoted: versions like 13.0 must stay strings, and paths
// and evidence may hold ": " or "#".
void quoted(YAML::Emitter& out, const char* key, const std::string& value) {
  out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

void emit_alignment(YAML::Emitter& out, const LockedVerdict& v) {
  out << YAML::Key << "alignment" << YAML::Value << YAML::BeginMap;
  quoted(out, "series", v.series);
  out << YAML::Key << "aligned" << YAML::Value << YAML::TrueFalseBool << v.aligned;
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : v.rules) {
    out << YAML::BeginMap;
    out << YAML::Key << "rule" << YAML::Value << r.rule;
    out << YAML::Key << "result" << YAML::Value << to_string(r.result);
    if (!r.min_release.empty()) quoted(out, "min_release", r.min_release);
    out << YAML::Key << "evidence" << YAML::Value << YAML::BeginSeq;
    for (const auto& e : r.evidence) out << YAML::DoubleQuoted << e;
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

void emit_component(YAML::Emitter& out, const LockedComponent& c) {
  out << YAML::BeginMap;
  out << YAML::Key << "component" << YAML::Value << c.component;
  quoted(out, "soname", c.soname);
  quoted(out, "path", c.path);
  quoted(out, "manager", c.manager);
  quoted(out, "package", c.package);
  quoted(out, "version", c.version);
  if (!c.build.empty()) quoted(out, "build", c.build);
  quoted(out, "sha256", c.sha256);
  out << YAML::Key << "toolkit" << YAML::Value << YAML::TrueFalseBool << c.toolkit;
  out << YAML::Key << "cuda_major" << YAML::Value << c.cuda_major;
  quoted(out, "cuda_release", c.cuda_release);
  out << YAML::EndMap;
}
} // namespace

Result<std::string> render_lock(const Lockfile& lock, std::string_view tool_version) {
  auto header_text = util::embedded_asset("templates/lock-header.txt");
  if (!header_text) return make_error(ErrorCode::internal, "the lockfile header is not embedded", "templates/lock-header.txt");
  const std::array<util::Placeholder, 1> values = {{{"TOOL_VERSION", tool_version}}};
  auto header = util::expand_placeholders(*header_text, values, "templates/lock-header.txt");
  if (!header) return header.error();
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << lock.version;
  quoted(out, "env", lock.env);
  out << YAML::Key << "release_table" << YAML::Value << YAML::BeginMap;
  quoted(out, "name", lock.release_table);
  quoted(out, "sha256", lock.release_table_sha256);
  out << YAML::EndMap;
  emit_alignment(out, lock.alignment);
  out << YAML::Key << "components" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : lock.components) emit_component(out, c);
  out << YAML::EndSeq << YAML::EndMap;
  return *header + out.c_str() + "\n";
}

util::Json lock_json(const Lockfile& lock) {
  using util::Json;
  Json j = Json::object();
  j.set("schema", "condacuda.lock/1");
  j.set("version", lock.version);
  j.set("env", lock.env);
  Json table = Json::object();
  table.set("name", lock.release_table);
  table.set("sha256", lock.release_table_sha256);
  j.set("release_table", table);
  Json alignment = Json::object();
  alignment.set("series", lock.alignment.series);
  alignment.set("aligned", lock.alignment.aligned);
  Json rules = Json::array();
  for (const auto& r : lock.alignment.rules) {
    Json rj = Json::object();
    rj.set("rule", r.rule);
    rj.set("result", to_string(r.result));
    rj.set("min_release", r.min_release.empty() ? Json() : Json(r.min_release));
    Json evidence = Json::array();
    for (const auto& e : r.evidence) evidence.push(e);
    rj.set("evidence", evidence);
    rules.push(rj);
  }
  alignment.set("rules", rules);
  j.set("alignment", alignment);
  Json components = Json::array();
  for (const auto& c : lock.components) {
    Json cj = Json::object();
    cj.set("component", c.component);
    cj.set("soname", c.soname);
    cj.set("path", c.path);
    cj.set("manager", c.manager);
    cj.set("package", c.package);
    cj.set("version", c.version);
    cj.set("build", c.build.empty() ? Json() : Json(c.build));
    cj.set("sha256", c.sha256);
    cj.set("toolkit", c.toolkit);
    cj.set("cuda_major", c.cuda_major > 0 ? Json(c.cuda_major) : Json());
    cj.set("cuda_release", c.cuda_release);
    components.push(cj);
  }
  j.set("components", components);
  return j;
}

} // namespace condacuda::lock
