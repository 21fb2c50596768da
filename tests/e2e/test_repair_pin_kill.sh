#!/usr/bin/env bash
# `repair --pin` and the undo of a pin killed at any instant: the pinned
# library (hard-linked from a "package cache") is always either the original
# or pinned, and the next run completes. Each run is killed (SIGKILL, injected
# by strace) at every linkat, renameat and unlinkat it makes, then at least 50
# times at random moments. After each kill: `undo` alone gives the original
# tree back (on a copy), and `repair --pin` then `undo` give the pinned tree,
# then the original, byte for byte; the cache's copy never changes.
source "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || skip "strace is not installed"

same_tree() { # DIR EXPECTED WHAT
  tree_state "$1" > "$scratch/t"
  cmp -s "$2" "$scratch/t" || { diff "$2" "$scratch/t" >&2 || true; fail "$3"; }
}

demo_env "$scratch/demo"
# The older system nvJitLink first: what makes cuSPARSE need its pin.
export LD_LIBRARY_PATH=$system
cusparse=$(echo "$env"/lib/python3*/site-packages/nvidia/cusparse/lib/libcusparse.so.12)
mkdir -p "$scratch/pkgs"
ln "$cusparse" "$scratch/pkgs/libcusparse.so.12"
cache_sha=$(sha256sum < "$scratch/pkgs/libcusparse.so.12")
cache_intact() { expect_eq "$(sha256sum < "$scratch/pkgs/libcusparse.so.12")" "$cache_sha" "the package cache after $1"; }

tree_state "$env" > "$scratch/original"
"$CONDACUDA" repair -p "$env" --pin > /dev/null
grep -q '(RPATH)' <<< "$(readelf -d "$cusparse")" || fail "the setup repair pinned nothing"
tree_state "$env" > "$scratch/pinned"
"$CONDACUDA" undo -p "$env" > /dev/null
same_tree "$env" "$scratch/original" "repair --pin + undo is not the identity"
expect_eq "$(stat -c %i "$cusparse")" "$(stat -c %i "$scratch/pkgs/libcusparse.so.12")" "the cache's inode after undo"

setup() { if [ "$1" = undo ]; then "$CONDACUDA" repair -p "$env" --pin > /dev/null; fi; }
command_of() { [ "$1" = undo ] && echo undo || echo "repair --pin"; }
reset_env() {
  local status=0
  "$CONDACUDA" undo -p "$env" > "$scratch/reset.out" 2>&1 || status=$?
  [ "$status" = 0 ] || { cat "$scratch/reset.out" >&2; fail "undo, to reset the env, exited $status"; }
  same_tree "$env" "$scratch/original" "the env could not be reset"
}

after_kill() { # WHAT
  rm -rf "$scratch/copy" && cp -a "$env" "$scratch/copy"
  "$CONDACUDA" undo -p "$scratch/copy" > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "undo alone after $1 failed"; }
  same_tree "$scratch/copy" "$scratch/original" "undo alone after $1 left the tree changed"
  "$CONDACUDA" repair -p "$env" --pin > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "repair after $1 failed"; }
  same_tree "$env" "$scratch/pinned" "repair --pin after $1 did not complete the pin"
  "$CONDACUDA" undo -p "$env" > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "undo after $1 failed"; }
  same_tree "$env" "$scratch/original" "repair + undo after $1 left the tree changed"
  cache_intact "$1"
}

kills=0
kill_at() { # SCENARIO SYSCALL
  local scenario=$1 call=$2 n=1 status
  while :; do
    setup "$scenario"
    status=0
    # shellcheck disable=SC2046 # the command is two words for repair
    strace -o /dev/null -e trace="$call" -e inject="$call":signal=KILL:when="$n" \
      "$CONDACUDA" $(command_of "$scenario") -p "$env" > /dev/null 2>&1 || status=$?
    [ "$status" = 137 ] || break
    kills=$((kills + 1))
    after_kill "$scenario killed at $call #$n"
    reset_env
    n=$((n + 1))
    [ "$n" -le 40 ] || fail "$(command_of "$scenario") made more than 40 $call calls"
  done
  [ "$status" = 0 ] || fail "$(command_of "$scenario") under strace exited $status"
  reset_env
}

for scenario in pin undo; do
  for call in linkat renameat unlinkat; do kill_at "$scenario" "$call"; done
done
[ "$kills" -ge 20 ] || fail "only $kills kill points: the commands no longer make the calls this test kills at"
note "$kills kills at a system call, each recovered by undo alone and by repair --pin then undo"

start=$(date +%s%N)
"$CONDACUDA" repair -p "$env" --pin > /dev/null
run_us=$(( ($(date +%s%N) - start) / 1000 ))
reset_env
random_kills=0
deadline=$(( $(date +%s) + 240 ))
for i in $(seq 1 60); do
  scenario=pin
  [ $((i % 2)) = 0 ] && scenario=undo
  setup "$scenario"
  delay=$(( RANDOM * 32768 % (run_us + 1) + 1 ))
  status=0
  # shellcheck disable=SC2046
  timeout -s KILL "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))" \
    "$CONDACUDA" $(command_of "$scenario") -p "$env" > /dev/null 2>&1 || status=$?
  [ "$status" = 0 ] || random_kills=$((random_kills + 1))
  after_kill "$scenario killed after ${delay} us (round $i)"
  reset_env
  [ "$(date +%s)" -le "$deadline" ] || fail "60 rounds took more than 4 minutes"
done
note "60 runs killed at random moments ($random_kills died before finishing), each recovered"
