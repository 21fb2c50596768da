// condacuda run [ENV] -- CMD...: CMD with the LD_LIBRARY_PATH the env's hook
// gives (or would give: an unrepaired env gets the planned folders), for
// venvs, cron jobs, Jupyter kernels and pixi without link scripts.
#include "app/run.hpp"
#include "cli/commands.hpp"

namespace condacuda::cli {

namespace {
int exit_code_for(const app::RunFailure& failure) {
  switch (failure.kind) {
  case app::RunFailure::Kind::setup: return cli::exit_code_for(failure.error);
  case app::RunFailure::Kind::not_found: return 127; // the shell's conventions
  case app::RunFailure::Kind::not_executable: return 126;
  }
  return exit_internal;
}
} // namespace

Command add_run(CLI::App& root) {
  struct Args {
    EnvArgs env;
    bool print = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = root.add_subcommand("run", "Run a command with the env's CUDA folders first on LD_LIBRARY_PATH");
  add_env_args(sub, args->env);
  sub->add_flag("--print-ld-library-path", args->print, "Print the LD_LIBRARY_PATH CMD would get, run nothing");
  sub->footer("Usage: condacuda run [ENV] [-n NAME | -p PREFIX] -- COMMAND [ARGS...]");
  // Words after ENV without "--" are kept, to say what to do instead.
  sub->allow_extras();
  return {sub, [args, sub] {
            const std::vector<std::string>& command = passthrough_args();
            const bool env_twice = !args->env.env.empty() && (!args->env.name.empty() || !args->env.prefix.empty());
            if (auto extra = sub->remaining(); !extra.empty() || (env_twice && command.empty())) {
              std::string words;
              // With -n or -p, the first word was taken for ENV: it is the command.
              if (env_twice) words += " " + args->env.env;
              for (const auto& w : extra) words += " " + w;
              print_error("put -- before the command: condacuda run [ENV] --" + words);
              return int(exit_bad_input);
            }
            auto env = choose_env(args->env, OutputArgs{}); // no --json: run prints nothing of its own
            if (!env) return int(exit_bad_input);
            if (args->print) {
              auto value = app::run_ld_library_path(*env);
              if (!value) {
                print_error(value.error().describe());
                return exit_code_for(value.error());
              }
              emit(value->value_or("") + "\n");
              return int(exit_ok);
            }
            if (command.empty()) {
              print_error("give the command after --, e.g. condacuda run -p ENV -- python -c 'import torch'");
              return int(exit_bad_input);
            }
            app::RunFailure failure = app::run(*env, command);
            print_error(failure.error.describe());
            return exit_code_for(failure);
          }};
}

} // namespace condacuda::cli
