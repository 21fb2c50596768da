#include "lock/lockfile.hpp"

#include <algorithm>
#include <array>
#include <yaml-cpp/yaml.h>

#include "util/embedded.hpp"
#include "util/template.hpp"

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

} // namespace condacuda::lock
