#!/usr/bin/env bash
# What users meet first, on the demo env: colour only on a terminal that can
# show it (a real pty through script(1): TERM=dumb and NO_COLOR turn it off,
# an empty NO_COLOR does not); list's REPAIR column through not repaired,
# repaired, stale (a wheel folder changed after the repair), and - (no CUDA);
# `check --python` on an env without python says so; doctor --glibc.
source "$(dirname "$0")/../gpu/lib.sh" # the e2e prelude and expect_check_status
command -v script > /dev/null || skip "no script(1) to give condacuda a terminal"
export HOME=$scratch/home XDG_CACHE_HOME=$scratch/cache CONDA_ENVS_DIRS=$scratch/envs
unset CONDA_ENVS_PATH CONDA_PREFIX VIRTUAL_ENV CONDA_ROOT CONDA_EXE MAMBA_ROOT_PREFIX NO_COLOR
mkdir -p "$HOME" "$scratch/envs"
demo_env "$scratch/demo"
mv "$env" "$scratch/envs/seed"
env=$scratch/envs/seed

# escapes VAR=VALUE...: how many lines of `condacuda info` on a pty carry an escape sequence.
escapes() {
  local status=0
  env "$@" script -qec "$(printf '%q ' "$CONDACUDA" info -p "$env")" /dev/null > "$scratch/pty.txt" 2>&1 || status=$?
  expect_eq "$status" 0 "exit status of info on a pty with $*" # script -e: the child's
  grep -c $'\e\[' "$scratch/pty.txt" || true
}
note "colour: on a terminal, not with TERM=dumb or NO_COLOR"
[ "$(escapes TERM=xterm-256color)" -gt 0 ] || fail "no colour on a terminal with TERM=xterm-256color"
expect_eq "$(escapes TERM=dumb)" 0 "escape lines with TERM=dumb"
expect_eq "$(escapes TERM=xterm-256color NO_COLOR=1)" 0 "escape lines with NO_COLOR=1"
[ "$(escapes TERM=xterm-256color NO_COLOR=)" -gt 0 ] || fail "an empty NO_COLOR turned colour off (no-color.org: only when not empty)"
always=$(TERM=dumb NO_COLOR=1 "$CONDACUDA" info -p "$env" --color always)
grep -q $'\e\[' <<< "$always" || fail "--color always does not colour (it overrides TERM and NO_COLOR)"

note "list: the REPAIR column"
mkdir -p "$scratch/envs/empty/conda-meta"
: > "$scratch/envs/empty/conda-meta/history"
repair_of() { json <("$CONDACUDA" list --json) "[e['repair'] for e in j['envs'] if e['name'] == '$1'][0]"; }
expect_eq "$(repair_of seed)" "not repaired" "before repair"
expect_eq "$(repair_of empty)" "-" "an env without CUDA libraries"
"$CONDACUDA" repair -p "$env" > /dev/null
expect_eq "$(repair_of seed)" "repaired" "after repair"
sp=$(echo "$env"/lib/python3*/site-packages)
touch -d '+1 minute' "$sp/nvidia"
expect_eq "$(repair_of seed)" "stale" "after a wheel folder changed"
grep -q "^seed .* stale " <<< "$("$CONDACUDA" list --color never)" || fail "the text table lacks the stale verdict"

note "check --python without python"
mkdir -p "$scratch/nopy/conda-meta"
: > "$scratch/nopy/conda-meta/history"
status=0
"$CONDACUDA" check -p "$scratch/nopy" --python --quick --color never > "$scratch/nopy.txt" 2>&1 || status=$?
# 3 without a GPU; with one, 0: an env without libraries or python has no
# step to fail (a python that is absent is no failure), or 3, no usable device.
expect_check_status "$status" "0 3" "check --python of an env without python"
grep -q '^python (not run)$' "$scratch/nopy.txt" || { cat "$scratch/nopy.txt" >&2; fail "the python section's header"; }
grep -q 'the env has no python interpreter' "$scratch/nopy.txt" || fail "no word on the missing interpreter"
if grep -q 'could not be started: $' "$scratch/nopy.txt"; then fail "an empty reason"; fi

note "doctor --glibc: another release's rules, said in the report; one the model does not know is bad input"
expect_status 0 "$CONDACUDA" doctor -p "$env" --glibc 2.31 --json > "$scratch/glibc231.json"
expect_eq "$(json "$scratch/glibc231.json" '(j["loader"]["glibc"], j["loader"]["glibc_source"])')" "('2.31', '--glibc')" "--glibc 2.31"
expect_eq "$(json "$scratch/glibc231.json" 'j["node"]["glibc"]')" "$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)" "the node's own glibc"
expect_status 0 "$CONDACUDA" doctor -p "$env" --json > "$scratch/glibc-own.json"
expect_eq "$(json "$scratch/glibc-own.json" 'j["loader"]["glibc_source"]')" "this machine" "without --glibc"
text=$("$CONDACUDA" doctor -p "$env" --glibc 2.41 --color never) || fail "doctor --glibc 2.41 exited $?"
grep -q "glibc 2.41 (--glibc)" <<< "$text" || fail "the text report does not say --glibc"
for bad in 2.17 2.99 3.1 2.31.1 x; do
  status=0
  "$CONDACUDA" doctor -p "$env" --glibc "$bad" > /dev/null 2> "$scratch/bad-glibc.txt" || status=$?
  expect_eq "$status" 2 "doctor --glibc $bad"
  grep -q "the loader model knows glibc 2.28 to 2.41" "$scratch/bad-glibc.txt" || fail "--glibc $bad: $(cat "$scratch/bad-glibc.txt")"
done
