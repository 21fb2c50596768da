// repair/hooks: quoting, placeholder expansion and the rendered file set. The scripts'
// behaviour in real shells is tested by tests/shell/test_hooks_*.sh.
#include <doctest/doctest.h>

#include <array>
#include <string>

#include "repair/hooks.hpp"
#include "util/embedded.hpp"

using namespace condacuda;
using namespace condacuda::repair;

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

TEST_CASE("expand_placeholders replaces known names once and rejects unknown ones") {
  const std::array<Placeholder, 2> values = {{{"NAME", "x@OTHER@y"}, {"OTHER", "z"}}};
  auto done = expand_placeholders("a @NAME@ b @OTHER@", values, "t.in");
  REQUIRE(done.ok());
  CHECK(*done == "a x@OTHER@y b z"); // values are not scanned again

  // '@' that does not start @NAME@ stays: csh's `@ n = $n + 1`, "a@b", a lone '@'.
  auto literal = expand_placeholders("@ n = 1\nmail a@b.c @ @lower@ @", values, "t.in");
  REQUIRE(literal.ok());
  CHECK(*literal == "@ n = 1\nmail a@b.c @ @lower@ @");

  auto unknown = expand_placeholders("x @MISSING@ y", values, "templates/hooks/t.in");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::internal);
  CHECK(contains(unknown.error().message, "@MISSING@"));
  CHECK(unknown.error().path == "templates/hooks/t.in");
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

TEST_CASE("rendered hooks: version, quoted folders in order, no placeholder, no absolute path") {
  auto files = render_hooks(cuda12_spec(), {all_shells().begin(), all_shells().end()});
  REQUIRE(files.ok());
  for (const auto& file : *files) {
    INFO(file.relative_path);
    CHECK(contains(file.content, "condacuda 1.2.3:"));
    CHECK_FALSE(contains(file.content, "@FOLDERS@"));
    CHECK_FALSE(contains(file.content, "@TOOL_VERSION@"));
    CHECK_FALSE(contains(file.content, "@FIND_SLOT@"));
    CHECK_FALSE(contains(file.content, "@REMOVE_ENTRIES@"));
    CHECK(contains(file.content, "CONDACUDA_HOOK_"));
  }
  const auto* sh = find_file(*files, "etc/conda/activate.d/condacuda.sh");
  REQUIRE(sh);
  CHECK(contains(sh->content, "for _condacuda_folder in 'lib/python3.11/site-packages/nvidia/cusparse/lib' "
                              "'lib/python3.11/site-packages/nvidia/nvjitlink/lib'; do"));
  CHECK_FALSE(has_command_substitution(sh->content));
  CHECK(has_command_substitution("x=$(date)\n"));
  CHECK_FALSE(has_command_substitution("# `comment`\nn=$((n + 1))\n"));
  const auto* fish = find_file(*files, "etc/conda/activate.d/condacuda.fish");
  REQUIRE(fish);
  CHECK(contains(fish->content, "for folder in 'lib/python3.11/site-packages/nvidia/cusparse/lib' "
                                "'lib/python3.11/site-packages/nvidia/nvjitlink/lib'"));
  const auto* csh = find_file(*files, "etc/conda/activate.d/condacuda.csh");
  REQUIRE(csh);
  CHECK(contains(csh->content, "foreach _condacuda_folder ( 'lib/python3.11/site-packages/nvidia/cusparse/lib' "
                               "'lib/python3.11/site-packages/nvidia/nvjitlink/lib' )"));
  // Deactivation scripts do not need the folders: they take out what activation recorded.
  const auto* deactivate = find_file(*files, "etc/conda/deactivate.d/condacuda.sh");
  REQUIRE(deactivate);
  CHECK_FALSE(contains(deactivate->content, "cusparse"));
}

TEST_CASE("render_hooks quotes awkward folders with each shell's function") {
  HookSpec spec{{"lib/it's", "lib/$x \"d\"\nnl!"}, "0.1.0"};
  auto files = render_hooks(spec, {Shell::posix, Shell::fish, Shell::csh});
  REQUIRE(files.ok());
  const std::string posix_words = quote_posix(spec.folders[0]) + " " + quote_posix(spec.folders[1]);
  const std::string fish_words = quote_fish(spec.folders[0]) + " " + quote_fish(spec.folders[1]);
  const std::string csh_words = quote_csh(spec.folders[0]) + " " + quote_csh(spec.folders[1]);
  CHECK(contains((*files)[0].content, "in " + posix_words + "; do"));
  CHECK(contains((*files)[2].content, "in " + fish_words + "\n"));
  CHECK(contains((*files)[4].content, "( " + csh_words + " )"));
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
  CHECK(render_hooks({{"lib"}, "1.0\n# injected"}, {Shell::posix}).error().code == ErrorCode::internal);
  CHECK(render_one("lib/..x/y").ok()); // "..x" is a name, not a parent reference
}

TEST_CASE("every hook template is embedded") {
  for (const char* shell : {"sh", "fish", "csh"})
    for (const char* part : {"activate", "deactivate", "find_slot", "remove_entries"}) {
      const std::string name = std::string("templates/hooks/") + part + "." + shell + ".in";
      INFO(name);
      CHECK(util::embedded_asset(name).has_value());
    }
}
