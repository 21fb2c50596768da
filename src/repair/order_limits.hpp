#pragma once
// The plan's order limits: where no search path repair controls gives a
// soname one copy in a launch (repair::OrderLimit), found after planning; and
// whether an import-order error a verification meets is one of them (or a
// soname repair does not manage), so that it does not fail the plan.
#include <map>
#include <string>
#include <vector>

#include "doctor/findings.hpp"
#include "inventory/inventory.hpp"
#include "loader/file_system_view.hpp"
#include "repair/copies.hpp"
#include "repair/plan.hpp"

namespace condacuda::repair {

// `needs`: those of a simulation of the launch (activated or not) with the plan applied.
void add_order_limits(std::vector<OrderLimit>& out, bool activated, const Needs& needs,
                      const std::map<std::string, const inventory::Library*>& one_copy, const std::string& prefix);

// Whether an import-order error is one the plan explains in this launch.
bool order_explained(const doctor::Finding& f, const RepairPlan& plan, bool activated, const inventory::Inventory& inv,
                     const std::string& prefix, loader::FileSystemView& files);

} // namespace condacuda::repair
