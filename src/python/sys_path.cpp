#include "python/sys_path.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::python {

std::string Interpreter::version_tag() const { return std::to_string(major) + "." + std::to_string(minor); }

const char* to_string(PathOrigin origin) {
  switch (origin) {
  case PathOrigin::script_dir: return "the working directory";
  case PathOrigin::pythonpath: return "PYTHONPATH";
  case PathOrigin::stdlib: return "the standard library";
  case PathOrigin::env_site: return "the env's site-packages";
  case PathOrigin::user_site: return "the user site";
  case PathOrigin::system_site: return "the base interpreter's site-packages";
  case PathOrigin::pth: return "a .pth file";
  }
  return "";
}

// posixpath.normpath: "." and empty components dropped, ".." taken back
// lexically, exactly two leading slashes kept, no trailing slash.
static std::string normpath(std::string_view path) {
  if (path.empty()) return ".";
  std::size_t slashes = 0;
  while (slashes < path.size() && path[slashes] == '/') ++slashes;
  const std::string lead = slashes == 0 ? "" : slashes == 2 ? "//" : "/";
  std::vector<std::string_view> parts;
  std::size_t i = slashes;
  while (i <= path.size()) {
    std::size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(i, end - i);
    if (part.empty() || part == ".") {
    } else if (part != "..") {
      parts.push_back(part);
    } else if (!parts.empty() && parts.back() != "..") {
      parts.pop_back();
    } else if (lead.empty()) {
      parts.push_back(part); // a relative path keeps its leading ".."
    }
    i = end + 1;
  }
  std::string out = lead;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (k) out += '/';
    out += parts[k];
  }
  return out.empty() ? "." : out;
}

std::string abspath(std::string_view path, std::string_view cwd) {
  if (!path.empty() && path.front() == '/') return normpath(path);
  std::string joined(cwd);
  if (!path.empty()) {
    if (joined.empty() || joined.back() != '/') joined += '/';
    joined += path;
  }
  return normpath(joined);
}

std::vector<std::string> site_packages_of(const Interpreter& in, const std::string& prefix, bool is_venv) {
  const std::string py = "python" + in.version_tag();
  std::vector<std::string> libdirs{in.platlibdir};
  if (in.platlibdir != "lib") libdirs.push_back("lib");
  std::vector<std::string> out;
  if (in.site == SiteFlavour::cpython) {
    for (const auto& libdir : libdirs) out.push_back(prefix + "/" + libdir + "/" + py + "/site-packages");
    return out;
  }
  // Debian's python3.X site.py: site-packages only in a venv, then the
  // dist-packages folders, /usr/local's first.
  if (is_venv) out.push_back(prefix + "/lib/" + py + "/site-packages");
  out.push_back(prefix + "/local/lib/" + py + "/dist-packages");
  out.push_back(prefix + "/lib/python3/dist-packages");
  for (const auto& libdir : libdirs) out.push_back(prefix + "/" + libdir + "/" + py + "/dist-packages");
  return out;
}

namespace {
// The lines of a file read in text mode: universal newlines ("\n", "\r\n", "\r").
std::vector<std::string> text_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    lines.emplace_back(text.substr(start, i - start));
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < text.size()) lines.emplace_back(text.substr(start));
  return lines;
}

class Builder {
public:
  Builder(const Interpreter& in, const PythonLaunch& launch, PathProbe& probe) : in_(in), launch_(launch), probe_(probe) {}

  std::vector<SysPathEntry> build() {
    before_site();
    // site.main(): venv(), then the user site, then the prefixes' site-packages.
    std::vector<std::string> prefixes{in_.base_prefix};
    bool user_site = !launch_.setid && !(launch_.no_user_site && !launch_.ignore_environment);
    if (in_.venv) {
      // "Doing this here ensures venv takes precedence over user-site."
      for (const auto& dir : site_packages_of(in_, in_.prefix, true)) add_site_dir_if_dir(dir, PathOrigin::env_site);
      if (in_.include_system_site_packages) {
        prefixes.insert(prefixes.begin(), in_.prefix);
      } else {
        prefixes = {in_.prefix};
        user_site = false;
      }
    }
    if (user_site) {
      if (auto dir = user_site_dir()) add_site_dir_if_dir(*dir, PathOrigin::user_site);
    }
    std::set<std::string> seen;
    for (const auto& prefix : prefixes) {
      if (prefix.empty() || !seen.insert(prefix).second) continue;
      const auto origin = prefix == in_.prefix ? PathOrigin::env_site : PathOrigin::system_site;
      for (const auto& dir : site_packages_of(in_, prefix, in_.venv)) add_site_dir_if_dir(dir, origin);
    }
    // `python -c`: the working directory first, as "" (not made absolute).
    if (!launch_.safe_path) entries_.insert(entries_.begin(), SysPathEntry{"", PathOrigin::script_dir, ""});
    return std::move(entries_);
  }

private:
  void add(const std::string& path, PathOrigin origin, const std::string& pth = "") {
    if (known_.insert(path).second) entries_.push_back({path, origin, pth});
  }

