#include "lock/release_table.hpp"

namespace condacuda::lock {

Result<ReleaseTable> embedded_release_table() {
  // Built once a process (doctor asks once a launch context and once for GPU
  // coverage). A Result: callers that take a --releases FILE handle both alike.
  static const Result<ReleaseTable> table = compiled_release_table();
  return table;
}

} // namespace condacuda::lock
