#include "app/undo.hpp"

#include <algorithm>


namespace condacuda::app {

bool UndoOutcome::left_something() const {
  return std::any_of(changes.changes.begin(), changes.changes.end(),
                     [](const repair::Change& c) { return c.action == repair::Change::Action::leave; }) ||
         std::any_of(changes.pins.begin(), changes.pins.end(),
                     [](const repair::PinChange& c) { return c.action == repair::PinChange::Action::leave; });
}

Result<UndoOutcome> undo(const env::EnvRecord& env) {
  // Even without a manifest: apply_undo removes what a killed run left.
  auto applied = apply_undo(env.prefix);
  if (!applied) return applied.error();
  return UndoOutcome{env, applied->changes, applied->had_manifest};
}

} // namespace condacuda::app