  // getpath: PYTHONPATH, then the stdlib's zip, the stdlib and lib-dynload;
  // site.removeduppaths makes each absolute and drops repeats.
  void before_site() {
    if (launch_.pythonpath && !launch_.ignore_environment && !launch_.pythonpath->empty())
      for (const auto& piece : util::split(*launch_.pythonpath, ":")) add(abspath(piece, launch_.cwd), PathOrigin::pythonpath);
    const std::string base = in_.base_prefix + "/" + in_.platlibdir + "/";
    add(abspath(base + "python" + std::to_string(in_.major) + std::to_string(in_.minor) + ".zip", launch_.cwd), PathOrigin::stdlib);
    add(abspath(base + "python" + in_.version_tag(), launch_.cwd), PathOrigin::stdlib);
    add(abspath(base + "python" + in_.version_tag() + "/lib-dynload", launch_.cwd), PathOrigin::stdlib);
  }

  std::optional<std::string> user_site_dir() const {
    std::string base;
    if (launch_.pythonuserbase && !launch_.ignore_environment && !launch_.pythonuserbase->empty()) {
      base = *launch_.pythonuserbase;
    } else {
      // expanduser("~/.local"): HOME when set (even empty: then "/.local"), else the password database.
      std::string home = launch_.home ? *launch_.home : launch_.passwd_home;
      while (!home.empty() && home.back() == '/') home.pop_back();
      base = home + "/.local";
    }
    return base + "/lib/python" + in_.version_tag() + "/site-packages";
  }

  void add_site_dir_if_dir(const std::string& dir, PathOrigin origin) {
    if (probe_.is_dir(dir)) add_site_dir(dir, origin);
  }

  // site.addsitedir: the folder, then its .pth files in sorted order.
  void add_site_dir(const std::string& raw, PathOrigin origin) {
    const std::string dir = abspath(raw, launch_.cwd);
    add(dir, origin);
    std::vector<std::string> names;
    for (auto& name : probe_.list(dir))
      if (name.size() > 4 && name.ends_with(".pth") && !skips_hidden_pth(name)) names.push_back(std::move(name));
    std::sort(names.begin(), names.end());
    for (const auto& name : names) add_pth(dir, name);
  }

  bool skips_hidden_pth(const std::string& name) const { return name.front() == '.' && in_.skips_hidden_pth; }

  // site.addpackage: each line a folder (kept when it exists), comments and
  // blank lines skipped, `import` lines run (not modelled).
  void add_pth(const std::string& dir, const std::string& name) {
    const std::string file = dir + "/" + name;
    auto text = probe_.read_text(file);
    if (!text) return;
    for (std::string line : text_lines(*text)) {
      if (line.starts_with("#") || util::trim(line).empty()) continue;
      if (line.starts_with("import ") || line.starts_with("import\t")) continue;
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
      // site.makepath: os.path.join(sitedir, line), an absolute line replacing the folder.
      const std::string path = abspath(line.front() == '/' ? line : dir + "/" + line, launch_.cwd);
      if (!known_.count(path) && probe_.exists(path)) add(path, PathOrigin::pth, file);
    }
  }

  const Interpreter& in_;
  const PythonLaunch& launch_;
  PathProbe& probe_;
  std::vector<SysPathEntry> entries_;
  std::set<std::string> known_;
};
} // namespace

std::vector<SysPathEntry> build_sys_path(const Interpreter& interpreter, const PythonLaunch& launch, PathProbe& probe) {
  return Builder(interpreter, launch, probe).build();
}

} // namespace condacuda::python
