// condacuda doctor [ENV] [--json] [--dot] [--ld-library-path VALUE]
#include "app/doctor.hpp"
#include "cli/commands.hpp"
#include "report/doctor_report.hpp"

namespace condacuda::cli {

Command add_doctor(CLI::App& root) {
  struct Args {
    EnvArgs env;
    OutputArgs out;
    bool verbose = false;
    std::optional<std::string> ld_library_path;
    bool unset_llp = false;
    std::string context;
    std::vector<std::string> gpus;
    std::optional<std::string> driver;
    std::optional<std::string> gpu_table;
    std::vector<std::string> imports;
    std::optional<std::string> glibc;
    bool no_cache = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = root.add_subcommand(
      "doctor", "Predict, without running anything, what the loader does with every CUDA library of the env");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  add_dot_flag(sub, args->out, "Print the dependency graph (Graphviz DOT), failing edges in red");
  sub->add_flag("-v,--verbose", args->verbose, "List every root, not only the failing ones");
  sub->add_option("--ld-library-path", args->ld_library_path,
                  "Assume this base LD_LIBRARY_PATH instead of this shell's ('' means set but empty)");
  sub->add_flag("--no-ld-library-path", args->unset_llp, "Assume LD_LIBRARY_PATH is unset");
  sub->add_option("--context", args->context,
                  "Judge one launch context only, its failures being errors: activated (a shell that ran conda "
                  "activate) or not-activated (Jupyter kernels, cron, srun, IDEs: LD_LIBRARY_PATH as it is, no hook)")
      ->check(CLI::IsMember({"activated", "not-activated"}));
  sub->add_option("--gpu", args->gpus,
                  "Judge whether the env has kernels for this GPU (repeatable): sm_XY, X.Y, a name (V100, A100, H100, "
                  "B200, RTX 5090...), or auto (this machine's GPUs)");
  sub->add_option("--driver", args->driver,
                  "Assume this NVIDIA driver version (e.g. 535.104.05) instead of the visible one");
  sub->add_option("--gpus", args->gpu_table, "GPU table to use (default: the embedded templates/gpus.yml)");
  sub->add_option("--imports", args->imports,
                  "Load these in this order in one process, as a script's imports do: files, or import names of "
                  "extension modules (demotorch._C); global:ITEM opens it RTLD_GLOBAL")
      ->delimiter(',');
  sub->add_option("--glibc", args->glibc,
                  "Model this glibc release (2.28 to 2.41) instead of this machine's: a node or a container image "
                  "with another");
  sub->add_flag("--no-cache", args->no_cache,
                "Check every file and folder again: neither read nor update the load-check, system folder, "
                "dist-info and result caches ($XDG_CACHE_HOME/condacuda/load-checks, system-folders, dist-info, "
                "results)");
  return {sub, [args] {
            auto env = choose_env(args->env, args->out);
            if (!env) return int(exit_bad_input);
            std::optional<doctor::LaunchContext> context;
            if (args->context == "activated") context = doctor::LaunchContext::activated;
            if (args->context == "not-activated") context = doctor::LaunchContext::not_activated;
            auto report = app::doctor({*env, base_ld_library_path(args->ld_library_path, args->unset_llp), context,
                                       args->gpus, args->driver, args->gpu_table, args->imports, args->glibc,
                                       !args->no_cache});
            if (!report) return fail(report.error(), args->out);
            for (const auto& w : report->inputs.inventory.warnings) print_warning(w);
            return emit_result(args->out, report::doctor_rendering(*report, args->verbose),
                               report->healthy() ? exit_ok : exit_problems);
          }};
}

} // namespace condacuda::cli
