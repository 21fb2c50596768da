#include "sys/jupyter_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace condacuda::sys {

namespace {
constexpr std::size_t max_names = 10000;

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  while (d && names.size() < max_names) {
    const dirent* e = ::readdir(d.get());
    if (!e) break;
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  std::sort(names.begin(), names.end()); // os.listdir's order varies; the first of a name wins either way
  return names;
}

bool is_link(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
} // namespace

std::vector<FoundKernel> find_kernelspecs(const std::vector<std::string>& dirs) {
  std::vector<FoundKernel> out;
  for (const auto& dir : dirs) {
    if (!is_dir(dir)) continue;
    for (const auto& entry : names_in(dir)) {
      const std::string folder = dir + "/" + entry, file = folder + "/kernel.json";
      struct stat st {};
      if (!is_dir(folder) || ::stat(file.c_str(), &st) != 0) continue; // _is_kernel_dir
      const std::string name = util::to_lower(entry);
      if (!jupyter::valid_kernel_name(name)) continue; // jupyter_client warns and skips it
      if (std::any_of(out.begin(), out.end(), [&](const FoundKernel& k) { return k.spec.name == name; })) continue;
      FoundKernel k;
      k.spec.name = name;
      k.spec.dir = folder;
      k.spec.symlinked = is_link(folder) || is_link(file);
      auto text = read_text_file(file, read_cap::config);
      if (!text) {
        k.problem = text.error().message;
      } else if (auto spec = jupyter::parse_kernelspec(*text, name, folder)) {
        spec->symlinked = k.spec.symlinked;
        k.spec = std::move(*spec);
      } else {
        k.problem = spec.error().message;
      }
      out.push_back(std::move(k));
    }
  }
  return out;
}

std::vector<jupyter::Server> running_servers(const std::string& runtime_dir) {
  std::vector<jupyter::Server> out;
  for (const auto& name : names_in(runtime_dir)) {
    if (!(name.starts_with("jpserver-") || name.starts_with("nbserver-")) || !name.ends_with(".json")) continue;
    auto text = read_text_file(runtime_dir + "/" + name, read_cap::config);
    if (!text) continue;
    auto server = jupyter::parse_server_file(*text, runtime_dir + "/" + name);
    if (!server) continue;
    auto environ_text = read_text_file("/proc/" + std::to_string(server->pid) + "/environ", read_cap::config);
    if (!environ_text) continue; // gone, or another user's
    server->environment = jupyter::parse_environ(*environ_text);
    out.push_back(std::move(*server));
  }
  return out;
}

std::map<std::string, std::string> this_environment() {
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos && eq > 0) out.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return out;
}

jupyter::JupyterVariables jupyter_variables(const std::map<std::string, std::string>& env, const std::string& home) {
  auto get = [&](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  jupyter::JupyterVariables v;
  v.jupyter_path = get("JUPYTER_PATH");
  v.jupyter_data_dir = get("JUPYTER_DATA_DIR");
  v.xdg_data_home = get("XDG_DATA_HOME");
  v.prefer_env_path = get("JUPYTER_PREFER_ENV_PATH");
  v.runtime_dir = get("JUPYTER_RUNTIME_DIR");
  v.home = get("HOME").value_or(home);
  auto base = get("PYTHONUSERBASE");
  v.user_base = base && !base->empty() ? *base : v.home + "/.local";
  return v;
}

std::string DiskKernelFiles::real_path(const std::string& path) {
  auto it = real_.find(path);
  if (it != real_.end()) return it->second;
  std::error_code ec;
  auto real = std::filesystem::canonical(path, ec);
  return real_[path] = ec ? "" : real.string();
}

std::optional<std::string> DiskKernelFiles::read_script(const std::string& path) {
  if (auto it = scripts_.find(path); it != scripts_.end()) return it->second;
  auto& slot = scripts_[path];
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return slot;
  // A script starts with "#!": an interpreter's binary is not read further.
  std::string text(2, '\0');
  if (::read(fd.get(), text.data(), 2) != 2 || text != "#!") return slot = text;
  text.resize(64 * 1024);
  const ssize_t got = ::pread(fd.get(), text.data() + 2, text.size() - 2, 2);
  if (got < 0) return slot;
  text.resize(2 + static_cast<std::size_t>(got));
  return slot = std::move(text);
}

} // namespace condacuda::sys
