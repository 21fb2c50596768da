#include "env/discovery.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>

#include "util/strings.hpp"
#include "util/yaml.hpp"
#include "util/path.hpp"

namespace condacuda::env {

namespace {

std::string var_or_empty(const VarMap& vars, const std::string& name) {
  auto it = vars.find(name);
  return it == vars.end() ? std::string{} : it->second;
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Lexical parent of a normalised absolute path; "/" is its own parent.
std::string parent_path(const std::string& path) {
  std::string dir = util::dir_name(path);
  return dir.empty() ? "/" : dir;
}

bool is_root(const std::string& prefix, const std::vector<RootPrefix>& roots) {
  return std::any_of(roots.begin(), roots.end(),
                     [&](const RootPrefix& r) { return r.path == prefix; });
}

// "line 3, column 5" from a yaml-cpp mark (0-based there, 1-based here).
std::string describe_mark(const YAML::Mark& mark) {
  if (mark.is_null()) return "unknown position";
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

void warn(std::vector<Error>& warnings, const std::string& path, std::string message) {
  warnings.push_back(make_error(ErrorCode::corrupt, std::move(message), path));
}

// The string items of one envs_dirs sequence node; anything else is a warning.
std::vector<std::string> sequence_items(const YAML::Node& value, const std::string& key,
                                        const std::string& path, std::vector<Error>& warnings) {
  std::vector<std::string> out;
  if (value.IsNull()) return out; // `envs_dirs:` with nothing: no entries
  if (!value.IsSequence()) {
    warn(warnings, path, "'" + key + "' at " + describe_mark(value.Mark()) +
                             " is not a list; ignored");
    return out;
  }
  for (const auto& item : value) {
    if (!item.IsScalar()) {
      warn(warnings, path, "'" + key + "' item at " + describe_mark(item.Mark()) +
                               " is not a string; ignored");
      continue;
    }
    out.push_back(item.Scalar());
  }
  return out;
}

} // namespace

const char* to_string(EnvKind kind) {
  switch (kind) {
  case EnvKind::conda: return "conda";
  case EnvKind::micromamba: return "micromamba";
  case EnvKind::pixi: return "pixi";
  case EnvKind::venv: return "venv";
  case EnvKind::uv: return "uv";
  }
  return "unknown";
}

// --- path helpers -----------------------------------------------------------

std::string expand_vars(std::string_view s, const VarMap& vars) {
  // posixpath.expandvars: one left-to-right pass over `$name` / `${name}`.
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '$' || i + 1 >= s.size()) {
      out += s[i++];
      continue;
    }
    std::size_t start = i + 1, end = start;
    bool braced = s[start] == '{';
    std::string name;
    if (braced) {
      auto close = s.find('}', start + 1);
      if (close == std::string_view::npos) { out += s[i++]; continue; }
      name = std::string(s.substr(start + 1, close - start - 1));
      end = close + 1;
    } else {
      while (end < s.size() && is_name_char(s[end])) ++end;
      name = std::string(s.substr(start, end - start));
    }
    auto it = name.empty() ? vars.end() : vars.find(name);
    if (it == vars.end()) {
      out += s.substr(i, end == start ? 1 : end - i); // unknown: kept as written
      i = end == start ? i + 1 : end;
      continue;
    }
    out += it->second;
    i = end;
  }
  return out;
}

std::string absolute_path(std::string_view path, std::string_view cwd) {
  std::string full = (!path.empty() && path.front() == '/') ? std::string(path)
                                                             : util::join_path(cwd, path);
  std::vector<std::string> parts;
  for (auto& part : util::split(full, "/")) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back(); // "/.." is "/"
      continue;
    }
    parts.push_back(std::move(part));
  }
  return "/" + util::join(parts, "/");
}

std::string expand_path(std::string_view path, const VarMap& vars, std::string_view home,
                        std::string_view cwd) {
  std::string s = expand_vars(path, vars);
  if (!home.empty() && !s.empty() && s[0] == '~' && (s.size() == 1 || s[1] == '/'))
    s = std::string(home) + s.substr(1);
  return absolute_path(s, cwd);
}

// --- configuration -----------------------------------------------------------

