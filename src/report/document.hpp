#pragma once
// What every --json document shares (docs/json.md): the head every command's
// document starts with, the one `env` object, and the error document that
// stands for a command's output when it fails.
#include <optional>
#include <string>
#include <vector>

#include "env/discovery.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace condacuda::report {

// {name, prefix, kind}: the env, the same in every document.
util::Json env_json(const env::EnvRecord& env);

// `body` with its keys reordered to start as every document does: schema,
// env (where the command has one), outcome, exit_code; then the command's
// own fields in their order. `outcome` is the command's word for how it
// went (docs/json.md lists each command's words).
util::Json document(const util::Json& body, const std::string& outcome, int exit_code);

// condacuda.error/1: {schema, outcome "error", exit_code, error {code,
// message, path}, envs (the envs found, after a failed env selection, else
// absent)}.
util::Json error_json(const Error& error, int exit_code, const std::optional<std::vector<env::EnvRecord>>& envs_found);

} // namespace condacuda::report
