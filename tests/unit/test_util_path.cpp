// util/path: the lexical path helpers every layer shares.
#include <doctest/doctest.h>

#include <filesystem>
#include <vector>

#include "util/path.hpp"

using namespace condacuda::util;

TEST_CASE("base_name: the part after the last slash") {
  CHECK(base_name("lib/libcudart.so.12") == "libcudart.so.12");
  CHECK(base_name("/usr/lib/x86_64-linux-gnu") == "x86_64-linux-gnu");
  CHECK(base_name("libcudart.so.12") == "libcudart.so.12");
  CHECK(base_name("lib/") == "");
  CHECK(base_name("") == "");
}

TEST_CASE("dir_name: before the last slash; the root is its own folder; none without a slash") {
  CHECK(dir_name("/opt/env/lib/libx.so") == "/opt/env/lib");
  CHECK(dir_name("lib/libx.so") == "lib");
  CHECK(dir_name("/libx.so") == "/");
  CHECK(dir_name("/") == "/");
  CHECK(dir_name("libx.so") == "");
  CHECK(dir_name("") == "");
  CHECK(dir_name("a//b") == "a/"); // lexical: no normalisation
}

TEST_CASE("join_path: one slash between") {
  CHECK(join_path("/opt/conda", "envs") == "/opt/conda/envs");
  CHECK(join_path("/opt/conda/", "envs") == "/opt/conda/envs");
  CHECK(join_path("/", "envs") == "/envs");
  CHECK(join_path("", "envs") == "/envs");
  CHECK(join_path("/home/u", ".conda/envs") == "/home/u/.conda/envs");
}

TEST_CASE("lexically_normal: what std::filesystem's gives, for paths already normal and not") {
  const std::vector<std::string> paths = {
      "/", "//", "/a", "/a/b", "/a/b/", "/a//b", "/a/./b", "/a/../b", "/..", "/.", "/a/.", "/a/..", "/a/b/..",
      "a", "a/b", "./a", "../a", "", ".", "..", "/a/.b", "/a/b..", "/a/...", "/a/..b/c", "/usr/lib/x86_64-linux-gnu/libc.so.6",
      "/env/lib/python3.11/site-packages/nvidia/cu13/lib/../../cudnn/lib/libcudnn.so.9", "///a", "/a/b//"};
  for (const auto& p : paths) {
    CAPTURE(p);
    CHECK(lexically_normal(p) == std::filesystem::path(p).lexically_normal().string());
  }
}
