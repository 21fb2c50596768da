#pragma once
// `condacuda repair` and `condacuda undo` output: text and JSON
// (condacuda.repair/1, condacuda.undo/1).
#include <optional>
#include <string>

#include "app/repair.hpp"
#include "app/undo.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

util::Json repair_json(const app::RepairOutcome& r);
std::string repair_text(const app::RepairOutcome& r, const Style& style);

util::Json undo_json(const app::UndoOutcome& u);
std::string undo_text(const app::UndoOutcome& u, const Style& style);

} // namespace condacuda::report
