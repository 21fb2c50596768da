// repair/hooks: quoting and the rendered file set; the hooks'
// state format and the pure model of the scripts (launch/hook_model), checked against
// the rendered sh hooks sourced by real bash (and dash) byte for byte. The scripts'
// behaviour in every shell is tested by tests/shell/test_hooks_*.sh.
#include <doctest/doctest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "launch/hook_model.hpp"
#include "launch/launch.hpp"
#include "repair/hooks.hpp"
#include "support/fixture.hpp"
#include "sys/repair_state.hpp"
#include "util/embedded.hpp"

using namespace condacuda;
using namespace condacuda::repair;
using namespace condacuda::launch;

namespace {

HookSpec cuda12_spec() {
  return HookSpec{{"lib/python3.11/site-packages/nvidia/cusparse/lib",
                   "lib/python3.11/site-packages/nvidia/nvjitlink/lib"},
                  "1.2.3"};
}

const RenderedFile* find_file(const std::vector<RenderedFile>& files, const std::string& path) {
  for (const auto& file : files)
    if (file.relative_path == path) return &file;
  return nullptr;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// `$(` (but not the arithmetic `$((`) or a backquote on a line that is not a comment.
bool has_command_substitution(const std::string& script) {
  std::size_t start = 0;
  while (start < script.size()) {
    std::size_t end = script.find('\n', start);
    if (end == std::string::npos) end = script.size();
    const std::string line = script.substr(start, end - start);
    start = end + 1;
    const std::size_t code = line.find_first_not_of(' ');
    if (code == std::string::npos || line[code] == '#') continue;
    if (line.find('`') != std::string::npos) return true;
    for (std::size_t at = line.find("$("); at != std::string::npos; at = line.find("$(", at + 1))
      if (at + 2 >= line.size() || line[at + 2] != '(') return true;
  }
  return false;
}

} // namespace

TEST_CASE("quote_posix: single quotes, ' written '\\''") {
  CHECK(quote_posix("") == "''");
  CHECK(quote_posix("lib/nvidia/cusparse/lib") == "'lib/nvidia/cusparse/lib'");
  CHECK(quote_posix("with space") == "'with space'");
  CHECK(quote_posix("it's") == R"('it'\''s')");
  CHECK(quote_posix("'") == R"(''\''')");
  CHECK(quote_posix(R"(d"q $HOME `x` back\slash !)") == R"('d"q $HOME `x` back\slash !')");
  CHECK(quote_posix("new\nline") == "'new\nline'");
}

TEST_CASE("quote_fish: single quotes, \\ and ' backslash-escaped") {
  CHECK(quote_fish("") == "''");
  CHECK(quote_fish("with space") == "'with space'");
  CHECK(quote_fish("it's") == R"('it\'s')");
  CHECK(quote_fish(R"(back\slash)") == R"('back\\slash')");
  CHECK(quote_fish(R"(trail\)") == R"('trail\\')");
  CHECK(quote_fish(R"(d"q $HOME (x) {a,b} *)") == R"('d"q $HOME (x) {a,b} *')");
  CHECK(quote_fish("new\nline") == "'new\nline'");
}

TEST_CASE("quote_csh: ' and ! leave the quotes, newline gets a backslash") {
  CHECK(quote_csh("") == "''");
  CHECK(quote_csh("with space") == "'with space'");
  CHECK(quote_csh("it's") == R"('it'\''s')");
  CHECK(quote_csh("!bang") == R"(''\!'bang')");
  CHECK(quote_csh(R"(a\!b)") == R"('a\'\!'b')");
  CHECK(quote_csh("new\nline") == "'new\\\nline'");
  CHECK(quote_csh(R"(d"q $HOME `x` back\slash)") == R"('d"q $HOME `x` back\slash')");
}

TEST_CASE("quote_for picks the shell's function") {
  CHECK(quote_for(Shell::posix, "a'b") == quote_posix("a'b"));
  CHECK(quote_for(Shell::fish, "a'b") == quote_fish("a'b"));
  CHECK(quote_for(Shell::csh, "a'b") == quote_csh("a'b"));
}

TEST_CASE("render_hooks writes activate.d and deactivate.d for each shell") {
  auto files = render_hooks(cuda12_spec(), {Shell::posix, Shell::fish, Shell::csh, Shell::posix});
  REQUIRE(files.ok());
  REQUIRE(files->size() == 6);
  const std::vector<std::string> expected = {
      "etc/conda/activate.d/condacuda.sh",   "etc/conda/deactivate.d/condacuda.sh",
      "etc/conda/activate.d/condacuda.fish", "etc/conda/deactivate.d/condacuda.fish",
      "etc/conda/activate.d/condacuda.csh",  "etc/conda/deactivate.d/condacuda.csh",
  };
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK((*files)[i].relative_path == expected[i]);
  CHECK(hook_relative_paths({Shell::posix, Shell::fish, Shell::csh}) == expected);
}

TEST_CASE("rendered hooks: version, entries in order, no placeholder, no absolute path") {
  auto files = render_hooks(cuda12_spec(), {all_shells().begin(), all_shells().end()});
  REQUIRE(files.ok());
  for (const auto& file : *files) {
    INFO(file.relative_path);
    CHECK(contains(file.content, "condacuda 1.2.3:"));
    for (const char* name : {"@ENTRIES@", "@TOOL_VERSION@", "@REMOVE_RECORD@", "@SHELLCHECK@", "@RS@", "@US@", "@FS@",
                             "@GS@"})
      CHECK_FALSE(contains(file.content, name));
    CHECK_FALSE(contains(file.content, "(template only)")); // the stored template's own lint lines
    CHECK(contains(file.content, "CONDACUDA_HOOK_STATE"));
  }
  const auto* sh = find_file(*files, "etc/conda/activate.d/condacuda.sh");
  REQUIRE(sh);
  CHECK(contains(sh->content, "\n    _condacuda=$CONDA_PREFIX/lib/python3.11/site-packages/nvidia/cusparse/lib:"
                              "$CONDA_PREFIX/lib/python3.11/site-packages/nvidia/nvjitlink/lib\n"));
  CHECK(contains(sh->content, "# shellcheck shell=sh disable=SC2086,SC2166,SC3013\n")); // plain folders: no quoting codes
  CHECK_FALSE(has_command_substitution(sh->content));
  CHECK(has_command_substitution("x=$(date)\n"));
  CHECK_FALSE(has_command_substitution("# `comment`\nn=$((n + 1))\n"));
  const auto* fish = find_file(*files, "etc/conda/activate.d/condacuda.fish");
  REQUIRE(fish);
  CHECK(contains(fish->content, "set -l new \"$prefix\"/'lib/python3.11/site-packages/nvidia/cusparse/lib' "
                                "\"$prefix\"/'lib/python3.11/site-packages/nvidia/nvjitlink/lib'\n"));
  const auto* csh = find_file(*files, "etc/conda/activate.d/condacuda.csh");
  REQUIRE(csh);
  CHECK(contains(csh->content, "set _condacuda_new = ${_condacuda_prefix:q}/'lib/python3.11/site-packages/nvidia/cusparse/lib':"
                               "${_condacuda_prefix:q}/'lib/python3.11/site-packages/nvidia/nvjitlink/lib'\n"));
  // Deactivation scripts do not need the folders: they take out what activation recorded.
  for (const char* path : {"etc/conda/deactivate.d/condacuda.sh", "etc/conda/deactivate.d/condacuda.fish",
                           "etc/conda/deactivate.d/condacuda.csh"}) {
    const auto* deactivate = find_file(*files, path);
    REQUIRE(deactivate);
    CHECK_FALSE(contains(deactivate->content, "cusparse"));
  }
}

TEST_CASE("sh hooks: the common case is the first command, which ends the sourcing") {
  HookSpec spec{{"lib/python3.12/site-packages/nvidia/cusparse/lib", "lib/python3.12/site-packages/nvidia/nvjitlink/lib",
                 "lib/python3.12/site-packages/nvidia/cublas/lib"},
                "1.2.3"};
  auto files = render_hooks(spec, {Shell::posix});
  REQUIRE(files.ok());
  for (const auto& file : *files) {
    INFO(file.relative_path);
    // The fast path comes before the header comment: the shell reads nothing else
    // when it returns there, and nothing below it returns.
    const std::size_t header = file.content.find("\n# condacuda 1.2.3: ");
    REQUIRE(header != std::string::npos);
    const std::string fast = file.content.substr(0, header + 1);
    CHECK(fast.starts_with("# shellcheck shell=sh"));
    CHECK_FALSE(contains(fast, "\n#"));
    CHECK((fast.ends_with("return\nesac\n") || fast.ends_with("|| return 0\nesac\n")));
    std::istringstream below(file.content.substr(header));
    for (std::string line; std::getline(below, line);)
      if (const auto code = line.find_first_not_of(' '); code != std::string::npos && line[code] != '#')
        CHECK_FALSE(contains(line, "return"));
  }
  // Three folders under one long directory: it is written once, and the staleness
  // test of the fast path reuses it (the wheels' namespace folder is the one watched).
  CHECK(contains((*files)[0].content,
                 "\n  _condacuda=$CONDA_PREFIX/lib/python3.12/site-packages/nvidia\n  export CONDACUDA_HOOK_STATE="));
  CHECK(contains((*files)[0].content, "LD_LIBRARY_PATH=$_condacuda/cusparse/lib:$_condacuda/nvjitlink/lib:$_condacuda/cublas/lib"
                                      "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n"
                                      "  [ \"$_condacuda\" -nt \"$CONDA_PREFIX/etc/condacuda\" -o ! -d \"$CONDA_PREFIX/etc/condacuda\" ] || return 0\nesac\n"));
}

TEST_CASE("watched_folders: the wheels' namespace folder, CUDA 13's shared folder, any other folder itself") {
  const std::string sp = "lib/python3.12/site-packages/";
  CHECK(watched_folders({sp + "nvidia/cusparse/lib", sp + "nvidia/nvjitlink/lib"}) ==
        std::vector<std::string>{sp + "nvidia"});
  CHECK(watched_folders({sp + "nvidia/cu13/lib"}) == std::vector<std::string>{sp + "nvidia/cu13/lib"});
  CHECK(watched_folders({"lib", sp + "nvidia/cublas/lib", "targets/x86_64-linux/lib"}) ==
        std::vector<std::string>{"lib", sp + "nvidia", "targets/x86_64-linux/lib"});
  // Not a wheel's <package>/lib: watched as it is.
  CHECK(watched_folders({sp + "nvidia/cusparse/lib/extra", sp + "torch/lib"}) ==
        std::vector<std::string>{sp + "nvidia/cusparse/lib/extra", sp + "torch/lib"});
}

TEST_CASE("sh hooks: one staleness test for every watched folder, its line in the slow part") {
  HookSpec spec{{"lib", "lib/python3.12/site-packages/nvidia/cu13/lib"}, "1.2.3"};
  auto files = render_hooks(spec, {Shell::posix, Shell::fish, Shell::csh});
  REQUIRE(files.ok());
  const std::string& sh = (*files)[0].content;
  // "lib" holds both folders: it is the base.
  CHECK(contains(sh, "\n  _condacuda=$CONDA_PREFIX/lib\n"));
  CHECK(contains(sh, "LD_LIBRARY_PATH=$_condacuda:$_condacuda/python3.12/site-packages/nvidia/cu13/lib${"));
  CHECK(contains(sh, "\n  [ \"$_condacuda\" -nt \"$CONDA_PREFIX/etc/condacuda\" -o "
                     "\"$CONDA_PREFIX\"/lib/python3.12/site-packages/nvidia/cu13/lib -nt \"$CONDA_PREFIX/etc/condacuda\" -o ! -d "
                    "\"$CONDA_PREFIX/etc/condacuda\" ] || return 0\n"));
  CHECK(sh.starts_with("# shellcheck shell=sh disable=SC2086,SC2166,SC3013\n"));
  CHECK(contains(sh, "|| _condacuda='lib/python3.12/site-packages/nvidia/cu13/lib changed after the repair"));
  CHECK(contains((*files)[2].content, "if test -z \"$stale\"; and test \"$prefix\"/'lib' -nt \"$prefix/etc/condacuda\"\n"));
  CHECK(contains((*files)[2].content,
                 "set stale 'lib/python3.12/site-packages/nvidia/cu13/lib changed after the repair of this env\\'s CUDA libraries'\n"));
  CHECK(contains((*files)[4].content, "if ( -M ${_condacuda_prefix:q}/'lib' > -M $_condacuda_stamp:q ) then\n"));
  CHECK(contains((*files)[4].content, "set _condacuda_stale = 'lib/python3.12/site-packages/nvidia/cu13/lib changed after"));
}

TEST_CASE("the staleness line shows a folder's control bytes escaped, and the prefix as $CONDA_PREFIX") {
  // A wheel folder named with ESC and CR: the line on stderr must not carry
  // them raw (a terminal would act on them); the command it suggests must
  // not hold the prefix either (pasted, a $(...) in it would run).
  HookSpec spec{{"lib/py\x1b[31mthon3.12/site-packages/nvidia/cu\r13/lib"}, "1.2.3"};
  auto files = render_hooks(spec, {Shell::posix, Shell::fish, Shell::csh});
  REQUIRE(files.ok());
  const std::string& sh = (*files)[0].content;
  const auto line = sh.find("changed after the repair");
  REQUIRE(line != std::string::npos);
  const std::string message = sh.substr(sh.rfind("_condacuda=", line), line - sh.rfind("_condacuda=", line));
  CHECK(contains(message, "py\\x1b[31mthon3.12"));
  CHECK(message.find('\x1b') == std::string::npos);
  CHECK(message.find('\r') == std::string::npos);
  CHECK(contains(sh, "to update it: condacuda repair -p \"$CONDA_PREFIX\" (CONDACUDA_QUIET=1 hides this)\\n' \"$_condacuda\" >&2"));
  // fish and csh: the same escaping, done at render time (csh has no builtin for it).
  for (std::size_t at : {std::size_t{2}, std::size_t{4}}) {
    const std::string& hook = (*files)[at].content;
    const auto named = hook.find("thon3.12/site-packages/nvidia changed after the repair");
    REQUIRE(named != std::string::npos);
    const std::string shown = hook.substr(hook.rfind('\n', named), hook.find('\n', named) - hook.rfind('\n', named));
    CHECK(contains(shown, "x1b[31mthon3.12")); // fish doubles the backslash in its quotes
    CHECK(shown.find('\x1b') == std::string::npos);
  }
  CHECK(contains((*files)[4].content, "condacuda repair -p \"$CONDA_PREFIX\" (CONDACUDA_QUIET=1 hides this)' >>& /dev/stderr"));
}

TEST_CASE("render_hooks quotes awkward folders with each shell's function") {
  HookSpec spec{{"lib/it's", "lib/$x \"d\"\nnl!"}, "0.1.0"};
  auto files = render_hooks(spec, {Shell::posix, Shell::fish, Shell::csh});
  REQUIRE(files.ok());
  const std::string posix = "_condacuda=$CONDA_PREFIX/" + quote_posix(spec.folders[0]) + ":$CONDA_PREFIX/" +
                            quote_posix(spec.folders[1]);
  const std::string fish_words = "\"$prefix\"/" + quote_fish(spec.folders[0]) + " \"$prefix\"/" + quote_fish(spec.folders[1]);
  const std::string csh_word = "${_condacuda_prefix:q}/" + quote_csh(spec.folders[0]) + ":${_condacuda_prefix:q}/" +
                               quote_csh(spec.folders[1]);
  CHECK(contains((*files)[0].content, "\n    " + posix + "\n"));
  CHECK(contains((*files)[0].content, "# shellcheck shell=sh disable=SC2016,SC2086,SC2089,SC2090,SC2166,SC3013\n"));
  CHECK(contains((*files)[2].content, "set -l new " + fish_words + "\n"));
  CHECK(contains((*files)[4].content, "set _condacuda_new = " + csh_word + "\n"));
  // Plain characters stay unquoted in the sh word.
  auto plain = render_hooks({{"lib/a-b_c.d+e,f@g%h=i"}, "v"}, {Shell::posix});
  REQUIRE(plain.ok());
  CHECK(contains((*plain)[0].content, "\n  _condacuda=$CONDA_PREFIX/lib/a-b_c.d+e,f@g%h=i\n"));
  CHECK(contains((*plain)[0].content, "\n    _condacuda=$CONDA_PREFIX/lib/a-b_c.d+e,f@g%h=i\n"));
}

TEST_CASE("render_hooks rejects folders the hooks cannot express") {
  auto render_one = [](std::string folder) { return render_hooks({{std::move(folder)}, "v"}, {Shell::posix}); };
  CHECK(render_hooks({{}, "v"}, {Shell::posix}).error().code == ErrorCode::internal);
  CHECK(render_one("").error().code == ErrorCode::internal);
  CHECK(render_one("/usr/lib").error().code == ErrorCode::internal);
  CHECK(render_one("lib/../../etc").error().code == ErrorCode::internal);
  CHECK(render_one("..").error().code == ErrorCode::internal);
  CHECK(render_one(std::string("lib\0x", 5)).error().code == ErrorCode::internal);
  auto colon = render_one("lib/a:b");
  REQUIRE_FALSE(colon.ok());
  CHECK(colon.error().code == ErrorCode::unsupported);
  CHECK(colon.error().path == "lib/a:b");
  for (char c : {'\x1c', '\x1d', '\x1e', '\x1f'}) {
    auto separator = render_one(std::string("lib/a") + c + "b");
    REQUIRE_FALSE(separator.ok());
    CHECK(separator.error().code == ErrorCode::unsupported);
  }
  CHECK(render_one("lib/new\nline\ttab").ok()); // other control characters are name bytes
  CHECK(render_hooks({{"lib"}, "1.0\n# injected"}, {Shell::posix}).error().code == ErrorCode::internal);
  CHECK(render_one("lib/..x/y").ok()); // "..x" is a name, not a parent reference
}

TEST_CASE("every hook template is embedded") {
  for (const char* shell : {"sh", "fish", "csh"})
    for (const char* part : {"activate", "deactivate", "remove_record"}) {
      const std::string name = std::string("templates/hooks/") + part + "." + shell + ".in";
      INFO(name);
      CHECK(util::embedded_asset(name).has_value());
    }
}

// ---------------------------------------------------------------------------------
// The state format and the model of the scripts (launch/hook_model).
// ---------------------------------------------------------------------------------

namespace {

const std::string RS(1, '\x1e');
const std::string US(1, '\x1f');

} // namespace

TEST_CASE("hook state: records [US] RS prefix US entries, parsed and formatted") {
  const std::string state = US + RS + "/envs/a" + US + "/envs/a/lib:/envs/a/x" + RS + "/envs/b c" + US + "/envs/b c/lib";
  auto records = parse_hook_state(state);
  REQUIRE(records);
  REQUIRE(records->size() == 2);
  CHECK((*records)[0] == HookRecord{"/envs/a", true, "/envs/a/lib:/envs/a/x"});
  CHECK((*records)[1] == HookRecord{"/envs/b c", false, "/envs/b c/lib"});
  CHECK(format_hook_state(*records) == state);
  CHECK(hook_entries_for(state, "/envs/b c") == "/envs/b c/lib");
  CHECK(hook_entries_for(state, "/envs/a") == "/envs/a/lib:/envs/a/x");
  CHECK_FALSE(hook_entries_for(state, "/envs").has_value());
  CHECK(parse_hook_state("")->empty());
  for (const std::string& bad : {std::string("x"), RS + "/a", RS + US + "/a/lib", RS + "/a" + US, US + "/a" + US + "x",
                                US + US + RS + "/a" + US + "/a/lib", RS + "/a:b" + US + "/a:b/lib",
                                RS + "/a" + US + "/a/lib" + US})
    CHECK_FALSE(parse_hook_state(bad).has_value());
  CHECK(hook_accepts_prefix("/opt/env with space/$x'\"!"));
  for (const std::string& bad : {std::string(), std::string("/a:b"), std::string("/a\x1c"), std::string("/a\x1d"),
                                std::string("/a\x1e"), std::string("/a\x1f")})
    CHECK_FALSE(hook_accepts_prefix(bad));
}

TEST_CASE("launch::shell_for: what an env's hook added in this shell, from CONDACUDA_HOOK_STATE") {
  const std::string state = RS + "/e1" + US + "/e1/lib" + US + RS + "/e2" + US + "/e2/a:/e2/b";
  launch::ShellEnvironment environment{std::string("/e2/a:/e2/b:/e1/lib"), state};
  CHECK(launch::shell_for(environment, "/e2").hook_entries == "/e2/a:/e2/b");
  CHECK(launch::shell_for(environment, "/e1").hook_entries == "/e1/lib");
  CHECK_FALSE(launch::shell_for(environment, "/e3").hook_entries.has_value());
  CHECK(launch::shell_for(environment, "/e3").ld_library_path == "/e2/a:/e2/b:/e1/lib");
  environment.hook_state = "garbage";
  CHECK_FALSE(launch::shell_for(environment, "/e1").hook_entries.has_value());
  environment.hook_state.reset();
  CHECK_FALSE(launch::shell_for(environment, "/e1").hook_entries.has_value());
}

TEST_CASE("hook model: activation, re-sourcing, deactivation, stacking") {
  const std::vector<std::string> folders = {"lib/a", "lib/b"};
  HookEnvironment start{std::string("/usr/lib"), std::nullopt};
  HookEnvironment on = hook_activate(start, "/p", folders);
  CHECK(on.ld_library_path == "/p/lib/a:/p/lib/b:/usr/lib");
  CHECK(on.state == US + RS + "/p" + US + "/p/lib/a:/p/lib/b");
  CHECK(hook_activate(on, "/p", folders) == on); // sourced again: nothing changes
  CHECK(hook_deactivate(on, "/p") == start);
  CHECK(hook_deactivate(start, "/p") == start); // not active: nothing changes

  HookEnvironment unset_start{};
  HookEnvironment u = hook_activate(unset_start, "/p", folders);
  CHECK(u.ld_library_path == "/p/lib/a:/p/lib/b");
  CHECK(u.state == RS + "/p" + US + "/p/lib/a:/p/lib/b");
  CHECK(hook_deactivate(u, "/p") == unset_start);
  HookEnvironment empty_start{std::string(), std::nullopt};
  CHECK(hook_deactivate(hook_activate(empty_start, "/p", folders), "/p") == empty_start);

  // Stacked: B on A; deactivating A first (pixi's order does not matter) keeps B.
  HookEnvironment ab = hook_activate(on, "/q", {"lib"});
  CHECK(ab.ld_library_path == "/q/lib:/p/lib/a:/p/lib/b:/usr/lib");
  HookEnvironment b_only = hook_deactivate(ab, "/p");
  CHECK(b_only.ld_library_path == "/q/lib:/usr/lib");
  CHECK(b_only.state == US + RS + "/q" + US + "/q/lib");
  // Entries something else removed meanwhile: LD_LIBRARY_PATH stays, the record goes.
  HookEnvironment gone{std::string("/other"), on.state};
  CHECK(hook_deactivate(gone, "/p") == HookEnvironment{std::string("/other"), std::nullopt});
  // A prefix the hooks refuse changes nothing.
  CHECK(hook_activate(start, "/a:b", folders) == start);
  CHECK(hook_activate(start, "", folders) == start);
  // activate_ld_library_path is the LD_LIBRARY_PATH side of hook_activate.
  CHECK(activate_ld_library_path(on.ld_library_path, {"/p/lib/a", "/p/lib/b"}, std::string("/p/lib/a:/p/lib/b")) ==
        on.ld_library_path);
}

// ---------------------------------------------------------------------------------
// The model against the real scripts: the same steps in C++ and in a shell that
// sources the rendered hooks, compared byte for byte after every step.
// ---------------------------------------------------------------------------------

namespace {

struct Step {
  enum Kind { activate, deactivate, prepend, set_ld } kind;
  std::string arg; // the env's prefix, or the folder to prepend, or the value to set
};

struct Env {
  std::string prefix;
  std::vector<std::string> folders;
};

// The shell's path ("" when it is not installed): fixture::run does not search PATH.
std::string shell_path(const std::string& shell) {
  auto found = fixture::run({"/bin/sh", "-c", "command -v " + shell});
  if (found.status != 0 || found.out.empty()) return {};
  return found.out.substr(0, found.out.find('\n'));
}

// Runs the steps in `shell`, printing both variables after each ('s' value or 'u', then NUL).
std::vector<HookEnvironment> run_in_shell(const std::string& shell, const std::string& locale,
                                          const HookEnvironment& start, const std::vector<Step>& steps) {
  std::string script = "show() { if [ -n \"${LD_LIBRARY_PATH+x}\" ]; then printf 's%s\\0' \"$LD_LIBRARY_PATH\"; "
                       "else printf 'u\\0'; fi; if [ -n \"${CONDACUDA_HOOK_STATE+x}\" ]; then "
                       "printf 's%s\\0' \"$CONDACUDA_HOOK_STATE\"; else printf 'u\\0'; fi; }\n";
  std::map<std::string, std::optional<std::string>> vars = {
      {"LD_LIBRARY_PATH", start.ld_library_path}, {"CONDACUDA_HOOK_STATE", start.state}, {"CONDA_PREFIX", std::nullopt},
      {"LC_ALL", locale}, {"BASH_ENV", std::nullopt}, {"ENV", std::nullopt}};
  int n = 0;
  for (const auto& step : steps) {
    const std::string var = "T_" + std::to_string(++n);
    vars[var] = step.arg;
    switch (step.kind) {
    case Step::activate:
      script += "CONDA_PREFIX=$" + var + "; export CONDA_PREFIX; . \"$CONDA_PREFIX/etc/conda/activate.d/condacuda.sh\"\n";
      break;
    case Step::deactivate:
      script += "CONDA_PREFIX=$" + var + "; export CONDA_PREFIX; . \"$CONDA_PREFIX/etc/conda/deactivate.d/condacuda.sh\"\n";
      break;
    case Step::prepend:
      script += "LD_LIBRARY_PATH=$" + var + "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH\n";
      break;
    case Step::set_ld: script += "LD_LIBRARY_PATH=$" + var + "; export LD_LIBRARY_PATH\n"; break;
    }
    script += "show\n";
  }
  auto result = fixture::run({shell, "-c", "set -eu\n" + script}, vars);
  INFO(shell << " stderr: " << result.err);
  REQUIRE(result.status == 0);
  std::vector<HookEnvironment> seen;
  std::vector<std::optional<std::string>> fields;
  std::size_t pos = 0;
  while (pos < result.out.size()) {
    const std::size_t end = result.out.find('\0', pos);
    REQUIRE(end != std::string::npos);
    const std::string field = result.out.substr(pos, end - pos);
    fields.push_back(field[0] == 's' ? std::optional<std::string>(field.substr(1)) : std::nullopt);
    pos = end + 1;
  }
  REQUIRE(fields.size() == 2 * steps.size());
  for (std::size_t i = 0; i < fields.size(); i += 2) seen.push_back({fields[i], fields[i + 1]});
  return seen;
}

std::vector<HookEnvironment> run_model(const HookEnvironment& start, const std::vector<Step>& steps,
                                       const std::vector<Env>& envs) {
  std::vector<HookEnvironment> seen;
  HookEnvironment env = start;
  for (const auto& step : steps) {
    switch (step.kind) {
    case Step::activate:
      for (const auto& e : envs)
        if (e.prefix == step.arg) {
          // The LD_LIBRARY_PATH side must also be what activate_ld_library_path predicts,
          // given what this env's record says it added before (doctor and run use it).
          std::vector<std::string> absolute;
          for (const auto& f : e.folders) absolute.push_back(e.prefix + "/" + f);
          const auto added = env.state ? hook_entries_for(*env.state, e.prefix) : std::nullopt;
          const auto predicted = activate_ld_library_path(env.ld_library_path, absolute, added);
          env = hook_activate(env, e.prefix, e.folders);
          CHECK(env.ld_library_path == predicted);
        }
      break;
    case Step::deactivate: env = hook_deactivate(env, step.arg); break;
    case Step::prepend:
      env.ld_library_path = step.arg + (env.ld_library_path && !env.ld_library_path->empty() ? ":" + *env.ld_library_path : "");
      break;
    case Step::set_ld: env.ld_library_path = step.arg; break;
    }
    seen.push_back(env);
  }
  return seen;
}

} // namespace

TEST_CASE("the model and the rendered sh hooks agree byte for byte (bash, dash)") {
  fixture::TempDir dir("hooks-model");
  const std::vector<Env> envs = {
      {dir / "env A $x 'q' \"d\" é", {"lib/python3.11/site-packages/nvidia/cusparse/lib",
                                      "lib/python3.11/site-packages/nvidia/nvjitlink/lib",
                                      "lib/python3.11/site-packages/nvidia/cublas/lib"}},
      {dir / "envB", {"lib"}},
      {dir / "weird", {"lib/it's", "lib/$HOME dir", "lib/back\\slash", "lib/new\nline", "lib/*"}},
      {dir / "bad:prefix", {"lib"}},
  };
  for (const auto& e : envs) {
    auto files = render_hooks({e.folders, "test"}, {Shell::posix});
    REQUIRE(files.ok());
    for (const auto& f : *files) {
      std::filesystem::create_directories(std::filesystem::path(e.prefix + "/" + f.relative_path).parent_path());
      fixture::write_file(e.prefix + "/" + f.relative_path, f.content);
    }
  }
  const std::string& a = envs[0].prefix;
  const std::string& b = envs[1].prefix;
  const std::string& w = envs[2].prefix;
  using S = Step;
  const std::vector<std::vector<Step>> scenarios = {
      {{S::activate, a}, {S::activate, a}, {S::deactivate, a}},
      {{S::activate, a}, {S::deactivate, a}, {S::activate, a}, {S::deactivate, a}},
      {{S::activate, a}, {S::prepend, "/opt/module"}, {S::deactivate, a}},
      {{S::activate, a}, {S::activate, b}, {S::deactivate, b}, {S::activate, a}, {S::deactivate, a}},
      {{S::activate, a}, {S::activate, b}, {S::deactivate, a}, {S::deactivate, b}},
      {{S::activate, a}, {S::activate, b}, {S::activate, w}, {S::prepend, "/m"}, {S::deactivate, b},
       {S::activate, w}, {S::deactivate, w}, {S::deactivate, a}},
      {{S::activate, w}, {S::activate, w}, {S::deactivate, w}},
      {{S::activate, a}, {S::set_ld, "/replaced"}, {S::deactivate, a}},
      {{S::activate, a}, {S::set_ld, ""}, {S::activate, a}, {S::deactivate, a}},
      {{S::deactivate, a}, {S::activate, dir / "bad:prefix"}},
  };
  const std::vector<HookEnvironment> starts = {
      {}, {std::string(), std::nullopt}, {std::string("/usr/lib"), std::nullopt},
      {std::string("/opt/with space/lib:/usr/lib"), std::nullopt}, {std::string(":/usr/lib"), std::nullopt}};
  std::vector<std::string> shells;
  for (const char* name : {"bash", "dash"})
    if (auto path = shell_path(name); !path.empty()) shells.push_back(path);
  REQUIRE_FALSE(shells.empty());
  // bash's fast deactivation counts characters: with a UTF-8 locale é is one, in C two.
  for (const std::string locale : {"C", "C.UTF-8"})
  for (const auto& shell : shells)
    for (std::size_t s = 0; s < scenarios.size(); ++s)
      for (std::size_t st = 0; st < starts.size(); ++st) {
        INFO(shell << " (LC_ALL=" << locale << "), scenario " << s << ", start " << st);
        const auto expected = run_model(starts[st], scenarios[s], envs);
        const auto actual = run_in_shell(shell, locale, starts[st], scenarios[s]);
        REQUIRE(actual.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
          INFO("after step " << i);
          CHECK(actual[i].ld_library_path == expected[i].ld_library_path);
          CHECK(actual[i].state == expected[i].state);
        }
      }
}

TEST_CASE("not_activated_value: this shell's LD_LIBRARY_PATH without what the env's hook added here") {
  using condacuda::launch::not_activated_value;
  CHECK(not_activated_value(std::nullopt, std::nullopt) == std::nullopt);
  CHECK(not_activated_value(std::string("/sys/lib"), std::nullopt) == std::string("/sys/lib"));
  CHECK(not_activated_value(std::string("/env/a:/env/b:/sys/lib"), std::string("/env/a:/env/b")) ==
        std::string("/sys/lib"));
  CHECK(not_activated_value(std::string("/env/a"), std::string("/env/a")) == std::nullopt); // empty is unset to ld.so
  // Entries the hook did not add (moved since) stay.
  CHECK(not_activated_value(std::string("/sys/lib:/env/b"), std::string("/env/a:/env/b")) == std::string("/sys/lib:/env/b"));
}
