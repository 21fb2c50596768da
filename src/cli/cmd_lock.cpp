// condacuda lock [ENV] [-o FILE] [--json]: the env's lockfile.
// condacuda lock --check FILE [ENV] [--json]: does the env still match it?
#include <cstdio>

#include "cli/commands.hpp"
#include "lock/diff.hpp"
#include "sys/lock_io.hpp"
#include "sys/mapped_file.hpp"

namespace condacuda::cli {

namespace {
struct LockArgs {
  EnvArgs env;
  OutputArgs out;
  std::string output, check, releases, driver;
  bool no_cache = false, verbose = false;
};

// The release table: --releases FILE or the embedded one. nullopt after printing why.
std::optional<lock::ReleaseTable> release_table(const LockArgs& a) {
  Result<lock::ReleaseTable> table = a.releases.empty() ? lock::embedded_release_table() : [&]() -> Result<lock::ReleaseTable> {
    auto text = sys::read_text_file(a.releases);
    if (!text) return text.error();
    return lock::parse_release_table(*text, a.releases);
  }();
  if (!table) {
    print_error("release table: " + table.error().describe());
    return std::nullopt;
  }
  return std::move(*table);
}

// The lock of the env as it is now; nullopt after printing why (exit 2).
std::optional<sys::LockedEnv> current_lock(const LockArgs& a, const env::EnvRecord& env, const lock::ReleaseTable& table) {
  sys::LockRequest request{env, &table, std::nullopt, a.no_cache ? "" : sys::default_hash_cache_path()};
  if (a.driver == "none") request.driver = std::optional<lock::DriverVersion>();
  else if (!a.driver.empty()) {
    auto driver = lock::parse_driver_version(a.driver, "--driver");
    if (!driver) {
      print_error("--driver: '" + a.driver + "' is not a driver version like 580.65.06 (or 'none')");
      return std::nullopt;
    }
    request.driver = driver;
  }
  auto result = sys::lock_env(request);
  if (!result) {
    print_error(result.error().describe());
    return std::nullopt;
  }
  for (const auto& w : result->warnings) print_warning(w);
  if (a.verbose) {
    const auto& s = result->stats;
    std::fprintf(stderr, "condacuda: hashed %zu files: %zu from the cache, %zu read (%.1f MB) in %.2f s\n", s.files,
                 s.from_cache, s.hashed, double(s.bytes_hashed) / 1e6, s.seconds);
  }
  return std::move(*result);
}

int write_lock(const LockArgs& a, const sys::LockedEnv& current) {
  // A lock with a file it could not hash would pin nothing for that file.
  if (!current.unhashed.empty()) {
    print_error("cannot lock: " + std::to_string(current.unhashed.size()) + " librar" +
                (current.unhashed.size() == 1 ? "y" : "ies") + " could not be read (see the warnings)");
    return exit_bad_input;
  }
  std::string text;
  if (a.out.json) {
    text = lock::lock_json(current.lock).dump() + "\n";
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
  if (auto status = sys::write_file_atomically(a.output, text); !status) {
    print_error(status.error().describe());
    return exit_bad_input;
  }
  return exit_ok;
}

int check_lock(const LockArgs& a, const lock::Lockfile& locked, const env::EnvRecord& env, const sys::LockedEnv& current) {
  lock::LockDiff diff = lock::diff_locks(locked, current.lock);
  if (a.out.json) {
    util::Json j = util::Json::object();
    j.set("schema", "condacuda.lock-check/1");
    j.set("lock", a.check);
    util::Json ej = util::Json::object();
    ej.set("name", env.name);
    ej.set("prefix", env.prefix);
    j.set("env", ej);
    const util::Json details = lock::diff_json(diff);
    for (const auto& [key, value] : details.as_object()) j.set(key, value);
    emit(j.dump() + "\n");
  } else {
    emit(lock::diff_text(diff, a.check, env.name, style_for(a.out)));
  }
  return diff.matches() ? exit_ok : exit_problems;
}

int run_lock(const LockArgs& a) {
  std::optional<lock::Lockfile> locked;
  if (!a.check.empty()) {
    // The lock is read first: an unreadable one is exit 2 whatever the env.
    auto text = sys::read_text_file(a.check);
    if (!text) {
      print_error("cannot read the lock: " + text.error().describe());
      return exit_bad_input;
    }
    auto parsed = lock::parse_lock(*text, a.check);
    if (!parsed) {
      print_error(parsed.error().describe());
      return exit_bad_input;
    }
    locked = std::move(*parsed);
  }
  auto table = release_table(a);
  if (!table) return exit_bad_input;
  auto env = select_env(a.env);
  if (!env) return exit_bad_input;
  auto current = current_lock(a, *env, *table);
  if (!current) return exit_bad_input;
  return locked ? check_lock(a, *locked, *env, *current) : write_lock(a, *current);
}
} // namespace

Command add_lock(CLI::App& app) {
  auto args = std::make_shared<LockArgs>();
  CLI::App* sub = app.add_subcommand(
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
