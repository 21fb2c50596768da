// condacuda kernel install [ENV] --kernel-name N: a Jupyter kernelspec for the env
// that holds from the start (its argv starts the env's python through
// `condacuda run`), as `ipykernel install --user` writes one.
#include "app/kernel_install.hpp"
#include "cli/commands.hpp"
#include "report/kernel_report.hpp"

namespace condacuda::cli {

Command add_kernel(CLI::App& root) {
  struct Args {
    EnvArgs env;
    OutputArgs out;
    std::string name;
    std::string display_name;
    bool sys_prefix = false;
    bool dry_run = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = root.add_subcommand("kernel", "Jupyter kernels of the env");
  sub->require_subcommand(1);
  CLI::App* install = sub->add_subcommand(
      "install", "Write a Jupyter kernelspec for the env that loads its CUDA libraries whatever the server's "
                 "LD_LIBRARY_PATH holds (the kernel starts through `condacuda run`)");
  add_env_args(install, args->env);
  add_output_args(install, args->out);
  // -n/--name names the env (as everywhere); the kernel's name has its own option.
  install->add_option("--kernel-name", args->name, "The kernel's name (letters, digits, '-', '.', '_')")->required();
  install->add_option("--display-name", args->display_name, "The name Jupyter shows (default: Python (ENV, condacuda))");
  install->add_flag("--sys-prefix", args->sys_prefix,
                    "Write into ENV/share/jupyter/kernels, not the user's Jupyter data dir");
  install->add_flag("--dry-run", args->dry_run, "Show the kernelspec and its verdict, write nothing");
  return {sub, [args] {
            auto env = choose_env(args->env, args->out);
            if (!env) return int(exit_bad_input);
            app::KernelInstallOptions options{*env, args->name, std::nullopt, args->sys_prefix, args->dry_run};
            if (!args->display_name.empty()) options.display_name = args->display_name;
            auto outcome = app::install_kernel(options);
            if (!outcome) return fail(outcome.error(), args->out);
            return emit_result(args->out, report::kernel_install_rendering(*outcome),
                               outcome->loads_everywhere() ? exit_ok : exit_problems);
          }};
}

} // namespace condacuda::cli
