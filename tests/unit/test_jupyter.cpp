// jupyter/kernelspec: the rules of jupyter_core's data path and
// jupyter_client's kernelspecs and launches, one by one (Debian's 4.12.0 and
// 7.4.9; the real jupyter_client is the oracle in e2e.jupyter).
#include <doctest/doctest.h>

#include <map>

#include "jupyter/kernelspec.hpp"

using namespace condacuda;
using namespace condacuda::jupyter;

namespace {
// Paths and scripts as data: what the pure classifier asks the system layer.
class TableFiles final : public KernelFiles {
public:
  std::map<std::string, std::string> real;    // path -> real path
  std::map<std::string, std::string> scripts; // path -> head
  std::string real_path(const std::string& path) override {
    auto it = real.find(path);
    return it == real.end() ? "" : it->second;
  }
  std::optional<std::string> read_script(const std::string& path) override {
    auto it = scripts.find(path);
    return it == scripts.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
};

Kernelspec spec(std::vector<std::string> argv, std::string dir = "/home/u/.local/share/jupyter/kernels/k") {
  Kernelspec k;
  k.name = "k";
  k.dir = std::move(dir);
  k.argv = std::move(argv);
  return k;
}

const EnvIdentity conda_env{"/envs/torch", "torch", "/envs/torch/bin/python3.11", false};
} // namespace

TEST_CASE("kernel.json: argv a non-empty list of strings, env an object of strings") {
  auto ok = parse_kernelspec(R"({"argv": ["/e/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                                 "display_name": "T", "env": {"B": "2", "A": "1"}})",
                             "t", "/k/t");
  REQUIRE(ok);
  CHECK(ok->argv.size() == 5);
  CHECK(ok->display_name == "T");
  REQUIRE(ok->env.size() == 2);
  CHECK(ok->env[0].first == "B"); // file order
  CHECK_FALSE(parse_kernelspec(R"({"argv": "python -m ipykernel"})", "t", "/k/t"));
  CHECK_FALSE(parse_kernelspec(R"({"argv": []})", "t", "/k/t"));
  CHECK_FALSE(parse_kernelspec(R"({"argv": ["python", 3]})", "t", "/k/t"));
  CHECK_FALSE(parse_kernelspec(R"({"argv": ["python"], "env": {"A": 1}})", "t", "/k/t"));
  auto bad = parse_kernelspec("{\"argv\": [", "t", "/k/t");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().path == "/k/t/kernel.json");
}

TEST_CASE("kernel names: letters, digits, '-', '.', '_'") {
  CHECK(valid_kernel_name("python3"));
  CHECK(valid_kernel_name("torch-2.5_cu12"));
  CHECK_FALSE(valid_kernel_name(""));
  CHECK_FALSE(valid_kernel_name("../x"));
  CHECK_FALSE(valid_kernel_name("a b"));
}

TEST_CASE("the data path: JUPYTER_PATH, the user's, the server's prefix, the system's; JUPYTER_PREFER_ENV_PATH swaps") {
  JupyterVariables v;
  v.home = "/home/u";
  v.jupyter_path = "/a/:/b";
  const std::vector<std::string> plain{"/a/kernels", "/b/kernels", "/home/u/.local/share/jupyter/kernels",
                                       "/srv/share/jupyter/kernels", "/usr/local/share/jupyter/kernels",
                                       "/usr/share/jupyter/kernels"};
  CHECK(kernel_dirs(v, "/srv") == plain);
  v.prefer_env_path = "1";
  CHECK(kernel_dirs(v, "/srv")[2] == "/srv/share/jupyter/kernels");
  v.prefer_env_path = "false";
  CHECK(kernel_dirs(v, "/srv") == plain);
  v.jupyter_path.reset();
  v.xdg_data_home = "/x";
  CHECK(kernel_dirs(v, "/srv").front() == "/x/jupyter/kernels");
  v.jupyter_data_dir = "/d";
  CHECK(kernel_dirs(v, "/srv").front() == "/d/kernels");
  CHECK(data_dir(v) == "/d");
  CHECK(runtime_dir(v) == "/d/runtime");
  v.runtime_dir = "/run/j";
  CHECK(runtime_dir(v) == "/run/j");
  // A server whose prefix is /usr: its share/jupyter is a system folder, listed once.
  JupyterVariables u;
  u.home = "/home/u";
  CHECK(kernel_dirs(u, "/usr").size() == 3);
}

