#include "jupyter/kernelspec.hpp"

#include <algorithm>
#include <cctype>

#include "util/json.hpp"
#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::jupyter {

const char* to_string(KernelRunner runner) {
  switch (runner) {
  case KernelRunner::python: return "python";
  case KernelRunner::conda_run: return "conda run";
  case KernelRunner::condacuda_run: return "condacuda run";
  case KernelRunner::nb_conda_kernels: return "nb_conda_kernels";
  case KernelRunner::wrapper: return "wrapper script";
  case KernelRunner::other: return "other";
  }
  return "";
}

bool valid_kernel_name(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '-' || c == '.' || c == '_';
  });
}

Result<Kernelspec> parse_kernelspec(std::string_view json_text, const std::string& name, const std::string& dir) {
  auto json = util::parse_json(json_text);
  const std::string where = dir + "/kernel.json";
  if (!json) return make_error(ErrorCode::bad_input, "not JSON: " + json.error().message, where);
  if (!json->is_object()) return make_error(ErrorCode::bad_input, "not a JSON object", where);
  Kernelspec spec;
  spec.name = name;
  spec.dir = dir;
  const util::Json* argv = json->get("argv");
  if (!argv || !argv->is_array() || argv->as_array().empty())
    return make_error(ErrorCode::bad_input, "'argv' is not a non-empty list", where);
  for (const auto& a : argv->as_array()) {
    if (!a.is_string()) return make_error(ErrorCode::bad_input, "'argv' has an entry that is not a string", where);
    spec.argv.push_back(a.as_string());
  }
  if (const util::Json* env = json->get("env"); env && !env->is_null()) {
    if (!env->is_object()) return make_error(ErrorCode::bad_input, "'env' is not an object", where);
    for (const auto& [key, value] : env->as_object()) {
      if (!value.is_string()) return make_error(ErrorCode::bad_input, "'env' value of " + key + " is not a string", where);
      spec.env.emplace_back(key, value.as_string());
    }
  }
  if (const util::Json* d = json->get("display_name"); d && d->is_string()) spec.display_name = d->as_string();
  return spec;
}

namespace {
// jupyter_core.paths.envset: set unless no, n, false, off, 0, 0.0 (any case).
bool envset(const std::optional<std::string>& value) {
  if (!value) return false;
  const std::string v = util::to_lower(*value);
  return v != "no" && v != "n" && v != "false" && v != "off" && v != "0" && v != "0.0";
}

} // namespace

std::string data_dir(const JupyterVariables& v) {
  if (v.jupyter_data_dir && !v.jupyter_data_dir->empty()) return *v.jupyter_data_dir;
  if (v.xdg_data_home && !v.xdg_data_home->empty()) return *v.xdg_data_home + "/jupyter";
  return v.home + "/.local/share/jupyter";
}

std::vector<std::string> kernel_dirs(const JupyterVariables& vars, const std::string& server_prefix) {
  std::vector<std::string> paths;
  if (vars.jupyter_path && !vars.jupyter_path->empty())
    for (std::string p : util::split(*vars.jupyter_path, ":")) {
      while (p.size() > 1 && p.back() == '/') p.pop_back(); // p.rstrip(os.sep)
      paths.push_back(p);
    }
  std::vector<std::string> user{data_dir(vars)};
  if (!vars.user_base.empty() && vars.user_base + "/share/jupyter" != user.front()) user.push_back(vars.user_base + "/share/jupyter");
  std::vector<std::string> env;
  const std::string env_dir = server_prefix + "/share/jupyter";
  if (env_dir != "/usr/local/share/jupyter" && env_dir != "/usr/share/jupyter") env.push_back(env_dir);
  const bool env_first = envset(vars.prefer_env_path);
  for (const auto* group : {env_first ? &env : &user, env_first ? &user : &env}) paths.insert(paths.end(), group->begin(), group->end());
  paths.push_back("/usr/local/share/jupyter");
  paths.push_back("/usr/share/jupyter");
  for (auto& p : paths) p += "/kernels";
  return paths;
}

