#pragma once
// `condacuda repair` and `condacuda undo` output: text and JSON
// (condacuda.repair/1, condacuda.undo/1).
#include <optional>
#include <string>

#include "app/repair.hpp"
#include "app/undo.hpp"
#include "report/rendering.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

util::Json repair_json(const app::RepairOutcome& r);
std::string repair_text(const app::RepairOutcome& r, const Style& style);

util::Json undo_json(const app::UndoOutcome& u);
std::string undo_text(const app::UndoOutcome& u, const Style& style);

// Outcome: the repair's status (app::to_string).
Rendering repair_rendering(const app::RepairOutcome& r);
// What a conda user must know after the post-link ran: one paragraph, or ""
// (quiet when the env was repaired already or needs nothing).
std::string post_link_message(const app::PostLinkOutcome& outcome);

// Outcome: "left-something", "undone" or "nothing-to-undo".
Rendering undo_rendering(const app::UndoOutcome& u);

} // namespace condacuda::report
