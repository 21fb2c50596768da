// condacuda lock [ENV] [-o FILE] [--json]: the env's lockfile.
// condacuda lock --check FILE [ENV] [--json]: does the env still match it, and load here?
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

// The lock of the env as it is now; nullopt after fail() said why (exit 2).
std::optional<app::LockedEnv> current_lock(const LockArgs& a, const env::EnvRecord& env, const lock::ReleaseTable& table) {
  app::LockOptions options{env, &table, {}, !a.no_cache};
  if (a.driver == "none") {
    options.driver.kind = app::DriverChoice::Kind::none;
  } else if (!a.driver.empty()) {
    auto driver = lock::parse_driver_version(a.driver, "--driver");
    if (!driver) {
      fail(make_error(ErrorCode::bad_input, "--driver: '" + a.driver + "' is not a driver version like 580.65.06 (or 'none')"),
           a.out, exit_bad_input);
      return std::nullopt;
    }
    options.driver = {app::DriverChoice::Kind::given, *driver};
  }
  auto locked = app::lock_env(options);
  if (!locked) {
    fail(locked.error(), a.out, exit_bad_input);
    return std::nullopt;
  }
  for (const auto& w : locked->warnings) print_warning(w);
  if (a.verbose) std::cerr << "condacuda: " << report::hash_stats_text(*locked) << "\n";
  return std::move(*locked);
}

// The YAML lock to -o FILE or stdout; with --json the document on stdout
// (and the YAML in FILE): the lockfile is YAML whatever the output format.
int write_lock(const LockArgs& a, const env::EnvRecord& env, const app::LockedEnv& current) {
  if (auto complete = current.complete(); !complete) return fail(complete.error(), a.out);
  auto yaml = lock::render_lock(current.lock, CONDACUDA_VERSION);
  if (!yaml) return fail(yaml.error(), a.out);
  if (!a.output.empty())
    if (auto written = app::write_output(a.output, *yaml); !written) return fail(written.error(), a.out);
  if (a.out.json)
    return emit_document(report::lock_json(current.lock, env, a.output),
                         current.lock.alignment.aligned ? "aligned" : "misaligned", exit_ok);
  if (a.output.empty()) emit(*yaml);
  return exit_ok;
}

int check_lock(const LockArgs& a, const lock::Lockfile& locked, const env::EnvRecord& env, const app::LockedEnv& current) {
  auto check = app::check_lock(locked, env, current);
  if (!check) return fail(check.error(), a.out);
  const int code = check->outcome == lock::CheckOutcome::matches ? exit_ok : exit_problems;
  if (a.out.json)
    return emit_document(report::lock_check_json(check->diff, a.check, env, check->loads), lock::to_string(check->outcome), code);
  const report::Style style = style_for(a.out);
  emit_text(report::lock_check_text(check->diff, a.check, env.name, style, check->loads), style);
  return code;
}

int run_lock(const LockArgs& a) {
  std::optional<lock::Lockfile> locked;
  if (!a.check.empty()) {
    // The lock is read first: an unreadable one is exit 2 whatever the env.
    auto read = app::read_lock(a.check);
    if (!read) return fail(read.error(), a.out);
    locked = std::move(*read);
  }
  auto table = app::release_table(a.releases);
  if (!table) return fail(table.error(), a.out);
  auto env = choose_env(a.env, a.out);
  if (!env) return exit_bad_input;
  auto current = current_lock(a, *env, *table);
  if (!current) return exit_bad_input;
  return locked ? check_lock(a, *locked, *env, *current) : write_lock(a, *env, *current);
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
                                "Compare the env with the lock in FILE and check it loads here: exit 0 matches and loads, 1 drift (a diff) "
                                "or a locked library that does not load with this LD_LIBRARY_PATH or a rule (driver) that fails "
                                "here, 2 unreadable lock");
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