std::string runtime_dir(const JupyterVariables& vars) {
  if (vars.runtime_dir && !vars.runtime_dir->empty()) return *vars.runtime_dir;
  return data_dir(vars) + "/runtime";
}

std::string safe_substitute(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  auto ident_start = [](char c) { return c == '_' || std::isalpha(static_cast<unsigned char>(c)); };
  auto ident = [](char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char next = text[i + 1];
    if (next == '$') {
      out += '$';
      ++i;
      continue;
    }
    std::size_t start = i + 1, end = start;
    bool braced = next == '{';
    if (braced) start = end = i + 2;
    if (end < text.size() && ident_start(text[end]))
      while (end < text.size() && ident(text[end])) ++end;
    if (end == start || (braced && (end == text.size() || text[end] != '}'))) {
      out += '$'; // not a placeholder: kept
      continue;
    }
    const std::string name(text.substr(start, end - start));
    const std::size_t last = braced ? end : end - 1;
    auto it = values.find(name);
    if (it != values.end()) out += it->second;
    else out.append(text.substr(i, last - i + 1));
    i = last;
  }
  return out;
}

std::map<std::string, std::string> kernel_environment(const std::map<std::string, std::string>& server, const Kernelspec& spec) {
  std::map<std::string, std::string> env = server;
  std::map<std::string, std::string> substituted;
  for (const auto& [key, value] : spec.env) substituted[key] = safe_substitute(value, server);
  for (auto& [key, value] : substituted) env[key] = std::move(value);
  env.erase("PYTHONEXECUTABLE");
  return env;
}

std::optional<Server> parse_server_file(std::string_view json_text, const std::string& file) {
  auto json = util::parse_json(json_text);
  if (!json || !json->is_object()) return std::nullopt;
  const util::Json* pid = json->get("pid");
  if (!pid || !pid->is_int() || pid->as_int() <= 0 || pid->as_int() > 1 << 30) return std::nullopt;
  Server s;
  s.pid = static_cast<int>(pid->as_int());
  s.runtime_file = file;
  if (const util::Json* url = json->get("url"); url && url->is_string()) s.url = url->as_string();
  return s;
}

std::map<std::string, std::string> parse_environ(std::string_view bytes) {
  std::map<std::string, std::string> out;
  while (!bytes.empty()) {
    const std::size_t end = std::min(bytes.find('\0'), bytes.size());
    const std::string_view entry = bytes.substr(0, end);
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos && eq > 0) out.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    bytes.remove_prefix(std::min(end + 1, bytes.size()));
  }
  return out;
}

namespace {
bool is_env_python(const std::string& arg, const EnvIdentity& env, KernelFiles& files) {
  if (arg.find('/') == std::string::npos) return false;
  const std::string real = files.real_path(arg);
  if (real.empty() || real != env.python_real) return false;
  // The same binary from the env's bin/ (by any path to that folder), or, outside a venv, by any link.
  return !env.venv || files.real_path(util::dir_name(arg)) == files.real_path(env.prefix + "/bin");
}

// "-p ENV" / "--prefix ENV" / "-n NAME" / "--name NAME" among args[from..].
bool names_env(const std::vector<std::string>& args, std::size_t from, const EnvIdentity& env, KernelFiles& files) {
  for (std::size_t i = from; i + 1 < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if ((a == "-p" || a == "--prefix") && !files.real_path(args[i + 1]).empty() &&
        files.real_path(args[i + 1]) == files.real_path(env.prefix))
      return true;
    if ((a == "-n" || a == "--name") && args[i + 1] == env.name) return true;
  }
  return false;
}
} // namespace

