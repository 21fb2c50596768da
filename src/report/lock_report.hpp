#pragma once
// `condacuda lock` and `lock --check` output: the document of `lock --json`
// (condacuda.lock/2: the env, the file the YAML lock was written to, and the
// lock's content; the YAML is the lockfile format, lock/lockfile.hpp), the
// check's verdict as text or JSON (condacuda.lock-check/1), and the hashing
// figures `lock -v` reports.
#include <string>

#include "app/lock.hpp"
#include "env/discovery.hpp"
#include "lock/diff.hpp"
#include "lock/lockfile.hpp"
#include "report/rendering.hpp"
#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

// `output`: the file the YAML lock was written to ("": none, the lock is only
// in the document). The lockfile's env name is env.name.
util::Json lock_json(const lock::Lockfile& lock, const env::EnvRecord& env, const std::string& output);

// "FILE: env 'NAME' matches ..." or a table of the changes; then, when it does
// not load here, a line per locked library that fails (the loader's first
// error, doctor's fix) and per rule that fails here; then the notes.
std::string lock_check_text(const lock::LockDiff& diff, const std::string& lock_name, const std::string& env_name,
                            const Style& style, const lock::LoadsHere& loads = {});
// condacuda.lock-check/1 (without schema's head fields outcome and exit_code,
// which cli adds): `matches` is outcome == matches; `loads_here` and `rules_here`.
util::Json lock_check_json(const lock::LockDiff& diff, const std::string& lock_path, const env::EnvRecord& env,
                           const lock::LoadsHere& loads = {});

// `lock`: the YAML lock as text (nothing when -o FILE has it), outcome
// "aligned" or "misaligned"; `lock --check`: the check, outcome matches,
// drift or does-not-load. For an outcome that is not an error.
Rendering lock_rendering(const app::LockOutcome& outcome, const app::LockOptions& options);

// "hashed N files: N from the cache, N read (N MB) in N s"
std::string hash_stats_text(const app::LockedEnv& locked);

} // namespace condacuda::report
