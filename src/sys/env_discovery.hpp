#pragma once
// The system side of env discovery: reads the process environment, the
// .condarc files on conda's search path, ~/.conda/environments.txt and the
// prefixes themselves, then lets the pure core (env/discovery.hpp) decide.
// Tests pass their own variables, home and cwd, so nothing here needs the
// real HOME. Never throws; problems become warnings or Result errors.
#include <string>
#include <vector>

#include "env/discovery.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// The outside-world inputs of discovery. Nothing else of the process is read.
struct DiscoveryOptions {
  env::VarMap vars;  // environment variables
  std::string home;  // "~"
  std::string cwd;   // absolute current directory
  env::SystemConfig system = env::SystemConfig::include; // /etc/conda, /var/lib/conda
};

// The home folder /etc/passwd gives this user, for a process without HOME.
// Read as a file, not through getpwuid: NSS loads libnss_*.so modules, which
// the static condacuda cannot (docs/portable.md); a directory service user
// (sssd, LDAP) without HOME gets none ("").
std::string passwd_home();

// The running process's options: environ, $HOME (else the passwd entry's home
// directory), getcwd() (else $PWD, else "/"), system condarc files included.
DiscoveryOptions process_discovery_options();

// Answers env::PrefixInspector from the real filesystem (stat follows symlinks).
class DiskPrefixInspector final : public env::PrefixInspector {
public:
  // True when path is a directory.
  bool is_directory(const std::string& path) const override;
  // Entry names of the directory, sorted; empty when it cannot be read.
  std::vector<std::string> list_directory(const std::string& path) const override;
  // Whether conda-meta/history is a file; pyvenv.cfg's content when it is a file.
  env::PrefixMarkers markers(const std::string& prefix) const override;
};

// Everything discovery read, plus the envs dirs computed from it.
struct DiscoveryContext {
  env::DiscoveryInputs inputs;
  env::EnvsDirs envs_dirs;
  // Every warning for the user: unreadable config files (code io) and the
  // core's broken/ill-typed config warnings (envs_dirs.warnings, code corrupt).
  std::vector<Error> warnings;
};

// Reads the condarc search path (files, and *.yml/*.yaml of directories, in
// order), environments.txt and each conda root's writability, then computes
// the envs dirs. Missing files are not warnings; unreadable ones are.
DiscoveryContext load_discovery_context(const DiscoveryOptions& options);

// load_discovery_context(process_discovery_options()).
DiscoveryContext load_discovery_context();

// env::select_env on the real filesystem. Errors are bad_input, one line.
Result<env::EnvRecord> select_env(const env::Selection& selection,
                                  const DiscoveryContext& context);

// env::list_envs on the real filesystem.
std::vector<env::EnvRecord> list_envs(const DiscoveryContext& context);

} // namespace condacuda::sys
