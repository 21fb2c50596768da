#!/usr/bin/env bash
# The default text view (issue 51), every command on the demo env, held to
# tests/e2e/frameworks/text_rules.py: no line over 100 columns that has a
# space to break at, none of the loader's terms, the loader's error said
# once, and each step of --json's actions alone on a line as the command a
# user pastes; each view's exit status checked. Views: doctor broken by an
# older system nvJitLink (straight, and through a link whose target it
# names), without LD_LIBRARY_PATH (the link repair makes is missing),
# repaired, judged without activation (an error then, with its steps);
# repair, its dry run and a pin; undo; info (before and after the pin);
# list; lock -o and lock --check (matching, and drifted); check --link-only;
# fleet --from on node documents of this env. The convergence harness
# (e2e.converge) holds doctor's and repair's views of its 31 scenarios to
# the same rules.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
mkdir -p "$scratch/opt"
cp -r "$(dirname "$system")" "$scratch/opt/cuda-12.0"
ln -s cuda-12.0 "$scratch/opt/cuda"
rules=$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/text_rules.py
views=0

# check NAME STATUS [--json] ARGS...: the text view of ARGS (a command line)
# against the rules, its exit status STATUS; with --json, the same command's
# --json (the same status) gives the steps.
check() {
  local name=$1 want=$2 with_json=
  shift 2
  if [ "$1" = --json ]; then
    with_json=1
    shift
  fi
  expect_exit "$want" "$scratch/$name.txt" "$scratch/$name.err" "$@"
  [ -s "$scratch/$name.txt" ] || fail "$name: no text view ($(head -c 300 "$scratch/$name.err"))"
  if [ -n "$with_json" ]; then
    expect_exit "$want" "$scratch/$name.json" /dev/null "$@" --json
    python3 "$rules" "$name" "$scratch/$name.txt" "$scratch/$name.json" || fail "$name: the text view breaks the rules"
  else
    python3 "$rules" "$name" "$scratch/$name.txt" || fail "$name: the text view breaks the rules"
  fi
  views=$((views + 1))
}
old=(env LD_LIBRARY_PATH="$system")
check broken 1 --json "${old[@]}" "$CONDACUDA" doctor -p "$env"
check link 1 --json env LD_LIBRARY_PATH="$scratch/opt/cuda/lib64" "$CONDACUDA" doctor -p "$env"
check unset 1 --json env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env"
check info 0 "${old[@]}" "$CONDACUDA" info -p "$env"
check list 0 "$CONDACUDA" list
check repair-dry-run 0 "${old[@]}" "$CONDACUDA" repair -p "$env" --dry-run
"${old[@]}" "$CONDACUDA" repair -p "$env" > "$scratch/repair.txt"
python3 "$rules" repair "$scratch/repair.txt" || fail "repair: the text view breaks the rules"
check repaired 0 --json "${old[@]}" "$CONDACUDA" doctor -p "$env"
check not-activated 1 --json "${old[@]}" "$CONDACUDA" doctor -p "$env" --context not-activated
# (lock without -o writes the lockfile itself, YAML, not a view)
"$CONDACUDA" lock -p "$env" -o "$scratch/env.lock" > "$scratch/lock.txt"
python3 "$rules" lock "$scratch/lock.txt" || fail "lock -o: the text view breaks the rules"
check lock-check 0 "$CONDACUDA" lock -p "$env" --check "$scratch/env.lock"
sed 's/12\.4\.127/12.4.99/' "$scratch/env.lock" > "$scratch/drifted.lock"
check lock-drift 1 "$CONDACUDA" lock -p "$env" --check "$scratch/drifted.lock"
check check-link 1 "$CONDACUDA" check -p "$env" --link-only sm_90
mkdir -p "$scratch/nodes"
for node in 1 2 3; do
  expect_status 0 env -u LD_LIBRARY_PATH SLURMD_NODENAME=gpu00$node "$CONDACUDA" doctor -p "$env" --json --context not-activated \
    > "$scratch/nodes/gpu00$node.json"
done
expect_status 1 env SLURMD_NODENAME=gpu004 "${old[@]}" "$CONDACUDA" doctor -p "$env" --json --context not-activated > "$scratch/nodes/gpu004.json"
check fleet 1 "$CONDACUDA" fleet --from "$scratch/nodes"
"${old[@]}" "$CONDACUDA" repair -p "$env" --pin > "$scratch/pin.txt"
python3 "$rules" pin "$scratch/pin.txt" || fail "repair --pin: the text view breaks the rules"
check info-pinned 0 "$CONDACUDA" info -p "$env"
check undo 0 "$CONDACUDA" undo -p "$env"
views=$((views + 3))

grep -q 'is a link to' "$scratch/link.txt" || fail "the link's line is missing"
grep -q "^         condacuda repair -p '$env' --pin$" "$scratch/not-activated.txt" ||
  fail "the not-activated fix has no pin command of its own: $(cat "$scratch/not-activated.txt")"
note "$views text views of 10 commands within the layout rules"
