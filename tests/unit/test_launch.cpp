// launch/launch: what a launch of an env sees. The shell's value with and
// without the env's hook, where the hook's entries sit after other folders
// were put in front (module load after activation), and the launches a
// repair records.
#include <doctest/doctest.h>

#include "launch/hook_model.hpp"
#include "launch/launch.hpp"

using namespace condacuda;
using namespace condacuda::launch;

namespace {
const std::string RS(1, hook_record_separator), US(1, hook_field_separator);

// The shell after activating /env (hook adds /env/a:/env/b) from `before`.
ShellEnvironment activated_from(const PathValue& before) {
  HookEnvironment env = hook_activate({before, std::nullopt}, "/env", {"a", "b"});
  return {env.ld_library_path, env.state};
}
} // namespace

TEST_CASE("launch: a shell that activated the env, as it is, and its base without the hook") {
  const ShellEnvironment shell = activated_from(std::string("/opt/x"));
  const ShellState s = shell_for(shell, "/env");
  CHECK(s.ld_library_path == "/env/a:/env/b:/opt/x");
  CHECK(s.hook_entries == "/env/a:/env/b");
  CHECK(base_of(s) == "/opt/x");
  const HookPlacement placement = hook_placement(s);
  CHECK(placement.active);
  CHECK(placement.in_front.empty());
  // Not activated here: the base is the value as it is.
  const ShellState other = shell_for(shell, "/other");
  CHECK(base_of(other) == s.ld_library_path);
  CHECK_FALSE(hook_placement(other).active);
}

TEST_CASE("launch: folders put in front of the hook's entries after activation are named, in order") {
  ShellEnvironment shell = activated_from(std::nullopt);
  shell.ld_library_path = "/mod/cudnn/lib:/mod/cuda/lib64:" + *shell.ld_library_path;
  const ShellState s = shell_for(shell, "/env");
  const HookPlacement placement = hook_placement(s);
  CHECK(placement.active);
  CHECK(placement.in_front == std::vector<std::string>{"/mod/cudnn/lib", "/mod/cuda/lib64"});
  CHECK(base_of(s) == "/mod/cudnn/lib:/mod/cuda/lib64");
  // An empty entry in front (the current directory) is a folder in front too.
  shell.ld_library_path = ":/env/a:/env/b";
  CHECK(hook_placement(shell_for(shell, "/env")).in_front == std::vector<std::string>{""});
  // Entries that are no longer whole in the value: the hook is not active as it was.
  shell.ld_library_path = "/env/a:/mod:/env/b";
  CHECK_FALSE(hook_placement(shell_for(shell, "/env")).active);
  // A longer entry that only starts like the hook's is not the hook's.
  shell.ld_library_path = "/env/a:/env/bb";
  CHECK_FALSE(hook_placement(shell_for(shell, "/env")).active);
}

TEST_CASE("launch: recorded launches, once each, oldest dropped past the cap; unset and empty alike") {
  std::vector<PathValue> r = record_launch({}, std::string("/m"));
  r = record_launch(r, std::nullopt);
  r = record_launch(r, std::string("")); // empty is unset to ld.so: recorded once, as unset
  CHECK(r == std::vector<PathValue>{std::string("/m"), std::nullopt});
  r = record_launch(r, std::string("/m")); // again: where it was, once
  CHECK(r == std::vector<PathValue>{std::string("/m"), std::nullopt});
  CHECK(is_recorded(r, std::string("")));
  CHECK(is_recorded(r, std::string("/m")));
  CHECK_FALSE(is_recorded(r, std::string("/m:")));
  CHECK(record_launch(r, std::string("/n"), true) == std::vector<PathValue>{std::string("/n")});
  std::vector<PathValue> many;
  for (int i = 0; i < 20; ++i) many = record_launch(many, "/p" + std::to_string(i));
  CHECK(many.size() == max_recorded_launches);
  CHECK(many.front() == "/p4");
  CHECK(many.back() == "/p19");
  CHECK(describe(std::nullopt) == "(unset)");
  CHECK(describe(std::string("/a:/b")) == "'/a:/b'");
}
