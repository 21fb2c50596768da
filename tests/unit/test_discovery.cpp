#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "env/discovery.hpp"
#include "sys/env_discovery.hpp"

namespace env = condacuda::env;
namespace sys = condacuda::sys;
namespace fs = std::filesystem;
using condacuda::ErrorCode;

namespace {

// A scratch directory removed at the end of the test (kept when
// CONDACUDA_KEEP_TEST_DIRS is set, to look at after a failure).
struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "condacuda-discovery-XXXXXX").string();
    path = ::mkdtemp(tmpl.data()) ? tmpl : std::string{};
    REQUIRE_FALSE(path.empty());
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!std::getenv("CONDACUDA_KEEP_TEST_DIRS")) fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& rel) const { return path + "/" + rel; }
};

void write_file(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

void make_conda_env(const std::string& prefix) { write_file(prefix + "/conda-meta/history", ""); }

void make_venv(const std::string& prefix, const std::string& cfg) {
  write_file(prefix + "/pyvenv.cfg", cfg);
}

// Options for a hermetic run: HOME and cwd inside the scratch dir, no system
// condarc files, and only the variables the test gives.
sys::DiscoveryOptions options(const ScratchDir& dir, env::VarMap vars = {}) {
  fs::create_directories(dir / "home");
  fs::create_directories(dir / "cwd");
  vars["HOME"] = dir / "home";
  return sys::DiscoveryOptions{vars, dir / "home", dir / "cwd", env::SystemConfig::skip};
}

std::vector<std::string> dir_paths(const env::EnvsDirs& dirs) {
  std::vector<std::string> out;
  for (const auto& d : dirs.dirs) out.push_back(d.path);
  return out;
}

// An in-memory filesystem for the pure core.
struct FakeInspector final : env::PrefixInspector {
  std::set<std::string> dirs;
  std::set<std::string> conda_envs;
  bool is_directory(const std::string& path) const override { return dirs.count(path) != 0; }
  std::vector<std::string> list_directory(const std::string& path) const override {
    std::vector<std::string> out;
    for (const auto& d : dirs)
      if (d.size() > path.size() + 1 && d.compare(0, path.size() + 1, path + "/") == 0 &&
          d.find('/', path.size() + 1) == std::string::npos)
        out.push_back(d.substr(path.size() + 1));
    return out;
  }
  env::PrefixMarkers markers(const std::string& prefix) const override {
    return env::PrefixMarkers{conda_envs.count(prefix) != 0, std::nullopt};
  }
};

} // namespace

TEST_CASE("condarc envs_dirs parsing: lists, alias, broken YAML and wrong types") {
  std::vector<condacuda::Error> warnings;
  auto dirs = env::parse_condarc_envs_dirs(
      {"/rc", "channels: [conda-forge]\nenvs_dirs:\n  - ~/envs\n  - /opt/envs\n"}, warnings);
  CHECK(dirs == std::vector<std::string>{"~/envs", "/opt/envs"});
  CHECK(env::parse_condarc_envs_dirs({"/rc", "envs_path: [/a]\n"}, warnings) ==
        std::vector<std::string>{"/a"});
  CHECK(env::parse_condarc_envs_dirs({"/rc", ""}, warnings).empty());
  CHECK(env::parse_condarc_envs_dirs({"/rc", "# only a comment\n"}, warnings).empty());
  CHECK(env::parse_condarc_envs_dirs({"/rc", "envs_dirs:\n"}, warnings).empty());
  CHECK(warnings.empty());

  auto broken = env::parse_condarc_envs_dirs({"/home/u/.condarc", "a: 1\nenvs_dirs: [/x\n"},
                                             warnings);
  CHECK(broken.empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].code == ErrorCode::corrupt);
  CHECK(warnings[0].path == "/home/u/.condarc");
  CHECK(warnings[0].message.find("invalid YAML at line ") == 0);
  CHECK(warnings[0].message.find(", column ") != std::string::npos);

  warnings.clear();
  CHECK(env::parse_condarc_envs_dirs({"/rc", "x: 1\nenvs_dirs: /single/path\n"}, warnings).empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].message == "'envs_dirs' at line 2, column 12 is not a list; ignored");

  warnings.clear();
  auto mixed = env::parse_condarc_envs_dirs({"/rc", "envs_dirs: [/a, {b: 1}, /c]\n"}, warnings);
  CHECK(mixed == std::vector<std::string>{"/a", "/c"});
  CHECK(warnings.size() == 1);

  warnings.clear();
  CHECK(env::parse_condarc_envs_dirs({"/rc", "- just\n- a list\n"}, warnings).empty());
  CHECK(warnings.size() == 1);
  warnings.clear();
  CHECK(env::parse_condarc_envs_dirs({"/rc", "envs_dirs: [/a]\nenvs_path: [/b]\n"}, warnings) ==
        std::vector<std::string>{"/a"});
  CHECK(warnings.size() == 1);
}

