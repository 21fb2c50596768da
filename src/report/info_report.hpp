#pragma once
// `condacuda info` and `condacuda list` output: JSON (schemas
// condacuda.info/1, condacuda.list/1) and text.
#include <string>
#include <vector>

#include "env/discovery.hpp"
#include "inventory/inventory.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

util::Json env_json(const env::EnvRecord& env);
util::Json info_json(const env::EnvRecord& env, const inventory::Inventory& inv);
std::string info_text(const env::EnvRecord& env, const inventory::Inventory& inv, const Style& style);

struct ListRow {
  env::EnvRecord env;
  std::string cuda;   // "none", "12", "13", "mixed", or "?" when the scan failed
  std::string health; // "ok", "fails", "-" (not checked)
};
util::Json list_json(const std::vector<ListRow>& rows);
std::string list_text(const std::vector<ListRow>& rows, const Style& style);

} // namespace condacuda::report
