#pragma once
// Jupyter kernelspecs as a server finds and starts them (docs/jupyter.md):
// where jupyter_client looks (jupyter_core's data path), what a kernel.json
// says, which env's interpreter a kernel runs and whether its start goes
// through an activation, and the environment the kernel process gets. Pure:
// text in, values out.
//
// Sources (read at Debian's python3-jupyter-core 4.12.0 and
// python3-jupyter-client 7.4.9, /usr/lib/python3/dist-packages):
// jupyter_core/paths.py jupyter_data_dir L80-L107, jupyter_runtime_dir
// L110-L123, SYSTEM_JUPYTER_PATH L133-L138, jupyter_path L141-L200, envset
// L29-L35; jupyter_client/kernelspec.py from_resource_dir L44-L53,
// _kernel_name_pat L77-L80, _list_kernels_in L94-L115, find_kernel_specs
// L213-L235; manager.py format_kernel_cmd L261-L300;
// provisioning/provisioner_base.py L149-L165, _finalize_env L227-L239,
// __apply_env_substitutions L241-L265 (string.Template.safe_substitute).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::jupyter {

// What a kernel.json holds that matters here.
struct Kernelspec {
  std::string name;      // the folder's name, lower-cased (find_kernel_specs's key)
  std::string dir;       // the folder (absolute)
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env; // the `env` block, in file order
  std::string display_name;
  bool symlinked = false; // kernel.json or its folder is a symlink (read as Jupyter does; never written)
};

// kernel.json's text: argv a non-empty list of strings, env an object of
// strings, display_name a string. Errors (bad_input) say which.
Result<Kernelspec> parse_kernelspec(std::string_view json_text, const std::string& name, const std::string& dir);

// jupyter_client's kernel names: ASCII letters, digits, '-', '.', '_'.
bool valid_kernel_name(std::string_view name);

// The variables jupyter_core's data path reads, as the server has them.
struct JupyterVariables {
  std::optional<std::string> jupyter_path;     // JUPYTER_PATH
  std::optional<std::string> jupyter_data_dir; // JUPYTER_DATA_DIR
  std::optional<std::string> xdg_data_home;    // XDG_DATA_HOME
  std::optional<std::string> prefer_env_path;  // JUPYTER_PREFER_ENV_PATH
  std::optional<std::string> runtime_dir;      // JUPYTER_RUNTIME_DIR
  std::string home;                            // expanduser("~")
  std::string user_base;                       // site.getuserbase() when the user site is on, else ""
};

// jupyter_path("kernels") for a server whose sys.prefix is `server_prefix`:
// each JUPYTER_PATH entry, then the user's data dir (and the user base's
// share/jupyter) and the server's prefix/share/jupyter (swapped when
// JUPYTER_PREFER_ENV_PATH is set true), then /usr/local/share/jupyter and
// /usr/share/jupyter; each with /kernels. A name found in an earlier folder
// hides the same name in later ones.
std::vector<std::string> kernel_dirs(const JupyterVariables& vars, const std::string& server_prefix);

// jupyter_data_dir(): JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else
// ~/.local/share/jupyter (Linux).
std::string data_dir(const JupyterVariables& vars);

// jupyter_runtime_dir(): JUPYTER_RUNTIME_DIR, else <data dir>/runtime.
std::string runtime_dir(const JupyterVariables& vars);

// string.Template(text).safe_substitute(values): $name and ${name} (a name
// is [_A-Za-z][_A-Za-z0-9]*) replaced when `values` has it, kept as written
// when not; $$ is a '$'.
std::string safe_substitute(std::string_view text, const std::map<std::string, std::string>& values);

// The environment the kernel process gets from a server whose environment
// is `server`: a copy, PYTHONEXECUTABLE removed, updated with the spec's env
// block, each value substituted against the server's environment.
std::map<std::string, std::string> kernel_environment(const std::map<std::string, std::string>& server, const Kernelspec& spec);

// How a kernel's argv starts the env's interpreter.
enum class KernelRunner {
  python,          // argv[0] is the env's python (by any path or link)
  conda_run,       // conda/mamba/micromamba run -p ENV|-n NAME ... (activation runs)
  condacuda_run,   // condacuda run -p ENV|-n NAME -- ... (the env's folders first)
  nb_conda_kernels, // python -m nb_conda_kernels.runner ROOT ENV ... (activation runs)
  wrapper,         // a script that names the env's python (activation when it says `activate`)
  other,           // another interpreter: not this env's kernel
};
const char* to_string(KernelRunner runner); // "python", "conda run", ...

// What the model needs to tell a kernel's interpreter, from the system layer.
class KernelFiles {
public:
  virtual ~KernelFiles() = default;
  virtual std::string real_path(const std::string& path) = 0; // "" when it does not resolve
  virtual std::optional<std::string> read_script(const std::string& path) = 0; // a small text file's head
};

struct EnvIdentity {
  std::string prefix;      // absolute
  std::string name;        // as `conda run -n` takes it
  std::string python_real; // the env's python's real path
  // A venv's python is the base interpreter's binary: only a path in the
  // env's bin/ starts it as the env's (site.venv reads pyvenv.cfg beside it).
  bool venv = false;
};

struct KernelRun {
  KernelRunner runner = KernelRunner::other;
  bool activated = false; // the env's activation (its hook) runs before the kernel
  std::string how;        // for people: "argv[0] is /env/bin/python3"
};

// Whether `spec` starts `env`'s interpreter, and how.
KernelRun classify_kernel(const Kernelspec& spec, const EnvIdentity& env, KernelFiles& files);

// A running Jupyter server of this user, from its runtime file
// (jpserver-PID.json, nbserver-PID.json) and /proc/PID/environ.
struct Server {
  int pid = 0;
  std::string runtime_file;
  std::string url;
  std::map<std::string, std::string> environment;
};

// The pid and url of a server runtime file's JSON; nullopt when it has no pid.
std::optional<Server> parse_server_file(std::string_view json_text, const std::string& file);

// /proc/PID/environ's NUL-separated NAME=value entries.
std::map<std::string, std::string> parse_environ(std::string_view bytes);

// A kernelspec `condacuda kernel install` writes: as `ipykernel install`
// writes one (argv, display_name, language; ipykernel/kernelspec.py
// write_kernel_spec), with metadata.condacuda naming the env, so that a
// later install recognises its own file.
struct KernelspecDraft {
  std::vector<std::string> argv;
  std::string display_name;
  std::string env_prefix;
  std::string written_by; // "condacuda 0.x"
};
// A path or name that is not UTF-8 is an Error (bad_input): JSON holds text,
// and the JSON writer's "\\xHH" for such bytes (util/json.hpp) would give
// Jupyter another path to start.
Result<std::string> render_kernelspec(const KernelspecDraft& draft);

// Whether a kernel.json's text is one condacuda wrote (metadata.condacuda).
bool written_by_condacuda(std::string_view json_text);

} // namespace condacuda::jupyter
