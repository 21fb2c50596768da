// condacuda info [ENV] [--json]: the env's CUDA inventory.
#include "app/info.hpp"
#include "cli/commands.hpp"
#include "report/info_report.hpp"

namespace condacuda::cli {

Command add_info(CLI::App& root) {
  struct Args {
    EnvArgs env;
    OutputArgs out;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = root.add_subcommand("info", "Show the env's CUDA libraries: component, package, version, soname, CUDA major");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  return {sub, [args] {
            auto env = choose_env(args->env, args->out);
            if (!env) return int(exit_bad_input);
            auto inv = app::info(*env);
            if (!inv) return fail(inv.error(), args->out);
            if (args->out.json) return emit_document(report::info_json(*env, *inv), "ok", exit_ok);
            {
              const report::Style style = style_for(args->out);
              emit_text(report::info_text(*env, *inv, style), style);
            }
            return int(exit_ok);
          }};
}

} // namespace condacuda::cli