std::vector<std::string> condarc_search_paths(const VarMap& vars, std::string_view home,
                                              std::string_view cwd, SystemConfig system) {
  // conda/base/constants.py SEARCH_PATH (Unix), lowest precedence first. The
  // first column names where the entry is anchored: "" absolute, "~" home, or
  // a variable.
  struct Entry { const char* anchor; const char* rest; };
  static constexpr std::array<Entry, 6> system_entries{{
      {"", "/etc/conda/.condarc"}, {"", "/etc/conda/condarc"}, {"", "/etc/conda/condarc.d/"},
      {"", "/var/lib/conda/.condarc"}, {"", "/var/lib/conda/condarc"},
      {"", "/var/lib/conda/condarc.d/"}}};
  static constexpr std::array<Entry, 17> user_entries{{
      {"CONDA_ROOT", "/.condarc"}, {"CONDA_ROOT", "/condarc"}, {"CONDA_ROOT", "/condarc.d/"},
      {"XDG_CONFIG_HOME", "/conda/.condarc"}, {"XDG_CONFIG_HOME", "/conda/condarc"},
      {"XDG_CONFIG_HOME", "/conda/condarc.d/"},
      {"~", "/.config/conda/.condarc"}, {"~", "/.config/conda/condarc"},
      {"~", "/.config/conda/condarc.d/"},
      {"~", "/.conda/.condarc"}, {"~", "/.conda/condarc"}, {"~", "/.conda/condarc.d/"},
      {"~", "/.condarc"},
      {"CONDA_PREFIX", "/.condarc"}, {"CONDA_PREFIX", "/condarc"}, {"CONDA_PREFIX", "/condarc.d/"},
      {"CONDARC", ""}}};
  // conda-standalone's --no-rc sets CONDA_RESTRICT_RC_SEARCH_PATH: only $CONDARC.
  bool restricted = vars.count("CONDA_RESTRICT_RC_SEARCH_PATH") != 0;
  std::vector<std::string> out;
  auto add = [&](const Entry& e) {
    std::string anchor = e.anchor;
    std::string base = anchor.empty() ? std::string{}
                       : anchor == "~" ? std::string(home)
                                       : var_or_empty(vars, anchor);
    if (!anchor.empty() && base.empty()) return; // unset: conda would stat a literal "$X/..."
    std::string path = absolute_path(base + e.rest, cwd);
    if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(std::move(path));
  };
  if (!restricted && system == SystemConfig::include)
    for (const auto& e : system_entries) add(e);
  for (const auto& e : user_entries)
    if (!restricted || std::string_view(e.anchor) == "CONDARC") add(e);
  return out;
}

std::vector<std::string> parse_condarc_envs_dirs(const ConfigFile& file,
                                                 std::vector<Error>& warnings) {
  auto loaded = util::load_yaml(file.content);
  if (!loaded) {
    warn(warnings, file.path, loaded.error().message + "; file ignored");
    return {};
  }
  // yaml-cpp reports ill-typed values by exception; this is the one place that reads them.
  try {
    const YAML::Node& doc = *loaded;
    if (!doc || doc.IsNull()) return {};
    if (!doc.IsMap()) {
      warn(warnings, file.path, "not a mapping of settings; ignored");
      return {};
    }
    // conda/base/context.py: `_envs_dirs` has aliases envs_dirs and envs_path;
    // with both in one file the primary name wins (conda reports it as an error).
    const YAML::Node primary = doc["envs_dirs"];
    const YAML::Node alias = doc["envs_path"];
    if (primary && alias)
      warn(warnings, file.path, "both 'envs_dirs' and 'envs_path' are set; using 'envs_dirs'");
    if (primary) return sequence_items(primary, "envs_dirs", file.path, warnings);
    if (alias) return sequence_items(alias, "envs_path", file.path, warnings);
    return {};
  } catch (const YAML::Exception& e) {
    warn(warnings, file.path, "ill-typed value at " + describe_mark(e.mark) + ": " + e.msg + "; file ignored");
  } catch (const std::exception& e) {
    warn(warnings, file.path, std::string("cannot read settings: ") + e.what() + "; file ignored");
  }
  return {};
}