TEST_CASE("path expansion follows os.path.expandvars, expanduser and abspath") {
  env::VarMap vars{{"A", "/alpha"}, {"EMPTY", ""}};
  CHECK(env::expand_vars("$A/x ${A}y $NOPE ${NOPE} $ $EMPTY.", vars) ==
        "/alpha/x /alphay $NOPE ${NOPE} $ .");
  CHECK(env::expand_vars("${A", vars) == "${A");
  CHECK(env::absolute_path("a/./b//../c/", "/w") == "/w/a/c");
  CHECK(env::absolute_path("/../x", "/w") == "/x");
  CHECK(env::absolute_path("", "/w") == "/w");
  CHECK(env::expand_path("~/envs", vars, "/home/u", "/w") == "/home/u/envs");
  CHECK(env::expand_path("~", vars, "/home/u", "/w") == "/home/u");
  CHECK(env::expand_path("~other/envs", vars, "/home/u", "/w") == "/w/~other/envs");
  CHECK(env::expand_path("$A/envs", vars, "/home/u", "/w") == "/alpha/envs");
}

TEST_CASE("environments.txt parsing skips comments and blank lines") {
  auto lines = env::parse_environments_txt("/opt/a\n\n  # comment\n   /opt/b with space  \r\n#x\n");
  CHECK(lines == std::vector<std::string>{"/opt/a", "/opt/b with space"});
  CHECK(env::parse_environments_txt("").empty());
}

TEST_CASE("condarc search path follows conda's SEARCH_PATH order") {
  env::VarMap vars{{"CONDA_ROOT", "/root"}, {"CONDARC", "/rc/custom.yml"},
                   {"CONDA_PREFIX", "/root/envs/x"}, {"XDG_CONFIG_HOME", "/xdg"}};
  auto paths = env::condarc_search_paths(vars, "/h", "/w", env::SystemConfig::include);
  REQUIRE(paths.size() == 23);
  CHECK(paths.front() == "/etc/conda/.condarc");
  CHECK(paths[6] == "/root/.condarc");
  CHECK(paths[9] == "/xdg/conda/.condarc");
  CHECK(paths[12] == "/h/.config/conda/.condarc");
  CHECK(paths[18] == "/h/.condarc");
  CHECK(paths[19] == "/root/envs/x/.condarc");
  CHECK(paths.back() == "/rc/custom.yml");
  // Unset variables drop their entries; --no-rc keeps only $CONDARC.
  CHECK(env::condarc_search_paths({}, "/h", "/w", env::SystemConfig::skip).size() == 7);
  vars["CONDA_RESTRICT_RC_SEARCH_PATH"] = "1";
  CHECK(env::condarc_search_paths(vars, "/h", "/w", env::SystemConfig::include) ==
        std::vector<std::string>{"/rc/custom.yml"});
}

