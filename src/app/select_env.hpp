#pragma once
// The env a command works on, chosen like conda chooses it: a name, a prefix,
// else $CONDA_PREFIX, else $VIRTUAL_ENV (env/discovery.hpp has the rules).
#include <optional>
#include <string>
#include <vector>

#include "env/discovery.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// As given on the command line; empty strings are absent.
struct EnvRequest {
  std::string env;    // positional ENV: a path (contains '/', or is . or ..) or a name
  std::string name;   // -n/--name
  std::string prefix; // -p/--prefix
};

struct EnvChoice {
  std::vector<Error> warnings;       // unreadable or broken conda configuration
  std::optional<env::EnvRecord> env; // the chosen env, or
  std::optional<Error> error;        // why none was (bad_input, one line)
  // With an error of selection (not of usage): the envs there are.
  std::optional<std::vector<env::EnvRecord>> found;
};

EnvChoice select_env(const EnvRequest& request);

} // namespace condacuda::app