TEST_CASE("string.Template.safe_substitute: $name, ${name}, $$, unknown names kept") {
  const std::map<std::string, std::string> values{{"LD_LIBRARY_PATH", "/old"}, {"A", "1"}};
  CHECK(safe_substitute("/env/lib:${LD_LIBRARY_PATH}", values) == "/env/lib:/old");
  CHECK(safe_substitute("$A-$B-${C}", values) == "1-$B-${C}");
  CHECK(safe_substitute("$$A", values) == "$A");
  CHECK(safe_substitute("cost $", values) == "cost $");
}

TEST_CASE("the kernel's environment: the server's, PYTHONEXECUTABLE removed, the env block substituted over it") {
  Kernelspec k = spec({"/e/bin/python"});
  k.env = {{"LD_LIBRARY_PATH", "/e/lib:${LD_LIBRARY_PATH}"}, {"X", "1"}};
  const std::map<std::string, std::string> server{{"LD_LIBRARY_PATH", "/old"}, {"PYTHONEXECUTABLE", "/p"}, {"HOME", "/h"}};
  auto env = kernel_environment(server, k);
  CHECK(env.at("LD_LIBRARY_PATH") == "/e/lib:/old");
  CHECK(env.at("X") == "1");
  CHECK(env.at("HOME") == "/h");
  CHECK_FALSE(env.count("PYTHONEXECUTABLE"));
}

TEST_CASE("classify: the env's python by any link; a venv's only from its bin/") {
  TableFiles f;
  f.real = {{"/envs/torch/bin/python", "/envs/torch/bin/python3.11"}, {"/envs/torch/bin", "/envs/torch/bin"},
            {"/usr/bin/python3", "/usr/bin/python3.11"}, {"/link/py", "/envs/torch/bin/python3.11"}, {"/link", "/link"}};
  CHECK(classify_kernel(spec({"/envs/torch/bin/python", "-m", "ipykernel_launcher"}), conda_env, f).runner ==
        KernelRunner::python);
  CHECK(classify_kernel(spec({"/link/py"}), conda_env, f).runner == KernelRunner::python);
  CHECK(classify_kernel(spec({"/usr/bin/python3"}), conda_env, f).runner == KernelRunner::other);
  EnvIdentity venv{"/envs/torch", "torch", "/envs/torch/bin/python3.11", true};
  CHECK(classify_kernel(spec({"/envs/torch/bin/python"}), venv, f).runner == KernelRunner::python);
  CHECK(classify_kernel(spec({"/link/py"}), venv, f).runner == KernelRunner::other);
  // A bare python is the server's sys.executable: the env's for a spec in the env's share/jupyter only.
  CHECK(classify_kernel(spec({"python3"}, "/envs/torch/share/jupyter/kernels/k"), conda_env, f).runner == KernelRunner::python);
  CHECK(classify_kernel(spec({"python3"}), conda_env, f).runner == KernelRunner::other);
}