std::vector<std::string> parse_environments_txt(std::string_view content) {
  // conda/gateways/disk/read.py yield_lines: stripped, skipping blanks and '#'.
  std::vector<std::string> out;
  for (const auto& line : util::split(content, "\n")) {
    auto t = util::trim(line);
    if (t.empty() || t.front() == '#') continue;
    out.emplace_back(t);
  }
  return out;
}

std::vector<RootPrefix> root_prefixes(const VarMap& vars, std::string_view cwd) {
  std::vector<RootPrefix> out;
  auto add = [&](const std::string& value, RootOrigin origin) {
    if (value.empty()) return;
    std::string path = absolute_path(value, cwd);
    if (!is_root(path, out)) out.push_back(RootPrefix{std::move(path), origin});
  };
  add(var_or_empty(vars, "CONDA_ROOT"), RootOrigin::conda_root);
  // CONDA_EXE is <root>/bin/conda (or <root>/condabin/conda): set by conda's
  // shell hook (context.conda_exe_vars_dict). Anything else names no root.
  if (auto exe = var_or_empty(vars, "CONDA_EXE"); !exe.empty()) {
    std::string dir = parent_path(absolute_path(exe, cwd));
    std::string leaf = util::base_name(dir);
    if (leaf == "bin" || leaf == "condabin") add(parent_path(dir), RootOrigin::conda_exe);
  }
  add(var_or_empty(vars, "MAMBA_ROOT_PREFIX"), RootOrigin::mamba_root_prefix);
  return out;
}

namespace {

// CONDA_ENVS_DIRS / CONDA_ENVS_PATH (conda's env-var source for `_envs_dirs`
// and its alias), split on os.pathsep; empty fields are skipped.
void env_var_dirs(const VarMap& vars, std::vector<EnvsDir>& raw, std::vector<Error>& warnings) {
  std::string dirs = var_or_empty(vars, "CONDA_ENVS_DIRS");
  std::string path = var_or_empty(vars, "CONDA_ENVS_PATH");
  std::string origin = "CONDA_ENVS_DIRS";
  if (!dirs.empty() && !path.empty())
    warn(warnings, "", "both CONDA_ENVS_DIRS and CONDA_ENVS_PATH are set; using CONDA_ENVS_DIRS");
  if (dirs.empty()) {
    dirs = path;
    origin = "CONDA_ENVS_PATH";
  }
  for (auto& entry : util::split(dirs, ":"))
    if (!entry.empty()) raw.push_back(EnvsDir{std::move(entry), origin});
}

// mockable_context_envs_dirs: the root's envs first when the root is writable,
// after ~/.conda/envs otherwise. libmamba's fallback is root_prefix/envs, so
// MAMBA_ROOT_PREFIX/envs always precedes ~/.conda/envs.
void fixed_dirs(const DiscoveryInputs& in, std::vector<EnvsDir>& raw) {
  auto roots = root_prefixes(in.vars, in.cwd);
  auto late = [&](const RootPrefix& r) {
    return r.origin != RootOrigin::mamba_root_prefix && in.read_only_roots.count(r.path) != 0;
  };
  for (const auto& r : roots)
    if (!late(r)) raw.push_back(EnvsDir{util::join_path(r.path, "envs"), "root"});
  if (!in.home.empty()) raw.push_back(EnvsDir{util::join_path(in.home, ".conda/envs"), "home"});
  for (const auto& r : roots)
    if (late(r)) raw.push_back(EnvsDir{util::join_path(r.path, "envs"), "root"});
}

} // namespace

EnvsDirs envs_dirs(const DiscoveryInputs& inputs) {
  EnvsDirs out;
  std::vector<EnvsDir> raw;
  // Sources in precedence order (SequenceParameter._merge walks them
  // reversed: env vars, then the last condarc file, ..., then the first).
  // Files are parsed in search order so that warnings come in that order.
  env_var_dirs(inputs.vars, raw, out.warnings);
  std::vector<std::vector<std::string>> per_file;
  for (const auto& file : inputs.condarc_files)
    per_file.push_back(parse_condarc_envs_dirs(file, out.warnings));
  for (std::size_t i = per_file.size(); i-- > 0;)
    for (auto& entry : per_file[i])
      raw.push_back(EnvsDir{std::move(entry), inputs.condarc_files[i].path});
  fixed_dirs(inputs, raw);
  for (auto& d : raw) {
    std::string path = expand_path(d.path, inputs.vars, inputs.home, inputs.cwd);
    bool seen = std::any_of(out.dirs.begin(), out.dirs.end(),
                            [&](const EnvsDir& e) { return e.path == path; });
    if (!seen) out.dirs.push_back(EnvsDir{std::move(path), std::move(d.origin)});
  }
  return out;
}

