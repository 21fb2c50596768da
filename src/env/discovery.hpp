#pragma once
// Environment discovery with conda's semantics: which envs dirs conda searches
// (env vars, .condarc files, root prefixes, ~/.conda/envs), how `-n NAME`,
// `-p PATH` and `$CONDA_PREFIX` select one env, and what kind of env a prefix is.
//
// Pure: no filesystem, no getenv. Variables, file contents and the answers to
// "is this a directory / what markers does this prefix have" arrive as values
// or through PrefixInspector, which the system layer (sys/env_discovery.hpp)
// implements and tests fake. Nothing here throws or exits; yaml-cpp exceptions
// are caught in parse_condarc_envs_dirs.
//
// Sources of the rules (read, not copied):
//   conda/base/constants.py   SEARCH_PATH (condarc locations, lowest precedence first)
//   conda/common/configuration.py  SequenceParameter._merge (later sources first)
//   conda/base/context.py     _envs_dirs (aliases envs_dirs/envs_path, os.pathsep,
//                             expandvars), mockable_context_envs_dirs, root_writable,
//                             locate_prefix_by_name, env_name
//   conda/core/envs_manager.py  ~/.conda/environments.txt, list_all_known_prefixes
//   conda/gateways/disk/test.py is_conda_environment (conda-meta/history)
//   libmamba config.cpp       fallback envs_dirs = {root_prefix/envs}
//   PEP 405                   pyvenv.cfg marks a venv; uv writes a `uv = X.Y` key
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::env {

using VarMap = std::map<std::string, std::string>;

enum class EnvKind { conda, micromamba, pixi, venv, uv };

// "conda", "micromamba", "pixi", "venv", "uv".
const char* to_string(EnvKind kind);

// One selected or listed environment.
struct EnvRecord {
  std::string name;   // basename of the prefix; "base" for a root prefix
  std::string prefix; // absolute, lexically normalised, symlinks not resolved
  EnvKind kind = EnvKind::conda;
  // How it was found. select_env: the selector that chose it ("--prefix",
  // "--name", "CONDA_PREFIX", "VIRTUAL_ENV"). list_envs: where it was found
  // ("root", "envs_dirs:<dir>", "environments.txt", "pixi", "VIRTUAL_ENV",
  // "CONDA_PREFIX").
  std::string source;

  bool operator==(const EnvRecord&) const = default;
};

// A configuration file as read by the system layer: its path and content.
struct ConfigFile {
  std::string path;
  std::string content;
};

// Where a root prefix came from.
enum class RootOrigin { conda_root, conda_exe, mamba_root_prefix };

struct RootPrefix {
  std::string path; // absolute, normalised
  RootOrigin origin = RootOrigin::conda_root;
};

// Whether the system-wide condarc locations (/etc/conda, /var/lib/conda) are
// part of the search path. Tests skip them to stay hermetic.
enum class SystemConfig { include, skip };

// Everything discovery needs from the outside world except probing prefixes.
struct DiscoveryInputs {
  VarMap vars;      // the process environment (or a test's)
  std::string home; // the user's home directory ("~")
  std::string cwd;  // absolute current directory
  // Condarc files that exist, in condarc_search_paths order (lowest precedence first).
  std::vector<ConfigFile> condarc_files;
  // Content of ~/.conda/environments.txt, when it exists.
  std::optional<std::string> environments_txt;
  // Conda roots whose conda-meta/history cannot be opened for append
  // (conda's context.root_writable is false): their envs dir goes after
  // ~/.conda/envs. Roots absent from this set count as writable.
  std::set<std::string> read_only_roots;
};

// One envs dir with where it came from ("CONDA_ENVS_DIRS", a condarc path,
// "root", "home").
struct EnvsDir {
  std::string path;
  std::string origin;
  bool operator==(const EnvsDir&) const = default;
};

struct EnvsDirs {
  std::vector<EnvsDir> dirs;   // search order, duplicates removed
  std::vector<Error> warnings; // broken or ill-typed config (code corrupt, path = file)
};

// The filesystem questions discovery asks, answered by the system layer.
struct PrefixMarkers {
  bool conda_history = false;            // <prefix>/conda-meta/history is a file
  std::optional<std::string> pyvenv_cfg; // content of <prefix>/pyvenv.cfg, if a file
};

class PrefixInspector {
public:
  virtual ~PrefixInspector() = default;
  // True when path is a directory (following symlinks).
  virtual bool is_directory(const std::string& path) const = 0;
  // Names of the entries of a directory, sorted; empty when unreadable.
  virtual std::vector<std::string> list_directory(const std::string& path) const = 0;
  // The env markers of a prefix; all empty when absent.
  virtual PrefixMarkers markers(const std::string& prefix) const = 0;
};

// What the user asked for: -n/--name or -p/--prefix (at most one).
struct Selection {
  std::optional<std::string> name;
  std::optional<std::string> prefix;
};

// --- path helpers -----------------------------------------------------------

// Python's os.path.expandvars: $NAME and ${NAME} (NAME = [A-Za-z0-9_]+) are
// replaced by their value; unknown variables stay as written.
std::string expand_vars(std::string_view s, const VarMap& vars);

// Python's os.path.abspath: joins a relative path to cwd, then removes ".",
// "..", repeated and trailing slashes lexically (symlinks are not resolved).
std::string absolute_path(std::string_view path, std::string_view cwd);

// conda.common.path.expand: expandvars, then a leading "~" or "~/" becomes
// home ("~user" is left alone), then absolute_path.
std::string expand_path(std::string_view path, const VarMap& vars, std::string_view home,
                        std::string_view cwd);

// --- configuration -----------------------------------------------------------

// conda's SEARCH_PATH, expanded (relative values against cwd), lowest
// precedence first. Each entry is read as conda does: a regular file is one
// config file, a directory contributes its *.yml/*.yaml files in sorted order.
// Entries whose variable is unset or empty are dropped; with
// CONDA_RESTRICT_RC_SEARCH_PATH set only $CONDARC remains (conda --no-rc).
// Duplicates keep their first place.
std::vector<std::string> condarc_search_paths(const VarMap& vars, std::string_view home,
                                              std::string_view cwd, SystemConfig system);

// The raw `envs_dirs` (alias `envs_path`) list of one condarc file, unexpanded.
// Broken YAML, a non-mapping document, a non-list value or a non-string item
// add a warning (code corrupt, path = file.path, with line and column) and
// contribute nothing; an empty file or key contributes nothing silently.
std::vector<std::string> parse_condarc_envs_dirs(const ConfigFile& file,
                                                 std::vector<Error>& warnings);

// ~/.conda/environments.txt: one prefix per line; surrounding blanks trimmed,
// blank lines and lines starting with '#' skipped.
std::vector<std::string> parse_environments_txt(std::string_view content);

// The root prefixes, in order CONDA_ROOT, CONDA_EXE's root (the parent of the
// bin/ or condabin/ folder holding it), MAMBA_ROOT_PREFIX; duplicates removed.
std::vector<RootPrefix> root_prefixes(const VarMap& vars, std::string_view cwd);

// conda's envs_dirs: CONDA_ENVS_DIRS (else CONDA_ENVS_PATH), then the condarc
// lists (highest precedence file first), then the writable conda roots' envs
// and MAMBA_ROOT_PREFIX/envs, then ~/.conda/envs, then read-only roots' envs.
// Every entry is expanded with expand_path; duplicates keep the first place.
EnvsDirs envs_dirs(const DiscoveryInputs& inputs);

// --- classification and selection -------------------------------------------

// True when a pyvenv.cfg has a `uv` key (uv writes `uv = <version>`).
bool pyvenv_written_by_uv(std::string_view pyvenv_cfg);

// The kind of env a prefix is, or nullopt when it is none: conda-meta/history
// makes it conda (pixi when the path contains "/.pixi/envs/", micromamba when
// it is MAMBA_ROOT_PREFIX or inside MAMBA_ROOT_PREFIX/envs); else pyvenv.cfg
// makes it a venv (uv when written by uv).
std::optional<EnvKind> classify(const PrefixMarkers& markers, std::string_view prefix,
                                const std::vector<RootPrefix>& roots);

// Selects the env: -p PATH, else -n NAME (base/root = the first root prefix;
// otherwise the first envs dir holding a directory NAME, as conda's
// locate_prefix_by_name, then the nearest pixi workspace's .pixi/envs/NAME),
// else $CONDA_PREFIX, else $VIRTUAL_ENV, else the nearest pixi workspace's
// default env (source "pixi"). Errors
// (bad_input, one line): both flags given, a bad or unknown name, a missing
// directory, a directory that is not an env, nothing selected.
Result<EnvRecord> select_env(const Selection& selection, const DiscoveryInputs& inputs,
                             const EnvsDirs& dirs, const PrefixInspector& inspector);

// Every env found, deduplicated by prefix, in a stable order: the roots (base
// first), each envs dir's entries (sorted) in envs dirs order, the prefixes of
// environments.txt, the nearest .pixi/envs/* from cwd upwards, $VIRTUAL_ENV,
// and $CONDA_PREFIX when it was not found otherwise.
std::vector<EnvRecord> list_envs(const DiscoveryInputs& inputs, const EnvsDirs& dirs,
                                 const PrefixInspector& inspector);

} // namespace condacuda::env
