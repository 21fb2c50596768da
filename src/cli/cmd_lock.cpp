// condacuda lock [ENV] [-o FILE] [--json]: the env's lockfile.
// condacuda lock --check FILE [ENV] [--json]: does the env still match it, and load here?
#include <iostream>

#include "app/lock.hpp"
#include "cli/commands.hpp"
#include "report/lock_report.hpp"

namespace condacuda::cli {

namespace {
struct LockArgs {
  OutputArgs out;
  app::LockOptions options;
  bool no_cache = false, verbose = false;
};

int exit_code_for(const app::LockOutcome& o) {
  switch (o.status) {
  case app::LockStatus::locked: return exit_ok;
  case app::LockStatus::checked: return o.check->outcome == lock::CheckOutcome::matches ? exit_ok : exit_problems;
  case app::LockStatus::error: return cli::exit_code_for(*o.error);
  }
  return exit_internal;
}

int run_lock(LockArgs& a) {
  a.options.hash_cache = !a.no_cache;
  const app::LockOutcome outcome = app::lock(a.options);
  for (const auto& w : outcome.warnings) print_warning(w);
  if (a.verbose && outcome.current) std::cerr << "condacuda: " << report::hash_stats_text(*outcome.current) << "\n";
  if (outcome.error) return fail(*outcome.error, a.out, std::nullopt, outcome.envs_found);
  return emit_result(a.out, report::lock_rendering(outcome, a.options), exit_code_for(outcome));
}
} // namespace

Command add_lock(CLI::App& root) {
  auto args = std::make_shared<LockArgs>();
  CLI::App* sub = root.add_subcommand(
      "lock", "Write the env's CUDA lockfile (YAML), or check the env against one with --check FILE");
  add_env_args(sub, args->options.env);
  add_output_args(sub, args->out);
  auto* output = sub->add_option("-o,--output", args->options.output, "Write the lock to FILE (atomically) instead of stdout");
  auto* check = sub->add_option("--check", args->options.check,
                                "Compare the env with the lock in FILE and check it loads here: exit 0 matches and loads, 1 drift (a diff) "
                                "or a locked library that does not load with this LD_LIBRARY_PATH or a rule (driver) that fails "
                                "here, 2 unreadable lock");
  check->type_name("FILE");
  output->type_name("FILE")->excludes(check);
  sub->add_option("--releases", args->options.releases, "Release table to judge alignment with (default: the embedded one)")
      ->type_name("FILE");
  sub->add_option("--driver", args->options.driver,
                  "Assume this NVIDIA driver version (e.g. 580.65.06), or 'none'; default: /proc/driver/nvidia/version");
  sub->add_flag("--no-hash-cache", args->no_cache, "Read every file to hash it; neither use nor update the hash cache");
  sub->add_flag("-v,--verbose", args->verbose, "Say how many files were hashed or taken from the cache, and how long it took");
  return {sub, [args] { return run_lock(*args); }};
}

} // namespace condacuda::cli
