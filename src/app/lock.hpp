#pragma once
// `condacuda lock` and `lock --check`: the env's lockfile value (inventory,
// alignment verdict, file hashes through the cache), and what they read and
// write besides the env: the release table, a lock to check, the output file.
// `app::lock` is the command; the steps it chains are declared below it.
#include <optional>
#include <string>
#include <vector>

#include "app/select_env.hpp"
#include "env/discovery.hpp"
#include "lock/diff.hpp"
#include "lock/driver.hpp"
#include "lock/lockfile.hpp"
#include "sys/file_hashes.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// The driver the driver rule judges.
struct DriverChoice {
  enum class Kind { this_machine, none, given };
  Kind kind = Kind::this_machine; // /proc/driver/nvidia/version, when there is one
  lock::DriverVersion version;    // given: --driver VERSION
};

struct LockEnvOptions {
  env::EnvRecord env;
  const lock::ReleaseTable* table = nullptr;
  DriverChoice driver;
  bool hash_cache = true; // read and update the persistent hash cache
};

struct LockedEnv {
  lock::Lockfile lock;
  sys::HashStats stats;
  std::vector<std::string> warnings; // the scan's and the hashing's
  std::vector<std::string> unhashed; // libraries whose bytes could not be read (locked without sha256)
  std::vector<std::string> pinned;   // pinned libraries, locked with their original's sha256
  // A lock to write must pin every file: an error (bad_input) names how many could not be read.
  Status complete() const;
};

// Fails only when the env cannot be scanned at all (bad_input).
Result<LockedEnv> lock_env(const LockEnvOptions& options);

// `lock --check FILE`: "matches and loads here". The diff of the lock with
// the env now, then whether each locked library loads with this shell's
// LD_LIBRARY_PATH, judged by doctor's loader model exactly as a plain
// `condacuda doctor` judges it (its loader error findings; package findings
// such as misaligned are the lock's rules), and the rules that fail here (the
// driver rule, from `current`).
struct LockCheck {
  lock::LockDiff diff;
  lock::LoadsHere loads;
  lock::CheckOutcome outcome = lock::CheckOutcome::matches;
};
// Errors: doctor's (the env cannot be read; bad_input).
Result<LockCheck> check_lock(const lock::Lockfile& locked, const env::EnvRecord& env, const LockedEnv& current);

// `condacuda lock [-o FILE]` and `lock --check FILE`, as asked.
struct LockOptions {
  EnvRequest env;
  std::string check;    // --check FILE: compare the env with this lock; "": write the env's lock
  std::string output;   // -o FILE; "": the lock goes to stdout
  std::string releases; // --releases FILE; "": the embedded table
  std::string driver;   // --driver VERSION or "none"; "": this machine's
  bool hash_cache = true;
};

enum class LockStatus {
  locked,  // the env's lock rendered (and written to -o FILE)
  checked, // --check: compared (LockOutcome::check says matches, drift or does not load)
  error,   // LockOutcome::error
};

struct LockOutcome {
  LockStatus status = LockStatus::error;
  std::optional<Error> error;
  // With a failed selection of the env: the envs there are.
  std::optional<std::vector<env::EnvRecord>> envs_found;
  // In the order they arose: choosing the env, scanning and hashing it.
  std::vector<std::string> warnings;
  std::optional<env::EnvRecord> env;
  std::optional<LockedEnv> current; // the env's lock now, once made (its hashing figures even after a later error)
  std::string yaml;                 // locked: the lockfile
  std::optional<LockCheck> check;   // checked
};

// Reads the lock to check first (an unreadable one is exit 2 whatever the
// env), then the release table, then chooses the env, locks it, and writes or
// checks. Errors are values in the outcome.
LockOutcome lock(const LockOptions& options);

// `--releases FILE`, or the embedded table when `path` is empty. Errors (bad_input) say "release table: ...".
Result<lock::ReleaseTable> release_table(const std::string& path);

// The lock `lock --check FILE` compares with. Errors are bad_input: unreadable, not a condacuda lock.
Result<lock::Lockfile> read_lock(const std::string& path);

// `-o FILE`: written as sys::write_named_output writes a file the user names
// (a link followed, a device or FIFO written in place, never replaced).
// Errors are bad_input (the path given cannot be written).
Status write_output(const std::string& path, const std::string& text);

} // namespace condacuda::app
