#include "util/embedded.hpp"

namespace condacuda::util {

std::optional<std::string_view> embedded_asset(std::string_view name) {
  for (const auto& asset : embedded_assets())
    if (asset.name == name) return asset.data;
  return std::nullopt;
}

} // namespace condacuda::util
