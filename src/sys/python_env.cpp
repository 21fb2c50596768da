#include "sys/python_env.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "sys/env_discovery.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "util/strings.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

namespace {
// "python3.11" -> (3, 11).
bool version_from_name(const std::string& name, python::Interpreter& in) {
  if (!name.starts_with("python")) return false;
  auto parts = util::split(name.substr(6), ".");
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) return false;
  for (const auto& p : parts)
    if (p.find_first_not_of("0123456789") != std::string::npos || p.size() > 3) return false;
  in.major = std::stoi(parts[0]);
  in.minor = std::stoi(parts[1]);
  return true;
}

bool version_from_env(const std::string& prefix, python::Interpreter& in) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(prefix + "/lib", ec))
    if (version_from_name(entry.path().filename().string(), in) && fs::exists(entry.path() / "site-packages", ec)) return true;
  return false;
}

// getpath's landmark: the nearest folder at or above `dir` with lib/pythonX.Y/os.py.
std::string landmark_prefix(fs::path dir, const python::Interpreter& in) {
  std::error_code ec;
  for (int depth = 0; depth < 8 && !dir.empty(); ++depth) {
    if (fs::is_regular_file(dir / "lib" / ("python" + in.version_tag()) / "os.py", ec)) return dir.string();
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return {};
}

struct VenvConfig {
  std::string home;
  bool system_site = true; // site.venv's default when the key is missing
};
std::optional<VenvConfig> read_pyvenv_cfg(const std::string& exe_dir) {
  for (const std::string& file : {exe_dir + "/pyvenv.cfg", fs::path(exe_dir).parent_path().string() + "/pyvenv.cfg"}) {
    auto text = read_text_file(file, read_cap::config);
    if (!text) continue;
    VenvConfig cfg;
    for (const auto& line : util::split(*text, "\n")) {
      auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = util::to_lower(util::trim(line.substr(0, eq)));
      const std::string value(util::trim(line.substr(eq + 1)));
      if (key == "include-system-site-packages") cfg.system_site = util::to_lower(value) == "true";
      if (key == "home") cfg.home = value;
    }
    return cfg;
  }
  return std::nullopt;
}

// Whether the text of `path` holds each of `needles`, read in pieces into a
// buffer on the stack (site.py is 20 KB; nothing of it is kept). Empty when
// it cannot be read.
std::vector<bool> file_contains(const std::string& path, const std::vector<std::string_view>& needles) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  std::vector<bool> found(needles.size(), false);
  std::size_t keep = 0;
  for (const auto& n : needles) keep = std::max(keep, n.size());
  char buffer[8192];
  std::size_t held = 0;
  for (std::uint64_t total = 0; total < read_cap::config;) {
    const ssize_t got = ::read(fd.get(), buffer + held, sizeof buffer - held);
    if (got <= 0) break;
    total += static_cast<std::uint64_t>(got);
    held += static_cast<std::size_t>(got);
    for (std::size_t i = 0; i < needles.size(); ++i)
      found[i] = found[i] || ::memmem(buffer, held, needles[i].data(), needles[i].size()) != nullptr;
    const std::size_t tail = std::min(held, keep); // a needle across two pieces
    std::memmove(buffer, buffer + held - tail, tail);
    held = tail;
  }
  return found;
}

// What the interpreter's own site.py does differently: Debian's
// dist-packages, and whether it skips hidden .pth files (gh-113659).
void read_site_py(python::Interpreter& in) {
  const auto found = file_contains(in.base_prefix + "/" + in.platlibdir + "/python" + in.version_tag() + "/site.py",
                                   {"\"dist-packages\"", "name.startswith(\".\")"});
  if (found.empty()) {
    in.skips_hidden_pth = in.major > 3 || (in.major == 3 && in.minor >= 13);
    return;
  }
  if (found[0]) in.site = python::SiteFlavour::debian;
  in.skips_hidden_pth = found[1];
}
} // namespace

std::optional<python::Interpreter> env_interpreter(const std::string& prefix, const std::string& real_executable) {
  python::Interpreter in;
  std::error_code ec;
  for (const char* name : {"bin/python3", "bin/python"})
    if (fs::exists(prefix + "/" + name, ec)) {
      in.executable = prefix + "/" + name;
      break;
    }
  if (in.executable.empty()) return std::nullopt;
  const fs::path real = real_executable.empty() ? fs::canonical(in.executable, ec) : fs::path(real_executable);
  if (ec) return std::nullopt;
  if (!version_from_name(real.filename().string(), in) && !version_from_env(prefix, in)) return std::nullopt;
  const std::string exe_dir = fs::path(in.executable).parent_path().string();
  if (auto cfg = read_pyvenv_cfg(exe_dir)) {
    in.venv = true;
    in.include_system_site_packages = cfg->system_site;
    in.prefix = fs::path(exe_dir).parent_path().string();
    in.base_prefix = landmark_prefix(cfg->home.empty() ? real.parent_path() : fs::path(cfg->home), in);
  } else {
    in.base_prefix = landmark_prefix(real.parent_path(), in);
    in.prefix = in.base_prefix;
  }
  if (in.base_prefix.empty()) in.base_prefix = in.venv ? real.parent_path().parent_path().string() : prefix;
  if (in.prefix.empty()) in.prefix = in.base_prefix;
  read_site_py(in);
  return in;
}

python::PythonLaunch this_shell_python(const python::Interpreter& interpreter) {
  python::PythonLaunch l;
  auto var = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  l.pythonpath = var("PYTHONPATH");
  l.pythonuserbase = var("PYTHONUSERBASE");
  l.home = var("HOME");
  if (!l.home) l.passwd_home = passwd_home();
  auto nonempty = [&](const char* name) {
    auto v = var(name);
    return v && !v->empty();
  };
  l.no_user_site = nonempty("PYTHONNOUSERSITE");
  l.safe_path = nonempty("PYTHONSAFEPATH") && (interpreter.major > 3 || interpreter.minor >= 11);
  std::error_code ec;
  auto cwd = fs::current_path(ec);
  l.cwd = ec ? "/" : cwd.string();
  return l;
}

std::map<std::string, std::string> recipe_variables() {
  std::map<std::string, std::string> out;
  for (const char* name : {"CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "CUPY_CUDA_LIB_PATH", "JAX_SKIP_CUDA_CONSTRAINTS_CHECK"})
    if (const char* v = std::getenv(name)) out[name] = v;
  return out;
}

} // namespace condacuda::sys
