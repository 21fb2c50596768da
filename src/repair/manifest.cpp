#include "repair/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include "util/strings.hpp"

namespace condacuda::repair {

std::string render_manifest(const Manifest& m) {
  YAML::Emitter out;
  out << YAML::Comment("condacuda: what `condacuda repair` created in this env.\n`condacuda undo` removes exactly "
                       "these files when they are unchanged. Do not edit.");
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << m.version;
  out << YAML::Key << "tool" << YAML::Value << m.tool;
  out << YAML::Key << "folders" << YAML::Value << YAML::BeginSeq;
  for (const auto& f : m.folders) out << YAML::DoubleQuoted << f;
  out << YAML::EndSeq;
  out << YAML::Key << "entries" << YAML::Value << YAML::BeginSeq;
  for (const auto& e : m.entries) {
    out << YAML::BeginMap;
    out << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << e.path;
    out << YAML::Key << "kind" << YAML::Value << (e.kind == ManifestEntry::Kind::file ? "file" : "symlink");
    if (e.kind == ManifestEntry::Kind::file) out << YAML::Key << "sha256" << YAML::Value << e.sha256;
    else out << YAML::Key << "target" << YAML::Value << YAML::DoubleQuoted << e.target;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "dirs" << YAML::Value << YAML::BeginSeq;
  for (const auto& d : m.dirs) out << YAML::DoubleQuoted << d;
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

namespace {
Error bad(const std::string& what) { return make_error(ErrorCode::corrupt, what); }

// A path the manifest names must stay inside the env by its spelling: undo
// deletes what it lists, as root inside `conda remove`.
Status confined(const std::string& path, const char* what) {
  if (util::is_confined_relative_path(path)) return ok_status();
  return bad(std::string(what) + " '" + path + "' is not a path inside the env (relative, without '..')");
}

Result<std::string> scalar(const YAML::Node& node, const char* key) {
  YAML::Node v = node[key];
  if (!v || !v.IsScalar()) return bad(std::string("'") + key + "' is missing or not a scalar");
  return v.as<std::string>();
}
} // namespace

Result<Manifest> parse_manifest(std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return bad("invalid YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
               std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) return bad("not a condacuda manifest (expected a mapping)");
  Manifest m;
  try {
    if (!root["version"]) return bad("not a condacuda manifest (no 'version')");
    m.version = root["version"].as<int>();
    if (m.version != 1) return make_error(ErrorCode::unsupported, "manifest version " + std::to_string(m.version) + " is newer than this condacuda");
    if (root["tool"]) m.tool = root["tool"].as<std::string>();
    for (const auto& f : root["folders"]) {
      m.folders.push_back(f.as<std::string>());
      if (auto ok = confined(m.folders.back(), "folder"); !ok) return ok.error();
    }
    for (const auto& e : root["entries"]) {
      ManifestEntry entry;
      auto path = scalar(e, "path");
      auto kind = scalar(e, "kind");
      if (!path) return path.error();
      if (!kind) return kind.error();
      entry.path = *path;
      if (auto ok = confined(entry.path, "entry path"); !ok) return ok.error();
      if (*kind == "file") {
        auto sha = scalar(e, "sha256");
        if (!sha) return sha.error();
        entry.sha256 = *sha;
      } else if (*kind == "symlink") {
        entry.kind = ManifestEntry::Kind::symlink;
        auto target = scalar(e, "target");
        if (!target) return target.error();
        entry.target = *target;
      } else {
        return bad("unknown entry kind '" + *kind + "'");
      }
      m.entries.push_back(std::move(entry));
    }
    for (const auto& d : root["dirs"]) {
      m.dirs.push_back(d.as<std::string>());
      if (auto ok = confined(m.dirs.back(), "folder created"); !ok) return ok.error();
    }
  } catch (const YAML::Exception& e) {
    return bad("ill-typed manifest at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return m;
}

} // namespace condacuda::repair
