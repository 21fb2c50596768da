#pragma once
// Text templates (templates/hooks/*.in, templates/lock-header.txt): @NAME@
// placeholders replaced by values.
#include <span>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace condacuda::util {

// Template expansion: every @NAME@ (NAME = [A-Z0-9_]+) is replaced by its value in one
// pass (values are not scanned again); an '@' not starting such a name stays as is.
// An @NAME@ without a value is an internal error naming source_name.
struct Placeholder {
  std::string_view name;
  std::string_view value;
};
Result<std::string> expand_placeholders(std::string_view text, std::span<const Placeholder> values,
                                        std::string_view source_name);

} // namespace condacuda::util
