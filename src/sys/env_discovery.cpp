#include "sys/env_discovery.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sys/mapped_file.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace condacuda::sys {

namespace {

enum class FileType { missing, regular, directory, other };

FileType file_type(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FileType::missing;
  if (S_ISREG(st.st_mode)) return FileType::regular;
  if (S_ISDIR(st.st_mode)) return FileType::directory;
  return FileType::other;
}

std::vector<std::string> sorted_entries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool has_yaml_suffix(const std::string& name) {
  auto ends_with = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".yml") || ends_with(".yaml");
}

// Reads one config file into files, or records why it could not be read.
void read_config(const std::string& path, std::vector<env::ConfigFile>& files,
                 std::vector<Error>& warnings) {
  auto text = read_text_file(path, read_cap::config);
  if (!text.ok()) {
    warnings.push_back(make_error(ErrorCode::io, text.error().message + "; file ignored", path));
    return;
  }
  files.push_back(env::ConfigFile{path, std::move(*text)});
}

// conda's load_file_configs: a file is read; a directory contributes its
// *.yml / *.yaml files in sorted order; anything else is skipped.
std::vector<env::ConfigFile> read_condarc_files(const DiscoveryOptions& o,
                                                std::vector<Error>& warnings) {
  std::vector<env::ConfigFile> files;
  for (const auto& path : env::condarc_search_paths(o.vars, o.home, o.cwd, o.system)) {
    FileType type = file_type(path);
    if (type == FileType::regular) read_config(path, files, warnings);
    if (type != FileType::directory) continue;
    for (const auto& name : sorted_entries(path)) {
      std::string file = path + "/" + name;
      if (has_yaml_suffix(name) && file_type(file) == FileType::regular)
        read_config(file, files, warnings);
    }
  }
  return files;
}

// conda's context.root_writable: the root's conda-meta/history exists and can
// be opened for append. access(W_OK) asks the same question without writing.
std::set<std::string> read_only_roots(const DiscoveryOptions& o) {
  std::set<std::string> out;
  for (const auto& root : env::root_prefixes(o.vars, o.cwd)) {
    std::string history = root.path + "/conda-meta/history";
    if (file_type(history) != FileType::regular || ::access(history.c_str(), W_OK) != 0)
      out.insert(root.path);
  }
  return out;
}

} // namespace

std::string passwd_home() {
  auto text = read_text_file("/etc/passwd", read_cap::passwd);
  if (!text) return {};
  const std::string uid = std::to_string(::getuid());
  for (const auto& line : util::split(*text, "\n")) {
    auto fields = util::split(line, ":"); // name:password:uid:gid:gecos:home:shell
    if (fields.size() >= 7 && fields[2] == uid && !fields[5].empty()) return fields[5];
  }
  return {};
}

DiscoveryOptions process_discovery_options() {
  DiscoveryOptions o;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    o.vars.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  auto home = o.vars.find("HOME");
  o.home = (home != o.vars.end() && !home->second.empty()) ? home->second : passwd_home();
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  if (!ec) {
    o.cwd = cwd.string();
  } else {
    auto pwd = o.vars.find("PWD");
    o.cwd = (pwd != o.vars.end() && !pwd->second.empty()) ? pwd->second : "/";
  }
  return o;
}

bool DiskPrefixInspector::is_directory(const std::string& path) const {
  return file_type(path) == FileType::directory;
}

std::vector<std::string> DiskPrefixInspector::list_directory(const std::string& path) const {
  return sorted_entries(path);
}

env::PrefixMarkers DiskPrefixInspector::markers(const std::string& prefix) const {
  env::PrefixMarkers m;
  m.conda_history = file_type(prefix + "/conda-meta/history") == FileType::regular;
  std::string cfg = prefix + "/pyvenv.cfg";
  if (file_type(cfg) == FileType::regular) {
    auto text = read_text_file(cfg, read_cap::config);
    m.pyvenv_cfg = text.ok() ? std::move(*text) : std::string{}; // unreadable: still a venv
  }
  return m;
}

DiscoveryContext load_discovery_context(const DiscoveryOptions& options) {
  DiscoveryContext ctx;
  auto& in = ctx.inputs;
  in.vars = options.vars;
  in.home = options.home;
  in.cwd = env::absolute_path(options.cwd, "/");
  in.condarc_files = read_condarc_files(options, ctx.warnings);
  in.read_only_roots = read_only_roots(options);
  if (!in.home.empty()) {
    std::string txt = in.home + "/.conda/environments.txt";
    if (file_type(txt) == FileType::regular) {
      auto text = read_text_file(txt, read_cap::environments_txt);
      if (text.ok())
        in.environments_txt = std::move(*text);
      else
        ctx.warnings.push_back(make_error(ErrorCode::io, text.error().message, txt));
    }
  }
  ctx.envs_dirs = env::envs_dirs(in);
  ctx.warnings.insert(ctx.warnings.end(), ctx.envs_dirs.warnings.begin(),
                      ctx.envs_dirs.warnings.end());
  return ctx;
}

DiscoveryContext load_discovery_context() {
  return load_discovery_context(process_discovery_options());
}

Result<env::EnvRecord> select_env(const env::Selection& selection,
                                  const DiscoveryContext& context) {
  DiskPrefixInspector inspector;
  return env::select_env(selection, context.inputs, context.envs_dirs, inspector);
}

std::vector<env::EnvRecord> list_envs(const DiscoveryContext& context) {
  DiskPrefixInspector inspector;
  return env::list_envs(context.inputs, context.envs_dirs, inspector);
}

} // namespace condacuda::sys
