// condacuda lock [ENV] [-o FILE] [--json]: the env's lockfile.
// condacuda lock --check FILE [ENV] [--json]: does the env still match it?
#include <iostream>

#include "app/lock.hpp"
#include "cli/commands.hpp"
#include "report/lock_report.hpp"

namespace condacuda::cli {

namespace {
struct LockArgs {
  EnvArgs env;
  OutputArgs out;
  std::string output, check, releases, driver;
  bool no_cache = false, verbose = false;
};

// The lock of the env as it is now; nullopt after printing why (exit 2).
std::optional<app::LockedEnv> current_lock(const LockArgs& a, const env::EnvRecord& env, const lock::ReleaseTable& table) {
  app::LockOptions options{env, &table, {}, !a.no_cache};
  if (a.driver == "none") {
    options.driver.kind = app::DriverChoice::Kind::none;
  } else if (!a.driver.empty()) {
    auto driver = lock::parse_driver_version(a.driver, "--driver");
    if (!driver) {
      print_error("--driver: '" + a.driver + "' is not a driver version like 580.65.06 (or 'none')");
      return std::nullopt;
    }
    options.driver = {app::DriverChoice::Kind::given, *driver};
  }
  auto locked = app::lock_env(options);
  if (!locked) {
    print_error(locked.error().describe());
    return std::nullopt;
  }
  for (const auto& w : locked->warnings) print_warning(w);
  if (a.verbose) std::cerr << "condacuda: " << report::hash_stats_text(*locked) << "\n";
  return std::move(*locked);
}

int write_lock(const LockArgs& a, const app::LockedEnv& current) {
  if (auto complete = current.complete(); !complete) {
    print_error(complete.error().describe());
    return exit_code_for(complete.error());
  }
  std::string text;
  if (a.out.json) {
    text = report::lock_json(current.lock).dump() + "\n";
  } else {
    auto yaml = lock::render_lock(current.lock, CONDACUDA_VERSION);
    if (!yaml) {
      print_error(yaml.error().describe());
      return exit_code_for(yaml.error());
    }
    text = std::move(*yaml);
  }
  if (a.output.empty()) {
    emit(text);
    return exit_ok;
  }
  if (auto written = app::write_output(a.output, text); !written) {
    print_error(written.error().describe());
    return exit_code_for(written.error());
  }
  return exit_ok;
}

int check_lock(const LockArgs& a, const lock::Lockfile& locked, const env::EnvRecord& env, const app::LockedEnv& current) {
  lock::LockDiff diff = lock::diff_locks(locked, current.lock);
  if (a.out.json) emit(report::lock_check_json(diff, a.check, env).dump() + "\n");
  else {
    const report::Style style = style_for(a.out);
    emit_text(report::lock_check_text(diff, a.check, env.name, style), style);
  }
  return diff.matches() ? exit_ok : exit_problems;
}

int run_lock(const LockArgs& a) {
  std::optional<lock::Lockfile> locked;
  if (!a.check.empty()) {
    // The lock is read first: an unreadable one is exit 2 whatever the env.
    auto read = app::read_lock(a.check);
    if (!read) {
      print_error(read.error().describe());
      return exit_code_for(read.error());
    }
    locked = std::move(*read);
  }
  auto table = app::release_table(a.releases);
  if (!table) {
    print_error(table.error().describe());
    return exit_code_for(table.error());
  }
  auto env = choose_env(a.env);
  if (!env) return exit_bad_input;
  auto current = current_lock(a, *env, *table);
  if (!current) return exit_bad_input;
  return locked ? check_lock(a, *locked, *env, *current) : write_lock(a, *current);
}
} // namespace

Command add_lock(CLI::App& root) {
  auto args = std::make_shared<LockArgs>();
  CLI::App* sub = root.add_subcommand(
      "lock", "Write the env's CUDA lockfile (YAML), or check the env against one with --check FILE");
  add_env_args(sub, args->env);
  add_output_args(sub, args->out);
  auto* output = sub->add_option("-o,--output", args->output, "Write the lock to FILE (atomically) instead of stdout");
  auto* check = sub->add_option("--check", args->check,
                                "Compare the env with the lock in FILE: exit 0 matches, 1 drift (a diff), 2 unreadable lock");
  check->type_name("FILE");
  output->type_name("FILE")->excludes(check);
  sub->add_option("--releases", args->releases, "Release table to judge alignment with (default: the embedded one)")
      ->type_name("FILE");
  sub->add_option("--driver", args->driver,
                  "Assume this NVIDIA driver version (e.g. 580.65.06), or 'none'; default: /proc/driver/nvidia/version");
  sub->add_flag("--no-hash-cache", args->no_cache, "Read every file to hash it; neither use nor update the hash cache");
  sub->add_flag("-v,--verbose", args->verbose, "Say how many files were hashed or taken from the cache, and how long it took");
  return {sub, [args] { return run_lock(*args); }};
}

} // namespace condacuda::cli