KernelRun classify_kernel(const Kernelspec& spec, const EnvIdentity& env, KernelFiles& files) {
  KernelRun run;
  const auto& argv = spec.argv;
  const std::string exe = util::base_name(argv.front());
  // format_kernel_cmd: a bare python, python3 or python3.X is the server's
  // sys.executable; a spec in the env's own share/jupyter is found by a
  // server of that env (its sys.prefix), so that python is the env's.
  const bool bare_python = argv.front().find('/') == std::string::npos && exe.starts_with("python") &&
                           exe.find_first_not_of("python0123456789.") == std::string::npos;
  if (bare_python && spec.dir.starts_with(env.prefix + "/share/jupyter/"))
    return {KernelRunner::python, false, "argv[0] " + argv.front() + " is the server's python, the env's for a spec in its share/jupyter"};
  // nb_conda_kernels' runner (any python: the server's) is
  // `runner CONDA_ROOT ENV CMD ARGS...`: exec_in_env runs conda's activate
  // script for ENV (a path, as its manager writes it, or a name) and execs
  // CMD with the environment that prints (nb_conda_kernels/runner.py).
  if (argv.size() > 5 && argv[1] == "-m" && argv[2] == "nb_conda_kernels.runner") {
    const std::string& named = argv[4];
    const bool ours = named.find('/') == std::string::npos
                          ? named == env.name
                          : !files.real_path(named).empty() && files.real_path(named) == files.real_path(env.prefix);
    if (!ours) return run;
    return {KernelRunner::nb_conda_kernels, true, "nb_conda_kernels' runner activates " + named};
  }
  if (is_env_python(argv.front(), env, files))
    return {KernelRunner::python, false, "argv[0] " + argv.front() + " is the env's python"};
  if ((exe == "conda" || exe == "mamba" || exe == "micromamba") && argv.size() > 1 && argv[1] == "run" &&
      names_env(argv, 2, env, files))
    return {KernelRunner::conda_run, true, exe + " run activates the env"};
  if (exe == "condacuda" && argv.size() > 1 && argv[1] == "run" && names_env(argv, 2, env, files))
    return {KernelRunner::condacuda_run, true, "condacuda run puts the env's folders first"};
  if (argv.front().find('/') != std::string::npos) {
    if (auto script = files.read_script(argv.front()); script && script->starts_with("#!")) {
      const bool names_python = util::contains(*script, env.prefix + "/bin/python") ||
                                (!env.python_real.empty() && util::contains(*script, env.python_real));
      if (names_python) {
        const bool activates = util::contains(*script, "activate");
        return {KernelRunner::wrapper, activates,
                "the script " + argv.front() + " starts the env's python" + (activates ? " after an activation" : "")};
      }
    }
  }
  return run;
}

Result<std::string> render_kernelspec(const KernelspecDraft& d) {
  for (const std::string* text : {&d.display_name, &d.env_prefix})
    if (!util::is_utf8(*text))
      return make_error(ErrorCode::bad_input, "'" + util::terminal_safe(*text) + "' is not UTF-8 text: a kernel.json cannot hold it");
  for (const auto& a : d.argv)
    if (!util::is_utf8(a))
      return make_error(ErrorCode::bad_input, "the kernel's command line has '" + util::terminal_safe(a) +
                                                  "', which is not UTF-8 text: a kernel.json cannot hold it");
  util::Json argv = util::Json::array();
  for (const auto& a : d.argv) argv.push(a);
  util::Json meta = util::Json::object();
  meta.set("env", d.env_prefix);
  meta.set("written_by", d.written_by);
  util::Json metadata = util::Json::object();
  metadata.set("condacuda", meta);
  util::Json j = util::Json::object();
  j.set("argv", argv);
  j.set("display_name", d.display_name);
  j.set("language", "python");
  j.set("metadata", metadata);
  return j.dump(1) + "\n";
}

bool written_by_condacuda(std::string_view json_text) {
  auto json = util::parse_json(json_text);
  if (!json || !json->is_object()) return false;
  const auto* metadata = json->get("metadata");
  return metadata && metadata->is_object() && metadata->get("condacuda");
}

} // namespace condacuda::jupyter
