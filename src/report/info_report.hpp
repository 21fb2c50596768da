#pragma once
// `condacuda info` and `condacuda list` output: JSON (schemas
// condacuda.info/1, condacuda.list/1) and text.
#include <string>
#include <vector>

#include "app/info.hpp"
#include "env/discovery.hpp"
#include "inventory/inventory.hpp"
#include "report/document.hpp"
#include "report/rendering.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

util::Json info_json(const env::EnvRecord& env, const app::EnvInfo& info);
std::string info_text(const env::EnvRecord& env, const app::EnvInfo& info, const Style& style);

util::Json list_json(const std::vector<app::ListedEnv>& rows);
std::string list_text(const std::vector<app::ListedEnv>& rows, const Style& style);

// Outcome "ok" (both).
Rendering info_rendering(const env::EnvRecord& env, const app::EnvInfo& info);
Rendering list_rendering(const std::vector<app::ListedEnv>& rows);

// After a failed selection: the envs there are, to choose from (for stderr).
std::string envs_found_text(const std::vector<env::EnvRecord>& envs);

} // namespace condacuda::report
