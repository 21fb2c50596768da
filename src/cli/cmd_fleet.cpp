// condacuda fleet [ENV] [--partition P]... [--nodes LIST] [--exclude LIST] [--check] [--timeout S]
//                 [--condacuda PATH] [--srun-arg ARG]... [--from FILE|DIR]... [--json]
#include "app/fleet.hpp"
#include "cli/commands.hpp"
#include "report/fleet_report.hpp"

namespace condacuda::cli {

static_assert(exit_no_answer == fleet::exit_no_answer, "README \"Exit codes\" and fleet/node_record.hpp agree");

Command add_fleet(CLI::App& root) {
  struct Args {
    EnvArgs env;
    OutputArgs out;
    app::FleetOptions options;
    std::optional<std::string> condacuda;
    std::string context;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = root.add_subcommand(
      "fleet", "Judge the env on every node of a Slurm partition (one srun) and group the nodes into classes");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  sub->add_option("--partition", args->options.partitions,
                  "Partition to judge (repeatable; default: the default partition)")
      ->delimiter(',');
  sub->add_option("--nodes", args->options.nodes, "Only these nodes, a Slurm hostlist (gpu[001-016])");
  sub->add_option("--exclude", args->options.exclude, "Leave out these nodes, a Slurm hostlist");
  sub->add_flag("--check", args->options.check,
                "Also run `condacuda check` on each node (the GPU smoke kernels; pass the GPU request with --srun-arg)");
  sub->add_option("--timeout", args->options.timeout_s, "Seconds each node's condacuda may take (default 300)")
      ->check(CLI::Range(1.0, 86400.0));
  sub->add_option("--context", args->context,
                  "How the jobs launch the env: activated (the job script runs conda activate) or not-activated "
                  "(default: as this shell is, which srun passes on)")
      ->check(CLI::IsMember({"activated", "not-activated"}));
  sub->add_option("--condacuda", args->condacuda,
                  "condacuda's path on the nodes (default: this binary's, which must be on a shared file system)");
  sub->add_option("--srun-arg", args->options.srun_args,
                  "An argument for srun, as it is (repeatable): --account=A, --qos=Q, --gres=gpu:1, --reservation=R")
      ->allow_extra_args(false);
  sub->add_option("--from", args->options.from,
                  "Aggregate node documents gathered another way instead (repeatable): files of `condacuda doctor "
                  "--json` documents or JSON Lines, or folders of them");
  return {sub, [args] {
            app::FleetOptions options = args->options;
            options.condacuda = args->condacuda;
            if (args->context == "activated") options.context = doctor::LaunchContext::activated;
            if (args->context == "not-activated") options.context = doctor::LaunchContext::not_activated;
            if (options.from.empty()) {
              auto env = choose_env(args->env, args->out);
              if (!env) return int(exit_bad_input);
              options.env = *env;
            }
            auto outcome = app::fleet(options);
            if (!outcome) return fail(outcome.error(), args->out);
            return emit_result(args->out, report::fleet_rendering(*outcome), outcome->fleet.exit_code);
          }};
}

} // namespace condacuda::cli