// --- classification and selection -------------------------------------------

bool pyvenv_written_by_uv(std::string_view pyvenv_cfg) {
  // pyvenv.cfg is `key = value` lines (PEP 405; site.py lower-cases keys).
  for (const auto& line : util::split(pyvenv_cfg, "\n")) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    if (util::to_lower(util::trim(std::string_view(line).substr(0, eq))) == "uv") return true;
  }
  return false;
}

std::optional<EnvKind> classify(const PrefixMarkers& markers, std::string_view prefix,
                                const std::vector<RootPrefix>& roots) {
  std::string p(prefix);
  if (markers.conda_history) {
    if (util::contains(p + "/", "/.pixi/envs/")) return EnvKind::pixi;
    for (const auto& r : roots) {
      if (r.origin != RootOrigin::mamba_root_prefix) continue;
      if (p == r.path || parent_path(p) == util::join_path(r.path, "envs")) return EnvKind::micromamba;
    }
    return EnvKind::conda;
  }
  if (markers.pyvenv_cfg)
    return pyvenv_written_by_uv(*markers.pyvenv_cfg) ? EnvKind::uv : EnvKind::venv;
  return std::nullopt;
}

namespace {

Error bad_input(std::string message, std::string path = {}) {
  return make_error(ErrorCode::bad_input, std::move(message), std::move(path));
}

// The record for an absolute prefix, or why it is not an env.
Result<EnvRecord> record_for(const std::string& prefix, std::string source,
                             const std::vector<RootPrefix>& roots, const PrefixInspector& inspector) {
  // Linux's PATH_MAX (4096, with the terminating NUL): a longer path exists
  // only through relative steps, and every system call refuses it whole.
  constexpr std::size_t path_max = 4096;
  if (prefix.size() >= path_max)
    return bad_input("the path is " + std::to_string(prefix.size()) + " bytes long; Linux takes at most " +
                     std::to_string(path_max - 1) + " (PATH_MAX): move the env to a shorter path (from " + source + ")",
                     prefix.substr(0, 64) + "...");
  if (!inspector.is_directory(prefix))
    return bad_input("no such directory (from " + source + ")", prefix);
  auto kind = classify(inspector.markers(prefix), prefix, roots);
  if (!kind)
    return bad_input("not an environment: no conda-meta/history or pyvenv.cfg (from " + source +
                         ")", prefix);
  std::string name = is_root(prefix, roots) ? "base" : util::base_name(prefix);
  return EnvRecord{std::move(name), prefix, *kind, std::move(source)};
}

// The nearest <dir>/.pixi/envs from cwd upwards (pixi finds its workspace
// manifest in the current directory or a parent), or "".
std::string nearest_pixi_envs(const std::string& cwd, const PrefixInspector& inspector) {
  std::string dir = absolute_path(cwd, "/");
  for (;;) {
    std::string candidate = util::join_path(dir, ".pixi/envs");
    if (inspector.is_directory(candidate)) return candidate;
    if (dir == "/") return {};
    dir = parent_path(dir);
  }
}

Result<EnvRecord> select_by_name(const std::string& name, const DiscoveryInputs& inputs,
                                 const EnvsDirs& dirs, const PrefixInspector& inspector) {
  auto roots = root_prefixes(inputs.vars, inputs.cwd);
  // conda's RESERVED_ENV_NAMES: base and root name the root prefix.
  if (name == "base" || name == "root") {
    if (roots.empty())
      return bad_input("no root prefix for '" + name +
                       "': none of CONDA_ROOT, CONDA_EXE, MAMBA_ROOT_PREFIX is set");
    return record_for(roots.front().path, "--name", roots, inspector);
  }
  if (name.empty() || name == "." || name == ".." || util::contains(name, "/") ||
      util::contains(name, std::string_view("\0", 1)))
    return bad_input("invalid environment name '" + name + "'");
  // locate_prefix_by_name: the first envs dir holding a directory of that name.
  std::vector<std::string> searched;
  for (const auto& d : dirs.dirs) {
    searched.push_back(d.path);
    std::string prefix = util::join_path(d.path, name);
    if (inspector.is_directory(prefix)) return record_for(prefix, "--name", roots, inspector);
  }
  // Then the envs of the pixi workspace around cwd, the names `list` shows
  // for them ("default" is .pixi/envs/default).
  if (auto pixi = nearest_pixi_envs(inputs.cwd, inspector); !pixi.empty()) {
    searched.push_back(pixi);
    std::string prefix = util::join_path(pixi, name);
    if (inspector.is_directory(prefix)) return record_for(prefix, "--name", roots, inspector);
  }
  return bad_input("no environment named '" + name + "' in the envs dirs (" +
                   (searched.empty() ? std::string("none") : util::join(searched, ", ")) + ")");
}

} // namespace

