#include "app/base_ld_library_path.hpp"

#include "sys/shell_environment.hpp"

namespace condacuda::app {

std::optional<std::string> BaseLdLibraryPath::value() const {
  if (given_) return value_;
  return sys::shell_environment().ld_library_path;
}

} // namespace condacuda::app
