// condacuda run [ENV] -- CMD...: CMD with the LD_LIBRARY_PATH the env's hook
// gives (or would give: an unrepaired env gets the planned folders), for
// venvs, cron jobs, Jupyter kernels and pixi without link scripts.
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "cli/commands.hpp"
#include "repair/activation.hpp"
#include "repair/plan.hpp"
#include "sys/doctor_inputs.hpp"
#include "sys/file_view.hpp"
#include "sys/hook_state.hpp"

namespace condacuda::cli {

Command add_run(CLI::App& app) {
  struct Args {
    EnvArgs env;
    std::vector<std::string> command;
    bool print = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("run", "Run a command with the env's CUDA folders first on LD_LIBRARY_PATH");
  add_env_args(sub, args->env);
  sub->add_flag("--print-ld-library-path", args->print, "Print the LD_LIBRARY_PATH CMD would get, run nothing");
  sub->footer("Usage: condacuda run [ENV] [-n NAME | -p PREFIX] -- COMMAND [ARGS...]");
  return {sub, [args] {
            args->command = passthrough_args();
            auto env = select_env(args->env);
            if (!env) return int(exit_bad_input);
            if (args->command.empty() && !args->print) {
              print_error("give the command after --, e.g. condacuda run -p ENV -- python -c 'import torch'");
              return int(exit_bad_input);
            }
            // The hook's folders; without a hook, the folders repair would plan.
            std::vector<std::string> folders;
            auto hook = sys::read_hook_state(env->prefix);
            if (hook.installed) {
              folders = hook.folders;
            } else {
              auto inputs = sys::doctor_inputs(sys::DoctorRequest{*env, std::nullopt}, sys::process_file_view());
              if (!inputs) {
                print_error(inputs.error().describe());
                return exit_code_for(inputs.error());
              }
              folders = repair::plan_repair(*inputs, sys::process_file_view()).folder_paths();
            }
            std::vector<std::string> abs;
            for (const auto& f : folders) abs.push_back(env->prefix + "/" + f);
            const char* current = std::getenv("LD_LIBRARY_PATH");
            auto value = repair::activate_ld_library_path(current ? std::optional<std::string>(current) : std::nullopt, abs,
                                                          sys::active_hook_entries(env->prefix));
            if (args->print) {
              emit((value ? *value : std::string()) + "\n");
              return int(exit_ok);
            }
            if (value) ::setenv("LD_LIBRARY_PATH", value->c_str(), 1);
            std::vector<char*> argv;
            for (auto& a : args->command) argv.push_back(a.data());
            argv.push_back(nullptr);
            std::fflush(nullptr);
            ::execvp(argv[0], argv.data());
            int e = errno;
            print_error("cannot run " + args->command[0] + ": " + std::strerror(e));
            return e == ENOENT ? 127 : 126; // the shell's conventions
          }};
}

} // namespace condacuda::cli
