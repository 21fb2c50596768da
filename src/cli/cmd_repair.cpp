// condacuda repair [ENV] [--dry-run] [--json] [--pin|--no-pin] [--forget-launches] [--shells sh,fish,csh] [--post-link]
#include "app/repair.hpp"
#include "cli/commands.hpp"
#include "report/repair_report.hpp"
#include "util/strings.hpp"

namespace condacuda::cli {

namespace {
struct RepairArgs {
  EnvArgs env;
  OutputArgs out;
  bool dry_run = false;
  bool post_link = false;
  bool pin = false, no_pin = false;
  bool forget_launches = false;
  std::vector<std::string> launches;
  std::string shells = "sh,fish,csh";
};

Result<std::vector<repair::Shell>> parse_shells(const std::string& list) {
  std::vector<repair::Shell> shells;
  for (const auto& name : util::split(list, ",")) {
    if (name == "sh" || name == "bash" || name == "zsh") shells.push_back(repair::Shell::posix);
    else if (name == "fish") shells.push_back(repair::Shell::fish);
    else if (name == "csh" || name == "tcsh") shells.push_back(repair::Shell::csh);
    else return make_error(ErrorCode::bad_input, "unknown shell '" + name + "' (sh, fish, csh)");
  }
  if (std::find(shells.begin(), shells.end(), repair::Shell::posix) == shells.end())
    shells.insert(shells.begin(), repair::Shell::posix); // conda, micromamba and pixi all source .sh
  return shells;
}

int exit_code_for(const app::RepairOutcome& o) {
  switch (o.status) {
  case app::RepairStatus::error: return cli::exit_code_for(*o.error);
  case app::RepairStatus::cannot_repair:
  case app::RepairStatus::conflict: return exit_problems;
  case app::RepairStatus::repaired:
  case app::RepairStatus::unchanged:
  case app::RepairStatus::nothing_to_do:
  case app::RepairStatus::would_repair: return exit_ok;
  }
  return exit_internal;
}

int repair_command(const RepairArgs& args) {
  auto env = choose_env(args.env, args.out);
  auto shells = parse_shells(args.shells);
  if (args.post_link) {
    app::post_link(args.env.prefix, env, shells, report::post_link_message);
    return exit_ok; // a failing post-link makes conda roll the whole install back
  }
  if (!env) return exit_bad_input;
  if (!shells) return fail(shells.error(), args.out, exit_bad_input);
  std::optional<bool> pin;
  if (args.pin || args.no_pin) pin = args.pin;
  std::vector<std::optional<std::string>> launches; // launch::PathValue
  for (const auto& l : args.launches) launches.emplace_back(l == "unset" ? std::nullopt : std::optional(l));
  auto outcome = app::repair({*env, *shells, args.dry_run, pin, args.forget_launches, launches});
  for (const auto& w : outcome.warnings) print_warning(w);
  if (outcome.error) return fail(*outcome.error, args.out, exit_code_for(outcome));
  return emit_result(args.out, report::repair_rendering(outcome), exit_code_for(outcome));
}
} // namespace

Command add_repair(CLI::App& root) {
  auto args = std::make_shared<RepairArgs>();
  CLI::App* sub = root.add_subcommand(
      "repair", "Fix the env durably: activation hooks that put its CUDA folders first, symlinks for RUNPATH");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  sub->add_flag("--dry-run", args->dry_run, "Plan and verify, write nothing");
  auto* pin = sub->add_flag("--pin", args->pin,
                            "Also make the env load without activation (Jupyter, cron, srun): the DT_RUNPATH of the "
                            "libraries LD_LIBRARY_PATH would shadow becomes DT_RPATH (kept by later repairs)");
  sub->add_flag("--no-pin", args->no_pin, "Do not pin (and take back the pins of an earlier repair)")->excludes(pin);
  sub->add_flag("--forget-launches", args->forget_launches,
                "Verify and record only this shell's launch, not the LD_LIBRARY_PATH values earlier repairs recorded "
                "(their pins stay unless --no-pin)");
  sub->add_option("--launch", args->launches,
                  "Also verify and record this LD_LIBRARY_PATH launch (repeatable; 'unset' for none): a partition's "
                  "module path, the launches `condacuda fleet` found on the nodes");
  sub->add_option("--shells", args->shells, "Hook flavours to write: sh (always), fish, csh")->capture_default_str();
  sub->add_flag("--post-link", args->post_link,
                "For conda link scripts: never fail, say what happened in $PREFIX/.messages.txt, print nothing");
  return {sub, [args] { return repair_command(*args); }};
}

} // namespace condacuda::cli
