// condacuda undo [ENV]: removes exactly what repair created, if unchanged.
#include "cli/commands.hpp"
#include "report/repair_report.hpp"
#include "sys/repair_io.hpp"

namespace condacuda::cli {

Command add_undo(CLI::App& app) {
  struct Args {
    EnvArgs env;
    OutputArgs out;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("undo", "Remove exactly what `condacuda repair` created in the env (if unchanged)");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  return {sub, [args] {
            auto env = select_env(args->env);
            if (!env) return int(exit_bad_input);
            auto manifest = sys::read_manifest(env->prefix);
            if (!manifest) {
              print_error(manifest.error().describe());
              return exit_code_for(manifest.error());
            }
            report::UndoOutcome outcome{*env, {}, manifest->has_value()};
            if (outcome.had_manifest) {
              auto applied = sys::apply_undo(env->prefix);
              if (!applied) {
                print_error(applied.error().describe());
                return exit_code_for(applied.error());
              }
              outcome.changes = applied->changes;
            }
            if (args->out.json) emit(report::undo_json(outcome).dump() + "\n");
            else emit(report::undo_text(outcome, style_for(args->out)));
            bool left = std::any_of(outcome.changes.changes.begin(), outcome.changes.changes.end(),
                                    [](const repair::Change& c) { return c.action == repair::Change::Action::leave; });
            return left ? int(exit_problems) : int(exit_ok);
          }};
}

} // namespace condacuda::cli
