#pragma once
// `condacuda fleet`: the classes of nodes as a table on one screen, each
// class's first error and fix; the condacuda.fleet/1 document with every
// class and every node's original documents (docs/json.md).
#include <string>

#include "app/fleet.hpp"
#include "report/rendering.hpp"
#include "util/json.hpp"

namespace condacuda::report {

// The head's outcome word for a fleet exit code: "healthy" (0), "problems"
// (1), "no-answer" (5), "no-gpu" (3, --check), "error" (2).
std::string fleet_outcome(int exit_code);

std::string fleet_text(const app::FleetOutcome& outcome, const Style& style);
util::Json fleet_json(const app::FleetOutcome& outcome);
Rendering fleet_rendering(const app::FleetOutcome& outcome);

} // namespace condacuda::report
