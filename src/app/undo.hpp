#pragma once
// `condacuda undo`: removes exactly what repair created, when unchanged.
#include "app/repair_apply.hpp"
#include "env/discovery.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct UndoOutcome {
  env::EnvRecord env;
  repair::ChangeSet changes;
  bool had_manifest = false;
  // Something repair created was changed since and stays (reported).
  bool left_something() const;
};

// Errors: an unreadable or corrupt manifest; the env cannot be written.
Result<UndoOutcome> undo(const env::EnvRecord& env);

} // namespace condacuda::app
