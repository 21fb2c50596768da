#pragma once
// Text assets embedded at build time (cmake/embed.cmake): templates and hooks.
#include <optional>
#include <span>
#include <string_view>

namespace condacuda::util {

struct EmbeddedAsset {
  std::string_view name; // path relative to the repository root, e.g. "templates/releases.yml"
  std::string_view data;
};

// Every embedded asset, in the order CMake listed them. Defined in generated code.
std::span<const EmbeddedAsset> embedded_assets();

// The asset with that name, or nullopt.
std::optional<std::string_view> embedded_asset(std::string_view name);

} // namespace condacuda::util
