// report/layout and doctor's command_line: the default text view's lines fit
// 100 columns (colour codes take none), a fix's commands come out alone, and
// a step of --json reads as the command the text view shows.
#include <doctest/doctest.h>

#include "doctor/findings.hpp"
#include "report/layout.hpp"
#include "util/strings.hpp"

using namespace condacuda;

namespace {
std::size_t widest(const std::string& text) {
  std::size_t widest = 0;
  for (const auto& line : util::split(text, "\n")) widest = std::max(widest, line.size());
  return widest;
}
} // namespace

TEST_CASE("wrap breaks at spaces with a hanging indent; a word longer than a line stays whole") {
  const std::string words = "the loader searches LD_LIBRARY_PATH before the library's own search path, "
                            "so the system copy is found first and the env's copy is never opened";
  const std::string out = report::wrap("  why    ", 9, words, 9, 60);
  CHECK(widest(out) <= 60);
  CHECK(out.find("\n         ") != std::string::npos); // continuation under the text, not the label
  CHECK(util::replace_all(util::replace_all(out, "\n         ", " "), "  why    ", "") == words + "\n");
  const std::string path = "/" + std::string(80, 'p') + "/libcusparse.so.12";
  const std::string alone = report::wrap("  error  ", 9, path + ": undefined symbol: x", 9, 60);
  CHECK(alone == "  error\n         " + path + ":\n         undefined symbol: x\n");
}

TEST_CASE("fit wraps a coloured line by the columns it shows, not its bytes") {
  const std::string green = "\x1b[32mok\x1b[0m";
  const std::string line = "  " + green + "  this shell: 13/13 files load  " + std::string(30, 'x') + " " + std::string(40, 'y');
  const std::string out = report::fit(line, 60);
  CHECK(out.find('\n') != std::string::npos);
  CHECK(out.find(green) != std::string::npos); // the colour codes are kept whole
  // 58 visible columns stay on one line, though the escapes make it longer in bytes.
  const std::string short_line = "  " + green + " " + std::string(53, 'z');
  CHECK(report::fit(short_line, 60) == short_line);
}

TEST_CASE("split_fix takes out every command that pastes; a bare tool name stays in the sentence") {
  auto fix = report::split_fix("install its CUDA 12 build: `pip uninstall -y cupy-cuda11x` then `pip install cupy-cuda12x`");
  REQUIRE(fix.commands.size() == 2);
  CHECK(fix.commands[0] == "pip uninstall -y cupy-cuda11x");
  CHECK(fix.prose == "install its CUDA 12 build: command 1 below then command 2 below");
  fix = report::split_fix("condacuda repair -p '/e'  (hooks and links)");
  CHECK(fix.commands == std::vector<std::string>{"condacuda repair -p '/e'"});
  CHECK(fix.prose == "the command below (hooks and links)");
  fix = report::split_fix("launch with `condacuda run` or `conda rename` it");
  CHECK(fix.commands.empty());
}

TEST_CASE("a step's command: pip's words quoted as the shell needs, repair's prefix always") {
  using doctor::FixAction;
  CHECK(doctor::command_line(FixAction{"pip-install", {"install", "--upgrade", "nvidia-nvjitlink-cu12>=12.1"}}) ==
        "pip install --upgrade 'nvidia-nvjitlink-cu12>=12.1'");
  CHECK(doctor::command_line(FixAction{"pip-install", {"install", "jax[cuda12]"}}) == "pip install 'jax[cuda12]'");
  CHECK(doctor::command_line(FixAction{"pip-uninstall", {"uninstall", "-y", "--user", "nvidia-nvjitlink-cu12"}}) ==
        "pip uninstall -y --user nvidia-nvjitlink-cu12");
  CHECK(doctor::command_line(FixAction{"repair", {"/envs/it's", "--pin"}}) == "condacuda repair -p '/envs/it'\\''s' --pin");
  CHECK(doctor::command_line(FixAction{"remove-path-entry", {"PYTHONPATH", "/x"}}).empty());
  CHECK(util::shell_word("").size() == 2);
  CHECK(util::shell_word("a b") == "'a b'");
}

TEST_CASE("a command too long for a line breaks at a space outside quotes, with a backslash that pastes") {
  const std::string prefix = "'/scratch/" + std::string(40, 'e') + " with space'";
  const std::string command = "condacuda run -p " + prefix + " -- python -c 'import torch'";
  const std::string out = report::command_block(command, 9, 80);
  CHECK(widest(out) <= 80);
  CHECK(out.find(prefix) != std::string::npos); // the quoted word whole
  CHECK(util::replace_all(util::replace_all(out, " \\\n             ", " "), "         ", "") == command + "\n");
  CHECK(report::command_block("pip install x", 4) == "    pip install x\n");
  CHECK(report::command_block("echo a\\ b", 0, 6) == "echo \\\n    a\\ b\n"); // an escaped space is no break
}

TEST_CASE("split_fix: a command after the variables it sets") {
  const auto fix = report::split_fix("LD_LIBRARY_PATH='/a b:/c' condacuda repair -p '/e' --pin  (why)");
  REQUIRE(fix.commands.size() == 1);
  CHECK(fix.commands[0] == "LD_LIBRARY_PATH='/a b:/c' condacuda repair -p '/e' --pin");
  CHECK(fix.prose == "the command below (why)");
  CHECK(report::split_fix("NOT_A_COMMAND=1 then words").commands.empty());
}
