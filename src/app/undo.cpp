#include "app/undo.hpp"

#include <algorithm>

#include "sys/repair_state.hpp"

namespace condacuda::app {

bool UndoOutcome::left_something() const {
  return std::any_of(changes.changes.begin(), changes.changes.end(),
                     [](const repair::Change& c) { return c.action == repair::Change::Action::leave; });
}

Result<UndoOutcome> undo(const env::EnvRecord& env) {
  auto manifest = sys::read_manifest(env.prefix);
  if (!manifest) return manifest.error();
  UndoOutcome outcome{env, {}, manifest->has_value()};
  if (!outcome.had_manifest) return outcome;
  auto applied = apply_undo(env.prefix);
  if (!applied) return applied.error();
  outcome.changes = applied->changes;
  return outcome;
}

} // namespace condacuda::app
