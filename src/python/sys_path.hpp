#pragma once
// The module search path (sys.path) of the env's interpreter as CPython
// builds it at start-up, from the interpreter's facts and the launch's
// environment (docs/frameworks.md, "sys.path"): what a framework's preloads
// walk to find NVIDIA's wheel folders (torch's _preload_cuda_deps globs
// every entry, in order). Pure: the file system only through PathProbe.
//
// Sources: CPython Lib/site.py (main, venv, addusersitepackages,
// addsitepackages, addsitedir, addpackage; v3.8 to v3.13 alike in what is
// modelled here), Modules/getpath.py (3.11: PYTHONPATH, the zip, the stdlib
// and lib-dynload before site runs), Debian's python3.11 site.py
// (dist-packages instead of site-packages outside a venv), and
// Python/initconfig.c (-s, PYTHONNOUSERSITE, -E, -I, PYTHONSAFEPATH).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::python {

// What the model asks of the file system (sys/python_probe.cpp on disk).
class PathProbe {
public:
  virtual ~PathProbe() = default;
  virtual bool is_dir(const std::string& path) = 0;   // os.path.isdir (follows links)
  virtual bool is_file(const std::string& path) = 0;  // os.path.isfile
  virtual bool exists(const std::string& path) = 0;   // os.path.exists
  // The names in a directory in the order readdir gives them (os.listdir,
  // os.scandir, glob.glob take that order); empty when it cannot be read.
  virtual std::vector<std::string> list(const std::string& dir) = 0;
  // Whether `dir` lists `name` (FileFinder's cache of a folder's names: a
  // name not listed is not looked at). Default: through list().
  virtual bool has(const std::string& dir, const std::string& name) {
    for (const auto& n : list(dir))
      if (n == name) return true;
    return false;
  }
  // A small text file (a .pth file); nullopt when it cannot be read.
  virtual std::optional<std::string> read_text(const std::string& path) = 0;
};

// Which site.py the interpreter has: CPython's, or Debian's patched one
// (`dist-packages` outside a venv, /usr/local first).
enum class SiteFlavour { cpython, debian };

// The interpreter as getpath finds it (the system layer reads these facts).
struct Interpreter {
  int major = 3, minor = 0;
  std::string executable;  // sys.executable: the env's python as started
  std::string prefix;      // sys.prefix once site ran (the venv folder in a venv)
  std::string base_prefix; // sys.base_prefix: where the stdlib lives
  std::string platlibdir = "lib";
  SiteFlavour site = SiteFlavour::cpython;
  // pyvenv.cfg (next to the executable or one folder up): a venv.
  bool venv = false;
  bool include_system_site_packages = false;
  // site.addsitedir skips .pth files whose names start with '.' (gh-113659:
  // 3.13, and the security releases 3.8.19, 3.9.19, 3.10.14, 3.11.8, 3.12.2):
  // the system layer reads it from the interpreter's own site.py.
  bool skips_hidden_pth = false;
  std::string version_tag() const; // "3.11"
};

// The part of a launch's environment that changes sys.path.
struct PythonLaunch {
  std::optional<std::string> pythonpath;     // PYTHONPATH
  std::optional<std::string> pythonuserbase; // PYTHONUSERBASE
  std::optional<std::string> home;           // HOME (expanduser's source)
  std::string passwd_home;                   // the user's home from the password database, when HOME is unset
  bool no_user_site = false;                 // -s, or PYTHONNOUSERSITE non-empty
  bool ignore_environment = false;           // -E or -I: PYTHON* variables ignored
  bool safe_path = false;                    // -P, PYTHONSAFEPATH, -I: no script folder first
  bool setid = false;                        // uid != euid or gid != egid: user site disabled
  std::string cwd;                           // the process's working directory
};

// Where an entry of sys.path came from.
enum class PathOrigin {
  script_dir, // sys.path[0] of `python -c` ("": the working directory)
  pythonpath, // PYTHONPATH
  stdlib,     // the zip, the stdlib, lib-dynload
  env_site,   // the env's own site-packages (sys.prefix)
  user_site,  // ~/.local/lib/pythonX.Y/site-packages (or PYTHONUSERBASE's)
  system_site, // a base interpreter's site-packages (a venv with system site packages)
  pth,        // a line of a .pth file in one of the above
};
const char* to_string(PathOrigin origin); // "script folder", "PYTHONPATH", ...

struct SysPathEntry {
  std::string path;     // as sys.path holds it ("" for the working directory)
  PathOrigin origin = PathOrigin::stdlib;
  std::string pth_file; // for PathOrigin::pth: the .pth file that added it
  // The folder the entry names on disk ("" -> the working directory).
  std::string folder(const std::string& cwd) const { return path.empty() ? cwd : path; }
};

// sys.path for `python -c CODE` in `launch`. `.pth` lines that start with
// `import` are code, which the model does not run: they add nothing here.
std::vector<SysPathEntry> build_sys_path(const Interpreter& interpreter, const PythonLaunch& launch, PathProbe& probe);

// os.path.abspath: joined to `cwd` when relative, then normpath.
std::string abspath(std::string_view path, std::string_view cwd);

// The site-packages folders of an interpreter's prefixes as getsitepackages
// lists them (existing or not), for `prefix`.
std::vector<std::string> site_packages_of(const Interpreter& interpreter, const std::string& prefix, bool is_venv);

} // namespace condacuda::python