TEST_CASE("envs dirs precedence: env var, condarc ($CONDARC first), root/envs, ~/.conda/envs") {
  ScratchDir t;
  make_conda_env(t / "root");
  write_file(t / "root/.condarc", "envs_dirs: [" + t / "f" + "]\n");
  write_file(t / "home/.config/conda/.condarc", "envs_dirs: [" + t / "e" + "]\n");
  write_file(t / "home/.condarc", "envs_dirs: [" + t / "c" + ", '~/tilde', '$PROJ/p']\n");
  write_file(t / "home/.conda/condarc.d/10-a.yml", "envs_dirs: [" + t / "d1" + "]\n");
  write_file(t / "home/.conda/condarc.d/20-b.yaml", "envs_dirs: [" + t / "d2" + "]\n");
  write_file(t / "home/.conda/condarc.d/30-c.txt", "envs_dirs: [/ignored]\n");
  write_file(t / "rc/my.yml", "envs_dirs: [" + t / "d" + ", " + t / "c" + "]\n");
  auto opts = options(t, {{"CONDA_ROOT", t / "root"}, {"CONDARC", t / "rc/my.yml"},
                          {"CONDA_ENVS_DIRS", t / "a" + ":" + ":" + t / "b"},
                          {"PROJ", t / "proj"}});
  auto ctx = sys::load_discovery_context(opts);
  CHECK(ctx.warnings.empty());
  CHECK(dir_paths(ctx.envs_dirs) ==
        std::vector<std::string>{t / "a", t / "b", t / "d", t / "c", t / "home/tilde",
                                 t / "proj/p", t / "d2", t / "d1", t / "e", t / "f",
                                 t / "root/envs", t / "home/.conda/envs"});
  CHECK(ctx.envs_dirs.dirs[0].origin == "CONDA_ENVS_DIRS");
  CHECK(ctx.envs_dirs.dirs[2].origin == t / "rc/my.yml");
  CHECK(ctx.envs_dirs.dirs[10].origin == "root");
  CHECK(ctx.envs_dirs.dirs[11].origin == "home");

  // A root whose conda-meta/history is not writable goes after ~/.conda/envs
  // (conda's root_writable); MAMBA_ROOT_PREFIX/envs always precedes it.
  env::DiscoveryInputs in;
  in.vars = {{"CONDA_ROOT", "/r"}, {"MAMBA_ROOT_PREFIX", "/m"}, {"CONDA_ENVS_PATH", "/p"}};
  in.home = "/h";
  in.cwd = "/w";
  in.read_only_roots = {"/r"};
  CHECK(dir_paths(env::envs_dirs(in)) ==
        std::vector<std::string>{"/p", "/m/envs", "/h/.conda/envs", "/r/envs"});
}

TEST_CASE("a broken .condarc is a warning naming file, line and column; the rest still works") {
  ScratchDir t;
  write_file(t / "home/.condarc", "channels:\n  - a\n envs_dirs: [\n");
  write_file(t / "home/.config/conda/.condarc", "envs_dirs: " + t / "x" + "\n");
  make_conda_env(t / "home/.conda/envs/good");
  auto ctx = sys::load_discovery_context(options(t));
  REQUIRE(ctx.warnings.size() == 2);
  CHECK(ctx.warnings[0].path == t / "home/.config/conda/.condarc");
  CHECK(ctx.warnings[0].message.find("is not a list") != std::string::npos);
  CHECK(ctx.warnings[1].path == t / "home/.condarc");
  CHECK(ctx.warnings[1].describe().find("invalid YAML at line 3, column") != std::string::npos);
  auto r = sys::select_env({"good", std::nullopt}, ctx);
  REQUIRE(r.ok());
  CHECK(r->prefix == t / "home/.conda/envs/good");
}

TEST_CASE("name lookup picks the first envs dir that has it, as conda does") {
  ScratchDir t;
  make_conda_env(t / "a/foo");
  make_conda_env(t / "b/foo");
  make_conda_env(t / "b/only-b");
  fs::create_directories(t / "a/half");  // a directory, not an env ...
  make_conda_env(t / "b/half");          // ... shadows the env behind it
  auto ctx = sys::load_discovery_context(
      options(t, {{"CONDA_ENVS_DIRS", t / "a:" + t / "b"}, {"CONDA_PREFIX", t / "b/foo"}}));
  auto foo = sys::select_env({"foo", std::nullopt}, ctx);
  REQUIRE(foo.ok());
  CHECK(*foo == env::EnvRecord{"foo", t / "a/foo", env::EnvKind::conda, "--name"});
  auto only_b = sys::select_env({"only-b", std::nullopt}, ctx);
  REQUIRE(only_b.ok());
  CHECK(only_b->prefix == t / "b/only-b");
  auto half = sys::select_env({"half", std::nullopt}, ctx);
  REQUIRE_FALSE(half.ok());
  CHECK(half.error().path == t / "a/half");
  CHECK(half.error().message.find("not an environment") == 0);
  // With no flag, $CONDA_PREFIX selects.
  auto active = sys::select_env({}, ctx);
  REQUIRE(active.ok());
  CHECK(*active == env::EnvRecord{"foo", t / "b/foo", env::EnvKind::conda, "CONDA_PREFIX"});
}

