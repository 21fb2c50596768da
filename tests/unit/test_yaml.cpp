// util/yaml: every YAML file condacuda reads (locks, manifests, release
// tables, .condarc) goes through load_yaml, which refuses what yaml-cpp would
// accept silently or spend too much on.
#include <doctest/doctest.h>

#include <string>

#include "util/yaml.hpp"

using namespace condacuda;

namespace {
std::string error_of(const std::string& text) {
  auto loaded = util::load_yaml(text);
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().code == ErrorCode::corrupt);
  return loaded.error().message;
}
} // namespace

TEST_CASE("a well-formed document loads") {
  auto loaded = util::load_yaml("version: 1\nitems: [a, {b: [c]}]\nquoted: '[[[' # a comment [[[\n");
  REQUIRE(loaded.ok());
  CHECK((*loaded)["version"].as<int>() == 1);
  CHECK((*loaded)["quoted"].as<std::string>() == "[[[");
}

TEST_CASE("a duplicate key is an error with its position, at any depth") {
  CHECK(error_of("version: 1\nenv: a\nversion: 2\n") == "the key 'version' appears twice (line 3, column 1)");
  CHECK(error_of("components:\n  - path: a\n    path: b\n") == "the key 'path' appears twice (line 3, column 5)");
}

TEST_CASE("a NUL byte anywhere, quoted or escaped, is an error naming its place") {
  CHECK(error_of(std::string("version: 1\nenv: \"a\\\0b\"\n", 20)) == "a NUL byte at line 2, column 9: not a text file");
  CHECK(error_of(std::string("a\0", 2)) == "a NUL byte at line 1, column 2: not a text file");
}

TEST_CASE("nesting is bounded before yaml-cpp recurses into it") {
  CHECK(error_of("x: " + std::string(70, '[') + std::string(70, ']')) == "nested more than 64 levels deep at line 1, column 68");
  std::string block;
  for (int i = 0; i < 70; ++i) block += std::string(static_cast<std::size_t>(2 * i), ' ') + "k" + std::to_string(i) + ":\n";
  CHECK(error_of(block).find("nested more than 64 levels deep") == 0);
  CHECK(util::load_yaml("x: " + std::string(64, '[') + std::string(64, ']')).ok());
}

TEST_CASE("broken YAML: yaml-cpp's words with line and column") {
  CHECK(error_of("version: [1\n").find("invalid YAML at line 2, column 1: ") == 0);
}

TEST_CASE("aliases that multiply (a YAML bomb) are refused, in time linear in the text") {
  // Each level refers to the one before 10 times: 10^11 nodes behind 600 bytes.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i) {
    std::string ref = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", " : "") + ref;
    bomb += "]\n";
  }
  CHECK(error_of(bomb).find("aliases expand past the size of the text (a YAML bomb)") == 0);
}

TEST_CASE("a quote or '#' inside plain text hides no nesting") {
  std::string deep = std::string(70, '[') + std::string(70, ']');
  CHECK(error_of("a: it's " + deep).find("nested more than 64 levels deep") == 0);
  CHECK(error_of("a: b#" + deep).find("nested more than 64 levels deep") == 0);
}
