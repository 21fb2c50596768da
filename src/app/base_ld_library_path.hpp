#pragma once
#include <optional>
#include <string>

namespace condacuda::app {

// The LD_LIBRARY_PATH a command assumes before the env's hook: this shell's
// (the default), or one given on the command line (--ld-library-path VALUE;
// --no-ld-library-path for unset). A given value is taken as not activated
// yet: what the hook recorded in this shell is not consulted.
class BaseLdLibraryPath {
public:
  static BaseLdLibraryPath this_shell() { return {}; }
  static BaseLdLibraryPath given(std::optional<std::string> value) {
    BaseLdLibraryPath b;
    b.given_ = true;
    b.value_ = std::move(value);
    return b;
  }
  bool is_given() const { return given_; }
  // The value when given (nullopt: unset); this process's otherwise.
  std::optional<std::string> value() const;

private:
  bool given_ = false;
  std::optional<std::string> value_;
};

} // namespace condacuda::app
