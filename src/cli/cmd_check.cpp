// condacuda check [ENV] [--json] [--quick] [--python] [--timeout S] [--device N]
#include "app/check.hpp"
#include "cli/commands.hpp"
#include "report/check_report.hpp"

namespace condacuda::cli {

namespace {
int exit_code_for(check::Outcome o) {
  switch (o) {
  case check::Outcome::pass: return exit_ok;
  case check::Outcome::no_gpu: return exit_no_gpu;
  case check::Outcome::fail: return exit_problems;
  }
  return exit_problems;
}
} // namespace

Command add_check(CLI::App& root) {
  struct Args {
    EnvArgs env;
    OutputArgs out;
    bool as_is = false;
    bool quick = false;
    bool python = false;
    int device = 0;
    double timeout = 120;
    std::optional<std::string> ld_library_path;
    bool unset_llp = false;
    std::string link_only;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = root.add_subcommand(
      "check", "Prove the GPU stack computes: the env's own libraries, loaded in a child with the activated environment");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  sub->add_flag("--as-is", args->as_is,
                "Check the env as this shell has it; by default an env without condacuda's hook gets the folders "
                "`condacuda repair` would add, as `condacuda run` gives them");
  sub->add_flag("--quick", args->quick, "Smallest sizes (1024^3 GEMMs, 64 MiB copy): a smoke test, not a measurement");
  sub->add_flag("--python", args->python, "Also import the env's frameworks (torch, jax, cupy) and run one op each");
  sub->add_option("--device", args->device, "CUDA device ordinal (after CUDA_VISIBLE_DEVICES)")->check(CLI::NonNegativeNumber);
  sub->add_option("--timeout", args->timeout, "Seconds before a child is killed")->check(CLI::PositiveNumber);
  sub->add_option("--ld-library-path", args->ld_library_path,
                  "Assume this base LD_LIBRARY_PATH instead of this shell's ('' means set but empty)");
  sub->add_flag("--no-ld-library-path", args->unset_llp, "Assume LD_LIBRARY_PATH is unset");
  sub->add_option("--link-only", args->link_only, "Tests: link the check's PTX for this arch (sm_90), no driver")
      ->group("");
  return {sub, [args] {
            auto env = choose_env(args->env, args->out);
            if (!env) return int(exit_bad_input);
            app::CheckOptions options;
            options.env = *env;
            options.ld_library_path = base_ld_library_path(args->ld_library_path, args->unset_llp);
            options.as_is = args->as_is;
            options.quick = args->quick;
            options.python = args->python;
            options.device = args->device;
            options.timeout_s = args->timeout;
            options.link_only_arch = args->link_only;
            auto report = app::check(options);
            if (!report) return fail(report.error(), args->out);
            const int code = exit_code_for(report->outcome);
            return emit_result(args->out, report::check_rendering(*report, code), code);
          }};
}

} // namespace condacuda::cli
