#include "app/base_ld_library_path.hpp"

#include <cstdlib>

namespace condacuda::app {

std::optional<std::string> BaseLdLibraryPath::value() const {
  if (given_) return value_;
  const char* current = std::getenv("LD_LIBRARY_PATH");
  return current ? std::optional<std::string>(current) : std::nullopt;
}

} // namespace condacuda::app
