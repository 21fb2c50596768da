// condacuda list [--json]: the envs found, their kind and CUDA major.
#include "cli/commands.hpp"
#include "inventory/inventory.hpp"
#include "report/info_report.hpp"
#include "sys/env_discovery.hpp"
#include "sys/env_scan.hpp"

namespace condacuda::cli {

Command add_list(CLI::App& app) {
  auto out = std::make_shared<OutputArgs>();
  auto names = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("list", "List the envs found (conda, micromamba, pixi, venv) with their CUDA major");
  add_output_args(sub, *out);
  sub->add_flag("--names", *names, "Only the env names, one per line, without scanning (for shell completion)");
  return {sub, [out, names] {
            auto context = sys::load_discovery_context();
            if (*names) {
              std::string text;
              for (const auto& env : sys::list_envs(context)) text += env.name + "\n";
              emit(text);
              return int(exit_ok);
            }
            for (const auto& w : context.warnings) print_warning(w.describe());
            std::vector<report::ListRow> rows;
            for (const auto& env : sys::list_envs(context)) {
              report::ListRow row{env, "?", "-"};
              if (auto snapshot = sys::scan_env(env.prefix)) row.cuda = inventory::build_inventory(*snapshot).cuda_summary();
              rows.push_back(std::move(row));
            }
            if (out->json) emit(report::list_json(rows).dump() + "\n");
            else emit(report::list_text(rows, style_for(*out)));
            return int(exit_ok);
          }};
}

} // namespace condacuda::cli
