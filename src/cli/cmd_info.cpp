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
            auto info = app::info(*env);
            if (!info) return fail(info.error(), args->out);
            return emit_result(args->out, report::info_rendering(*env, *info), exit_ok);
          }};
}

} // namespace condacuda::cli