TEST_CASE("base is the first root prefix: CONDA_ROOT, CONDA_EXE's root, MAMBA_ROOT_PREFIX") {
  ScratchDir t;
  make_conda_env(t / "conda");
  make_conda_env(t / "mamba");
  auto by_exe = sys::load_discovery_context(
      options(t, {{"CONDA_EXE", t / "conda/bin/conda"}, {"MAMBA_ROOT_PREFIX", t / "mamba"}}));
  auto base = sys::select_env({"base", std::nullopt}, by_exe);
  REQUIRE(base.ok());
  CHECK(*base == env::EnvRecord{"base", t / "conda", env::EnvKind::conda, "--name"});
  auto root = sys::select_env({"root", std::nullopt}, by_exe);
  REQUIRE(root.ok());
  CHECK(root->prefix == t / "conda");

  auto mamba_only = sys::load_discovery_context(options(t, {{"MAMBA_ROOT_PREFIX", t / "mamba"}}));
  auto mbase = sys::select_env({"base", std::nullopt}, mamba_only);
  REQUIRE(mbase.ok());
  CHECK(*mbase == env::EnvRecord{"base", t / "mamba", env::EnvKind::micromamba, "--name"});
  // -p on a root prefix names it base too.
  auto by_path = sys::select_env({std::nullopt, t / "mamba/"}, mamba_only);
  REQUIRE(by_path.ok());
  CHECK(by_path->name == "base");

  auto none = sys::select_env({"base", std::nullopt}, sys::load_discovery_context(options(t)));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::bad_input);
}

TEST_CASE("kinds: conda, pixi, micromamba, venv, uv") {
  ScratchDir t;
  make_conda_env(t / "conda-root/envs/plain");
  make_conda_env(t / "proj/.pixi/envs/default");
  make_conda_env(t / "mamba/envs/mm");
  make_venv(t / "venv", "home = /usr/bin\ninclude-system-site-packages = false\n");
  make_venv(t / "uvenv", "home = /usr/bin\nimplementation = CPython\nuv = 0.4.30\n");
  auto opts = options(t, {{"CONDA_ROOT", t / "conda-root"}, {"MAMBA_ROOT_PREFIX", t / "mamba"}});
  opts.cwd = t / "proj/src/deeper";
  fs::create_directories(opts.cwd);
  auto ctx = sys::load_discovery_context(opts);
  auto kind_of = [&](const std::string& prefix) {
    auto r = sys::select_env({std::nullopt, prefix}, ctx);
    REQUIRE(r.ok());
    return r->kind;
  };
  CHECK(kind_of(t / "conda-root/envs/plain") == env::EnvKind::conda);
  CHECK(kind_of(t / "proj/.pixi/envs/default") == env::EnvKind::pixi);
  CHECK(kind_of(t / "mamba/envs/mm") == env::EnvKind::micromamba);
  CHECK(kind_of(t / "venv") == env::EnvKind::venv);
  CHECK(kind_of(t / "uvenv") == env::EnvKind::uv);
  CHECK(std::string(env::to_string(env::EnvKind::uv)) == "uv");
  // Relative -p is taken against cwd, lexically.
  auto rel = sys::select_env({std::nullopt, "../../.pixi/envs/default"}, ctx);
  REQUIRE(rel.ok());
  CHECK(rel->prefix == t / "proj/.pixi/envs/default");
  CHECK(rel->source == "--prefix");
  // Pure classification rules.
  std::vector<env::RootPrefix> roots{{"/m", env::RootOrigin::mamba_root_prefix}};
  CHECK(env::classify({true, std::nullopt}, "/m", roots) == env::EnvKind::micromamba);
  CHECK(env::classify({true, std::nullopt}, "/m/envs/a/b", roots) == env::EnvKind::conda);
  CHECK(env::classify({false, "uv=0.1"}, "/v", roots) == env::EnvKind::uv);
  CHECK(env::classify({false, "uvx = 1"}, "/v", roots) == env::EnvKind::venv);
  CHECK_FALSE(env::classify({false, std::nullopt}, "/v", roots).has_value());
}