Result<EnvRecord> select_env(const Selection& selection, const DiscoveryInputs& inputs,
                             const EnvsDirs& dirs, const PrefixInspector& inspector) {
  if (selection.name && selection.prefix)
    return bad_input("--name and --prefix cannot be used together");
  auto roots = root_prefixes(inputs.vars, inputs.cwd);
  if (selection.prefix)
    return record_for(absolute_path(*selection.prefix, inputs.cwd), "--prefix", roots, inspector);
  if (selection.name) return select_by_name(*selection.name, inputs, dirs, inspector);
  for (const char* var : {"CONDA_PREFIX", "VIRTUAL_ENV"}) {
    std::string value = var_or_empty(inputs.vars, var);
    if (!value.empty()) return record_for(absolute_path(value, inputs.cwd), var, roots, inspector);
  }
  // Inside a pixi workspace with nothing active: its default env, as
  // `pixi run` picks it.
  if (auto pixi = nearest_pixi_envs(inputs.cwd, inspector); !pixi.empty()) {
    std::string prefix = util::join_path(pixi, "default");
    if (inspector.is_directory(prefix)) return record_for(prefix, "pixi", roots, inspector);
  }
  return bad_input("no environment selected: use -n NAME or -p PATH, or activate one");
}

namespace {

struct Collector {
  const std::vector<RootPrefix>& roots;
  const PrefixInspector& inspector;
  std::vector<EnvRecord> out;

  // Adds prefix when it is an env not listed yet.
  void add(const std::string& prefix, const std::string& source) {
    for (const auto& r : out)
      if (r.prefix == prefix) return;
    if (!inspector.is_directory(prefix)) return;
    auto kind = classify(inspector.markers(prefix), prefix, roots);
    if (!kind) return;
    out.push_back(EnvRecord{is_root(prefix, roots) ? "base" : util::base_name(prefix), prefix, *kind,
                            source});
  }
};

} // namespace

std::vector<EnvRecord> list_envs(const DiscoveryInputs& inputs, const EnvsDirs& dirs,
                                 const PrefixInspector& inspector) {
  auto roots = root_prefixes(inputs.vars, inputs.cwd);
  Collector c{roots, inspector, {}};
  for (const auto& r : roots) c.add(r.path, "root");
  for (const auto& d : dirs.dirs)
    for (const auto& entry : inspector.list_directory(d.path))
      c.add(util::join_path(d.path, entry), "envs_dirs:" + d.path);
  if (inputs.environments_txt)
    for (const auto& line : parse_environments_txt(*inputs.environments_txt))
      c.add(absolute_path(line, inputs.cwd), "environments.txt");
  if (auto pixi = nearest_pixi_envs(inputs.cwd, inspector); !pixi.empty())
    for (const auto& entry : inspector.list_directory(pixi)) c.add(util::join_path(pixi, entry), "pixi");
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (auto value = var_or_empty(inputs.vars, var); !value.empty())
      c.add(absolute_path(value, inputs.cwd), var);
  return std::move(c.out);
}

} // namespace condacuda::env
