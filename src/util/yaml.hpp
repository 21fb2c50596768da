#pragma once
// The one way condacuda reads YAML (lockfiles, manifests, release tables,
// .condarc files): text that a user or an env hands it, checked before and
// after yaml-cpp reads it, so that a hostile file gets a clear message and
// no more work than its size.
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "util/result.hpp"

namespace condacuda::util {

// The document in `text`. Errors (ErrorCode::corrupt; the caller adds the
// file's path):
//   "a NUL byte at line L, column C: not a text file"
//   "nested more than 64 levels deep at line L, column C"
//   "aliases expand past the size of the text (a YAML bomb): ..."
//   "invalid YAML at line L, column C: <yaml-cpp's words>"
//   "the key 'K' appears twice (line L, column C)" -- yaml-cpp keeps the
//     first silently; a lock or manifest with two `version:` is not one.
Result<YAML::Node> load_yaml(std::string_view text);

// "line L, column C" of a position yaml-cpp reports (0-based there).
std::string yaml_position(const YAML::Mark& mark);

} // namespace condacuda::util