TEST_CASE("selection errors: unknown name, missing path, non-env path, nothing selected") {
  ScratchDir t;
  fs::create_directories(t / "not-an-env/lib");
  make_conda_env(t / "envs/present");
  auto ctx = sys::load_discovery_context(options(t, {{"CONDA_ENVS_DIRS", t / "envs"}}));
  auto expect_bad = [&](const env::Selection& sel, const std::string& needle) {
    auto r = sys::select_env(sel, ctx);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::bad_input);
    CHECK(r.error().describe().find(needle) != std::string::npos);
    CHECK(r.error().describe().find('\n') == std::string::npos);
  };
  expect_bad({"missing", std::nullopt}, "no environment named 'missing' in the envs dirs (" +
                                            t / "envs, " + t / "home/.conda/envs)");
  expect_bad({std::nullopt, t / "nowhere"}, t / "nowhere: no such directory (from --prefix)");
  expect_bad({std::nullopt, t / "not-an-env"}, "not an environment");
  expect_bad({}, "no environment selected");
  expect_bad({"present", t / "envs/present"}, "cannot be used together");
  expect_bad({"a/b", std::nullopt}, "invalid environment name");
  expect_bad({"..", std::nullopt}, "invalid environment name");
  auto stale = sys::load_discovery_context(options(t, {{"CONDA_PREFIX", t / "gone"}}));
  auto r = sys::select_env({}, stale);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().describe() == t / "gone: no such directory (from CONDA_PREFIX)");
}

TEST_CASE("prefixes with spaces, $, ' and \" are taken literally") {
  ScratchDir t;
  const std::string odd = t / "we ird $HOME 'single' \"double\"";
  make_conda_env(odd + "/envs/my env");
  make_venv(odd + "/venv $x", "home = /usr/bin\n");
  // In an envs dir setting, $VARS are expanded ($NOPE is unset: kept as written).
  const std::string envs = t / "dir $NOPE 'q' \"dq\"";
  make_conda_env(envs + "/it's \"here\"");
  auto ctx = sys::load_discovery_context(
      options(t, {{"CONDA_ENVS_DIRS", envs}, {"VIRTUAL_ENV", odd + "/venv $x"}}));
  auto by_path = sys::select_env({std::nullopt, odd + "/envs/my env"}, ctx);
  REQUIRE(by_path.ok());
  CHECK(by_path->prefix == odd + "/envs/my env");
  CHECK(by_path->name == "my env");
  auto by_name = sys::select_env({"it's \"here\"", std::nullopt}, ctx);
  REQUIRE(by_name.ok());
  CHECK(by_name->prefix == envs + "/it's \"here\"");
  auto venv = sys::select_env({}, ctx);
  REQUIRE(venv.ok());
  CHECK(*venv == env::EnvRecord{"venv $x", odd + "/venv $x", env::EnvKind::venv, "VIRTUAL_ENV"});
}

TEST_CASE("list_envs: base first, envs dirs, environments.txt, pixi, VIRTUAL_ENV; deduplicated") {
  ScratchDir t;
  make_conda_env(t / "root");
  make_conda_env(t / "root/envs/zeta");
  make_conda_env(t / "root/envs/alpha");
  fs::create_directories(t / "root/envs/not-env");
  make_conda_env(t / "home/.conda/envs/user-env");
  make_conda_env(t / "elsewhere/registered");
  make_conda_env(t / "cwd/.pixi/envs/default");
  make_venv(t / "venv", "uv = 0.5.0\n");
  write_file(t / "home/.conda/environments.txt",
             "# envs\n" + t / "elsewhere/registered" + "\n" + t / "root/envs/alpha" + "\n" +
                 t / "deleted" + "\n\n");
  auto ctx = sys::load_discovery_context(options(
      t, {{"CONDA_ROOT", t / "root"}, {"VIRTUAL_ENV", t / "venv"}, {"CONDA_PREFIX", t / "root"}}));
  auto envs = sys::list_envs(ctx);
  std::vector<env::EnvRecord> expected{
      {"base", t / "root", env::EnvKind::conda, "root"},
      {"alpha", t / "root/envs/alpha", env::EnvKind::conda, "envs_dirs:" + t / "root/envs"},
      {"zeta", t / "root/envs/zeta", env::EnvKind::conda, "envs_dirs:" + t / "root/envs"},
      {"user-env", t / "home/.conda/envs/user-env", env::EnvKind::conda,
       "envs_dirs:" + t / "home/.conda/envs"},
      {"registered", t / "elsewhere/registered", env::EnvKind::conda, "environments.txt"},
      {"default", t / "cwd/.pixi/envs/default", env::EnvKind::pixi, "pixi"},
      {"venv", t / "venv", env::EnvKind::uv, "VIRTUAL_ENV"},
  };
  CHECK(envs == expected);
}

