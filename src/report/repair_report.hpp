#pragma once
// `condacuda repair` and `condacuda undo` output: text and JSON
// (condacuda.repair/1, condacuda.undo/1).
#include <optional>
#include <string>

#include "env/discovery.hpp"
#include "repair/changes.hpp"
#include "repair/plan.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

struct RepairOutcome {
  env::EnvRecord env;
  bool dry_run = false;
  repair::RepairPlan plan;
  std::vector<std::string> hooks; // hook files the plan writes
  repair::Verification verification;
  std::optional<repair::ChangeSet> changes;
  std::optional<std::string> failure; // why nothing was written
  std::optional<std::pair<int, int>> after; // doctor after applying: errors, warnings
  // "repaired", "unchanged", "would-repair", "cannot-repair", "conflict", "nothing-to-do", "error"
  std::string outcome;
};

util::Json repair_json(const RepairOutcome& r);
std::string repair_text(const RepairOutcome& r, const Style& style);

struct UndoOutcome {
  env::EnvRecord env;
  repair::ChangeSet changes;
  bool had_manifest = false;
};
util::Json undo_json(const UndoOutcome& u);
std::string undo_text(const UndoOutcome& u, const Style& style);

} // namespace condacuda::report
