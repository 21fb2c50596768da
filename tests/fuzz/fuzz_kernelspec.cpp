// libFuzzer target: the Jupyter surface (src/jupyter/kernelspec.hpp) on
// hostile kernelspecs, server runtime files and server environments.
//
// The input's sections (tests/fuzz/fuzz_sections.hpp; the generator is
// tests/fuzz/gen_hostile.py kernelspec): kernel.json's text, the server's
// /proc/PID/environ bytes, its runtime file (jpserver-PID.json), a wrapper
// script a kernel's argv may name, and the kernel folder's name. Runs in
// every build through the replay driver (CTest unit.fuzz_replay, under
// ASan/UBSan) and as a libFuzzer binary with -DCONDACUDA_FUZZ=ON.
//
// Besides "no crash, no over-read, no undefined behaviour" it traps when a
// promise of the model breaks: a kernelspec condacuda renders reads back as
// the same argv and display name and as its own, or is refused when they are
// not UTF-8; the kernel's environment
// never keeps PYTHONEXECUTABLE (provisioner_base.py _finalize_env); text
// without '$' passes safe_substitute unchanged; every environ entry has a
// name without '='.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "fuzz_sections.hpp"
#include "jupyter/kernelspec.hpp"
#include "util/strings.hpp"

namespace {

namespace jupyter = condacuda::jupyter;

// The file system a kernel's argv is resolved against: the env's python
// and its links, and one wrapper script whose text the input gives.
class InputFiles : public jupyter::KernelFiles {
public:
  explicit InputFiles(std::string script) : script_(std::move(script)) {}
  std::string real_path(const std::string& path) override {
    if (path == "/env/bin/python" || path == "/env/bin/python3" || path == "/link/python") return "/env/bin/python3.11";
    return path.starts_with("/") && path.size() < 4096 ? path : "";
  }
  std::optional<std::string> read_script(const std::string& path) override {
    if (path.ends_with(".sh") || path.ends_with("wrapper")) return script_;
    return std::nullopt;
  }

private:
  std::string script_;
};

std::optional<std::string> variable(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
}

void judge_spec(const jupyter::Kernelspec& spec, const std::map<std::string, std::string>& server, const std::string& script) {
  const auto env = jupyter::kernel_environment(server, spec);
  FUZZ_CHECK(!env.count("PYTHONEXECUTABLE"));
  for (const auto& [key, value] : spec.env)
    if (key != "PYTHONEXECUTABLE") FUZZ_CHECK(env.count(key) == 1);
  InputFiles files(script);
  for (bool venv : {false, true}) {
    jupyter::EnvIdentity identity{"/env", "demo", "/env/bin/python3.11", venv};
    const auto run = jupyter::classify_kernel(spec, identity, files);
    FUZZ_CHECK(run.runner != jupyter::KernelRunner::other || !run.activated);
  }
  // What `kernel install` writes reads back as written, and as its own.
  jupyter::KernelspecDraft draft{spec.argv, spec.display_name, "/env", "condacuda 0.x"};
  auto text = jupyter::render_kernelspec(draft);
  if (!text) { // only for text that is not UTF-8 (a lone "\ud800" reads as such)
    bool utf8 = condacuda::util::is_utf8(spec.display_name);
    for (const auto& a : spec.argv) utf8 = utf8 && condacuda::util::is_utf8(a);
    FUZZ_CHECK(!utf8 && text.error().code == condacuda::ErrorCode::bad_input);
    return;
  }
  auto again = jupyter::parse_kernelspec(*text, spec.name, spec.dir);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->argv == spec.argv && again->display_name == spec.display_name);
  FUZZ_CHECK(jupyter::written_by_condacuda(*text));
}

void judge_paths(const std::map<std::string, std::string>& server) {
  jupyter::JupyterVariables vars{variable(server, "JUPYTER_PATH"),   variable(server, "JUPYTER_DATA_DIR"),
                                 variable(server, "XDG_DATA_HOME"),  variable(server, "JUPYTER_PREFER_ENV_PATH"),
                                 variable(server, "JUPYTER_RUNTIME_DIR"), server.count("HOME") ? server.at("HOME") : "/root",
                                 ""};
  (void)jupyter::kernel_dirs(vars, "/srv");
  (void)jupyter::runtime_dir(vars);
  (void)jupyter::data_dir(vars);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto part = condacuda::fuzz::sections(data, size, 5);
  const std::string& kernel_json = part[0];
  const auto server = jupyter::parse_environ(part[1]);
  for (const auto& [key, value] : server) FUZZ_CHECK(!key.empty() && key.find('=') == std::string::npos && key.find('\0') == std::string::npos);
  if (kernel_json.find('$') == std::string::npos) FUZZ_CHECK(jupyter::safe_substitute(kernel_json, server) == kernel_json);
  (void)jupyter::safe_substitute(part[3], server);
  if (auto s = jupyter::parse_server_file(part[2], "/run/jpserver-1.json")) FUZZ_CHECK(s->runtime_file == "/run/jpserver-1.json");
  const std::string name = part[4].empty() ? "k" : part[4];
  (void)jupyter::valid_kernel_name(name);
  (void)jupyter::written_by_condacuda(kernel_json);
  judge_paths(server);
  auto spec = jupyter::parse_kernelspec(kernel_json, name, "/k/" + name);
  if (spec) judge_spec(*spec, server, part[3]);
  else FUZZ_CHECK(!spec.error().message.empty());
  return 0;
}
