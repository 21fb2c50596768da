#include "repair/manifest.hpp"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "launch/launch.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/yaml.hpp"
#include "util/path.hpp"

namespace condacuda::repair {

std::string original_store_path(const std::string& pinned_path) {
  std::string name = util::base_name(pinned_path);
  return std::string(originals_folder) + "/" + util::to_hex(util::sha256(pinned_path)).substr(0, 16) + "-" + name;
}

std::string render_manifest(const Manifest& m) {
  YAML::Emitter out;
  out << YAML::Comment("condacuda: what `condacuda repair` created in this env.\n`condacuda undo` removes exactly "
                       "these files when they are unchanged. Do not edit.");
  out << YAML::BeginMap;
  const bool private_copies =
      std::any_of(m.pins.begin(), m.pins.end(), [](const ManifestPin& p) { return !p.link_target.empty(); });
  out << YAML::Key << "version" << YAML::Value << (private_copies ? 3 : m.pin || !m.pins.empty() ? 2 : 1);
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
    if (!e.previous_sha256.empty()) out << YAML::Key << "previous_sha256" << YAML::Value << e.previous_sha256;
    if (!e.previous_target.empty())
      out << YAML::Key << "previous_target" << YAML::Value << YAML::DoubleQuoted << e.previous_target;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "dirs" << YAML::Value << YAML::BeginSeq;
  for (const auto& d : m.dirs) out << YAML::DoubleQuoted << d;
  out << YAML::EndSeq;
  if (!m.launches.empty()) {
    out << YAML::Key << "launches" << YAML::Value << YAML::BeginSeq;
    for (const auto& l : m.launches) {
      out << YAML::BeginMap << YAML::Key << "ld_library_path" << YAML::Value;
      if (l) out << YAML::DoubleQuoted << *l;
      else out << YAML::Null;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (m.pin || !m.pins.empty()) {
    out << YAML::Key << "pin" << YAML::Value << m.pin;
    out << YAML::Key << "pins" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : m.pins) {
      out << YAML::BeginMap;
      out << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << p.path;
      out << YAML::Key << "original_sha256" << YAML::Value << p.original_sha256;
      out << YAML::Key << "pinned_sha256" << YAML::Value << p.pinned_sha256;
      out << YAML::Key << "offsets" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (auto o : p.offsets) out << o;
      out << YAML::EndSeq;
      out << YAML::Key << "original" << YAML::Value << YAML::DoubleQuoted << p.original;
      if (!p.link_target.empty()) out << YAML::Key << "link_target" << YAML::Value << YAML::DoubleQuoted << p.link_target;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
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

namespace {
// A key that holds a list: absent is an empty list; anything else is an error
// (an `entries: 5` read as "nothing created" would make undo forget files).
Result<std::vector<YAML::Node>> list(const YAML::Node& root, const char* key) {
  YAML::Node v = root[key];
  std::vector<YAML::Node> out;
  if (!v || v.IsNull()) return out;
  if (!v.IsSequence()) return bad(std::string("'") + key + "' is not a list (line " + std::to_string(v.Mark().line + 1) + ")");
  for (const auto& item : v) out.push_back(item);
  return out;
}

Result<std::string> string_item(const YAML::Node& item, const char* key) {
  if (!item.IsScalar())
    return bad(std::string("an item of '") + key + "' is not a string (line " + std::to_string(item.Mark().line + 1) + ")");
  return item.as<std::string>();
}

// folders and dirs: strings naming paths inside the env.
Status read_paths(const YAML::Node& root, const char* key, const char* what, std::vector<std::string>& out) {
  auto items = list(root, key);
  if (!items) return items.error();
  for (const auto& item : *items) {
    auto path = string_item(item, key);
    if (!path) return path.error();
    if (auto ok = confined(*path, what); !ok) return ok.error();
    out.push_back(*path);
  }
  return ok_status();
}

Result<ManifestEntry> read_entry(const YAML::Node& e) {
  if (!e.IsMap()) return bad("an item of 'entries' is not a mapping (line " + std::to_string(e.Mark().line + 1) + ")");
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
  for (auto [key, into] : {std::pair{"previous_sha256", &entry.previous_sha256}, std::pair{"previous_target", &entry.previous_target}})
    if (e[key]) {
      auto value = scalar(e, key);
      if (!value) return value.error();
      *into = *value;
    }
  return entry;
}

bool is_hex_sha256(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Result<ManifestPin> read_pin(const YAML::Node& e) {
  if (!e.IsMap()) return bad("an item of 'pins' is not a mapping (line " + std::to_string(e.Mark().line + 1) + ")");
  ManifestPin pin;
  for (auto [key, into] : {std::pair{"path", &pin.path}, std::pair{"original_sha256", &pin.original_sha256},
                           std::pair{"pinned_sha256", &pin.pinned_sha256}, std::pair{"original", &pin.original}}) {
    auto value = scalar(e, key);
    if (!value) return value.error();
    *into = *value;
  }
  if (auto ok = confined(pin.path, "pinned path"); !ok) return ok.error();
  // The original is deleted and renamed over the library by undo: only
  // condacuda's own name for it is accepted.
  if (pin.original != original_store_path(pin.path))
    return bad("the original of '" + pin.path + "' is not kept where condacuda keeps it");
  if (e["link_target"]) {
    auto target = scalar(e, "link_target");
    if (!target) return target.error();
    if (target->empty() || target->find('\0') != std::string::npos)
      return bad("the link target of the pin of '" + pin.path + "' is empty or holds a NUL");
    pin.link_target = *target;
  }
  if (!is_hex_sha256(pin.original_sha256) || !is_hex_sha256(pin.pinned_sha256))
    return bad("a pin of '" + pin.path + "' has a malformed sha256");
  YAML::Node offsets = e["offsets"];
  if (!offsets || !offsets.IsSequence() || offsets.size() == 0)
    return bad("a pin of '" + pin.path + "' has no 'offsets' list");
  for (const auto& o : offsets) {
    std::uint64_t v = 0;
    if (!o.IsScalar() || !YAML::convert<std::uint64_t>::decode(o, v))
      return bad("an offset of the pin of '" + pin.path + "' is not a number");
    pin.offsets.push_back(v);
  }
  return pin;
}

// A launch: {ld_library_path: "value"} or {ld_library_path: null} (unset).
Result<std::optional<std::string>> read_launch(const YAML::Node& e) {
  const std::string line = " (line " + std::to_string(e.Mark().line + 1) + ")";
  if (!e.IsMap() || !e["ld_library_path"]) return bad("an item of 'launches' has no 'ld_library_path'" + line);
  YAML::Node v = e["ld_library_path"];
  if (v.IsNull()) return std::optional<std::string>();
  if (!v.IsScalar()) return bad("a launch's 'ld_library_path' is not a string" + line);
  return std::optional<std::string>(v.as<std::string>());
}

Result<int> read_version(const YAML::Node& root) {
  YAML::Node v = root["version"];
  if (!v) return bad("not a condacuda manifest (no 'version')");
  int version = 0;
  if (!v.IsScalar() || !YAML::convert<int>::decode(v, version))
    return bad("'version' is not a number (line " + std::to_string(v.Mark().line + 1) + ")");
  if (version > 3)
    return make_error(ErrorCode::unsupported, "manifest version " + std::to_string(version) + " is newer than this condacuda");
  if (version < 1) return bad("manifest version " + std::to_string(version) + " does not exist");
  return version;
}
} // namespace

Result<Manifest> parse_manifest(std::string_view text) {
  auto loaded = util::load_yaml(text);
  if (!loaded) return loaded.error();
  const YAML::Node& root = *loaded;
  if (!root.IsMap()) return bad("not a condacuda manifest (expected a mapping)");
  Manifest m;
  auto version = read_version(root);
  if (!version) return version.error();
  m.version = *version;
  if (root["tool"]) {
    auto tool = scalar(root, "tool");
    if (!tool) return tool.error();
    m.tool = *tool;
  }
  if (auto ok = read_paths(root, "folders", "folder", m.folders); !ok) return ok.error();
  auto entries = list(root, "entries");
  if (!entries) return entries.error();
  for (const auto& e : *entries) {
    auto entry = read_entry(e);
    if (!entry) return entry.error();
    m.entries.push_back(std::move(*entry));
  }
  if (auto ok = read_paths(root, "dirs", "folder created", m.dirs); !ok) return ok.error();
  if (YAML::Node pin = root["pin"]; pin && !(pin.IsScalar() && YAML::convert<bool>::decode(pin, m.pin)))
    return bad("'pin' is not true or false");
  auto launches = list(root, "launches");
  if (!launches) return launches.error();
  if (launches->size() > launch::max_recorded_launches)
    return bad("'launches' lists " + std::to_string(launches->size()) + " launches; a repair records at most " +
               std::to_string(launch::max_recorded_launches));
  for (const auto& e : *launches) {
    auto l = read_launch(e);
    if (!l) return l.error();
    m.launches.push_back(std::move(*l));
  }
  auto pins = list(root, "pins");
  if (!pins) return pins.error();
  for (const auto& e : *pins) {
    auto pin = read_pin(e);
    if (!pin) return pin.error();
    m.pins.push_back(std::move(*pin));
  }
  // Every condacuda writes the key, even for an empty list: a manifest
  // without it was cut short (or is not one), and undo would forget files.
  if (!root["entries"]) return bad("no 'entries' list: the manifest is incomplete");
  return m;
}

} // namespace condacuda::repair