TEST_CASE("the pure core selects and lists from an in-memory inspector") {
  FakeInspector inspector;
  inspector.dirs = {"/r", "/r/envs", "/r/envs/a", "/h/.conda/envs", "/h/.conda/envs/b"};
  inspector.conda_envs = {"/r", "/r/envs/a", "/h/.conda/envs/b"};
  env::DiscoveryInputs in;
  in.vars = {{"CONDA_EXE", "/r/condabin/conda"}};
  in.home = "/h";
  in.cwd = "/";
  auto dirs = env::envs_dirs(in);
  CHECK(dir_paths(dirs) == std::vector<std::string>{"/r/envs", "/h/.conda/envs"});
  auto b = env::select_env({"b", std::nullopt}, in, dirs, inspector);
  REQUIRE(b.ok());
  CHECK(b->prefix == "/h/.conda/envs/b");
  auto all = env::list_envs(in, dirs, inspector);
  REQUIRE(all.size() == 3);
  CHECK(all[0].name == "base");
  CHECK(all[1].prefix == "/r/envs/a");
  CHECK(all[2].prefix == "/h/.conda/envs/b");
}

TEST_CASE("process options read the real environment and cwd, nothing else") {
  auto o = sys::process_discovery_options();
  REQUIRE_FALSE(o.cwd.empty());
  CHECK(o.cwd.front() == '/');
  CHECK(o.system == env::SystemConfig::include);
  if (const char* path = std::getenv("PATH")) CHECK(o.vars["PATH"] == path);
}

TEST_CASE("with nothing named, the active conda env ($CONDA_PREFIX) comes before a venv ($VIRTUAL_ENV)") {
  // A venv activated inside an activated conda env: conda's env is the one
  // whose activate.d hooks ran, so it is the env a bare command means.
  ScratchDir t;
  make_conda_env(t / "envs/active");
  make_venv(t / "venv", "home = /usr/bin\n");
  auto ctx = sys::load_discovery_context(options(t, {{"CONDA_PREFIX", t / "envs/active"}, {"VIRTUAL_ENV", t / "venv"}}));
  auto chosen = sys::select_env({}, ctx);
  REQUIRE(chosen.ok());
  CHECK(chosen->prefix == t / "envs/active");
  CHECK(chosen->source == "CONDA_PREFIX");
}

TEST_CASE("pixi: the names list shows select the workspace's envs; a bare command picks its default env") {
  ScratchDir t;
  make_conda_env(t / "proj/.pixi/envs/default");
  make_conda_env(t / "proj/.pixi/envs/cuda");
  auto opts = options(t);
  opts.cwd = t / "proj/src";
  fs::create_directories(opts.cwd);
  auto ctx = sys::load_discovery_context(opts);
  std::vector<std::string> listed;
  for (const auto& e : sys::list_envs(ctx)) listed.push_back(e.name);
  CHECK(listed == std::vector<std::string>{"cuda", "default"});
  for (const std::string name : {"default", "cuda"}) {
    auto by_name = sys::select_env({name, std::nullopt}, ctx);
    REQUIRE(by_name.ok());
    CHECK(by_name->prefix == t / ("proj/.pixi/envs/" + name));
    CHECK(by_name->kind == env::EnvKind::pixi);
  }
  auto bare = sys::select_env({std::nullopt, std::nullopt}, ctx);
  REQUIRE(bare.ok());
  CHECK(bare->prefix == t / "proj/.pixi/envs/default");
  CHECK(bare->source == "pixi");
  // An active env still wins; outside the workspace nothing is picked.
  make_conda_env(t / "other");
  opts.vars["CONDA_PREFIX"] = t / "other";
  auto active = sys::select_env({std::nullopt, std::nullopt}, sys::load_discovery_context(opts));
  REQUIRE(active.ok());
  CHECK(active->prefix == t / "other");
  auto outside = options(t);
  outside.cwd = t.path;
  auto none = sys::select_env({std::nullopt, std::nullopt}, sys::load_discovery_context(outside));
  CHECK_FALSE(none.ok());
  CHECK_FALSE(sys::select_env({"cuda", std::nullopt}, sys::load_discovery_context(outside)).ok());
}
