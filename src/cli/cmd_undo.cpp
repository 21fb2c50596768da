// condacuda undo [ENV]: removes exactly what repair created, if unchanged.
#include "app/undo.hpp"
#include "cli/commands.hpp"
#include "report/repair_report.hpp"

namespace condacuda::cli {

Command add_undo(CLI::App& root) {
  struct Args {
    EnvArgs env;
    OutputArgs out;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = root.add_subcommand("undo", "Remove exactly what `condacuda repair` created in the env (if unchanged)");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  return {sub, [args] {
            auto env = choose_env(args->env, args->out);
            if (!env) return int(exit_bad_input);
            auto outcome = app::undo(*env);
            if (!outcome) return fail(outcome.error(), args->out);
            return emit_result(args->out, report::undo_rendering(*outcome),
                               outcome->left_something() ? exit_problems : exit_ok);
          }};
}

} // namespace condacuda::cli
