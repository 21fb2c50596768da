#!/usr/bin/env bash
# Every shell script of the project passes shellcheck (with the project's
# .shellcheckrc, which follows each suite's lib.sh): the conda link scripts,
# the recipe's build script, the quick start and demo env, the sh hook
# templates as they are stored (the rendered hooks are linted by
# shell.hooks_lint), and every test script. The entry points are executable.
source "$(dirname "$0")/lib.sh"
command -v shellcheck > /dev/null || skip "shellcheck is not installed"
cd "$CONDACUDA_SOURCE_DIR"
mapfile -t scripts < <(find hooks packaging examples tests templates .ci -type f \
  \( -name '*.sh' -o -name '*.sh.in' -o -path .ci/run \) | sort)
[ "${#scripts[@]}" -gt 40 ] || fail "only ${#scripts[@]} scripts found"
shellcheck "${scripts[@]}"
for s in hooks/post-link.sh hooks/pre-unlink.sh packaging/conda/build.sh examples/quickstart.sh \
         examples/demo-env/build.sh tests/run.sh tests/install-deps.sh .ci/run; do
  [ -x "$s" ] || fail "not executable: $s"
done
# Under pipefail `producer | grep -q` fails at random: grep exits at its first
# match and the producer dies of SIGPIPE. Tests feed grep a finished string.
if grep -nE '^[^#]*\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q' "${scripts[@]}"; then
  fail "a producer piped into grep -q under pipefail (above): give grep a finished string (<<< \"\$(producer)\")"
fi
note "${#scripts[@]} scripts pass shellcheck"