TEST_CASE("classify: conda run, condacuda run, nb_conda_kernels and wrappers, activated or not") {
  TableFiles f;
  f.real = {{"/envs/torch", "/envs/torch"}, {"/envs/other", "/envs/other"}};
  auto conda = classify_kernel(spec({"/opt/conda/bin/conda", "run", "-p", "/envs/torch", "python", "-m", "ipykernel"}),
                               conda_env, f);
  CHECK(conda.runner == KernelRunner::conda_run);
  CHECK(conda.activated);
  CHECK(classify_kernel(spec({"micromamba", "run", "-n", "torch", "python"}), conda_env, f).runner == KernelRunner::conda_run);
  CHECK(classify_kernel(spec({"conda", "run", "-n", "other", "python"}), conda_env, f).runner == KernelRunner::other);
  CHECK(classify_kernel(spec({"/x/condacuda", "run", "-p", "/envs/torch", "--", "python"}), conda_env, f).runner ==
        KernelRunner::condacuda_run);
  auto nb = classify_kernel(
      spec({"/opt/conda/bin/python", "-m", "nb_conda_kernels.runner", "/opt/conda", "/envs/torch", "python", "-m", "ipykernel_launcher"}),
      conda_env, f);
  CHECK(nb.runner == KernelRunner::nb_conda_kernels);
  CHECK(nb.activated);
  CHECK(classify_kernel(spec({"/opt/conda/bin/python", "-m", "nb_conda_kernels.runner", "/opt/conda", "/envs/other", "python"}),
                        conda_env, f)
            .runner == KernelRunner::other);
  f.scripts = {{"/k/start.sh", "#!/bin/sh\n. /opt/conda/bin/activate torch\nexec /envs/torch/bin/python \"$@\"\n"},
               {"/k/plain.sh", "#!/bin/sh\nexec /envs/torch/bin/python \"$@\"\n"}};
  auto w = classify_kernel(spec({"/k/start.sh", "-f", "{connection_file}"}), conda_env, f);
  CHECK(w.runner == KernelRunner::wrapper);
  CHECK(w.activated);
  CHECK_FALSE(classify_kernel(spec({"/k/plain.sh"}), conda_env, f).activated);
}

TEST_CASE("a server's runtime file and /proc/PID/environ") {
  auto s = parse_server_file(R"({"pid": 4242, "url": "http://localhost:8888/", "port": 8888})", "/r/jpserver-4242.json");
  REQUIRE(s);
  CHECK(s->pid == 4242);
  CHECK(s->url == "http://localhost:8888/");
  CHECK_FALSE(parse_server_file(R"({"url": "x"})", "/r/f.json"));
  CHECK_FALSE(parse_server_file("not json", "/r/f.json"));
  const std::string environ("A=1\0LD_LIBRARY_PATH=/old:/x\0=bad\0NOEQ\0B=\0", 40);
  auto env = parse_environ(environ);
  CHECK(env.size() == 3);
  CHECK(env.at("LD_LIBRARY_PATH") == "/old:/x");
  CHECK(env.at("B").empty());
}

TEST_CASE("the kernelspec kernel install writes: ipykernel's fields, metadata.condacuda, recognised as condacuda's") {
  KernelspecDraft d{{"/bin/condacuda", "run", "-p", "/envs/torch", "--", "/envs/torch/bin/python3", "-m", "ipykernel_launcher",
                     "-f", "{connection_file}"},
                    "Python (torch, condacuda)", "/envs/torch", "condacuda 0.1.0"};
  const std::string text = render_kernelspec(d).value();
  auto back = parse_kernelspec(text, "t", "/k/t");
  REQUIRE(back);
  CHECK(back->argv == d.argv);
  CHECK(back->display_name == d.display_name);
  CHECK(written_by_condacuda(text));
  CHECK_FALSE(written_by_condacuda(R"({"argv": ["python"], "metadata": {"debugger": true}})"));
  CHECK_FALSE(written_by_condacuda("not json"));
  // A path that is not UTF-8 cannot be written as it is (found by tests/fuzz/fuzz_kernelspec.cpp).
  KernelspecDraft raw = d;
  raw.argv[5] = "/envs/t\xf3rch/bin/python3";
  auto refused = render_kernelspec(raw);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == condacuda::ErrorCode::bad_input);
  CHECK(refused.error().message.find("t\\xf3rch") != std::string::npos);
  raw = d;
  raw.display_name = "\xed\xa0\x80"; // what the reader makes of a lone "\ud800"
  CHECK_FALSE(render_kernelspec(raw));
}
