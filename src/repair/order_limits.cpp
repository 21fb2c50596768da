#include "repair/order_limits.hpp"

#include <algorithm>
#include <set>

#include "repair/plan_simulation.hpp"

namespace condacuda::repair {

// Where the plan cannot give a soname one copy: a requester whose own search
// reaches another env copy before anything repair controls (DT_RPATH, or
// without activation DT_RUNPATH, whose folder holds a package's real file),
// or no copy serves every requester. `needs` are those of a simulation of
// the launch with the plan applied.
void add_order_limits(std::vector<OrderLimit>& out, bool activated, const Needs& needs,
                      const std::map<std::string, const inventory::Library*>& one_copy, const std::string& prefix) {
  auto rel = [&](const std::string& path) { return path.rfind(prefix + "/", 0) == 0 ? path.substr(prefix.size() + 1) : path; };
  for (const auto& [soname, list] : needs) {
    auto chosen = one_copy.find(soname);
    if (chosen == one_copy.end()) {
      std::set<std::string> copies;
      for (const auto& n : list)
        if (!n.found.empty()) copies.insert(n.found);
      if (copies.size() < 2) continue;
      const Need& first = *std::find_if(list.begin(), list.end(), [](const Need& n) { return !n.found.empty(); });
      OrderLimit l{activated, soname, first.found, rel(first.requester),
                   "no copy of " + soname + " in the env defines every versioned symbol its consumers need"};
      l.no_single_copy = true;
      out.push_back(std::move(l));
      continue;
    }
    for (const auto& n : list) {
      if (n.found.empty() || n.found == chosen->second->file) continue;
      const bool own_search = n.via == loader::FoundVia::rpath || n.via == loader::FoundVia::exe_rpath ||
                              (!activated && n.via == loader::FoundVia::runpath);
      // Activated, the hook's folders lead to another copy only when they hold
      // each other's chosen copies (order_folders keeps path order in a cycle).
      const bool folder_cycle = activated && n.via == loader::FoundVia::ld_library_path;
      if (!own_search && !folder_cycle) continue;
      const bool known = std::any_of(out.begin(), out.end(), [&](const OrderLimit& l) {
        return l.activated == activated && l.soname == soname && l.copy == n.found;
      });
      if (known) continue;
      const std::string how = folder_cycle ? "the hook's folders find that copy first: two of them each hold the "
                                             "other's chosen copy of some soname, and no order puts both first"
                              : std::string("its own search path finds that copy first") + (activated ? ", before LD_LIBRARY_PATH" : "");
      out.push_back({activated, soname, n.found, rel(n.requester), how + "; the env's one copy is " + chosen->second->file});
    }
  }
}

// Whether an import-order error is one the plan explains: a soname repair
// does not manage (no env copy: libstdc++ between a conda and a pip
// package, say), or a limit of the plan in this launch, for this soname and
// the copy that was loaded first (by identity).
bool order_explained(const doctor::Finding& f, const RepairPlan& plan, bool activated, const inventory::Inventory& inv,
                     const std::string& prefix, loader::FileSystemView& files) {
  if (!provider_by_soname(inv, f.library)) return true;
  const auto& loaded = files.open_verify(normal(f.resolved));
  for (const auto& l : plan.order_limits) {
    if (l.activated != activated || l.soname != f.library) continue;
    if (l.no_single_copy) return true;
    const auto& copy = files.open_verify(l.copy.rfind('/', 0) == 0 ? l.copy : prefix + "/" + l.copy);
    if (copy.opened() && loaded.opened() && copy.dev == loaded.dev && copy.ino == loaded.ino) return true;
  }
  return false;
}

} // namespace condacuda::repair
