#!/usr/bin/env bash
# A kill at any instant leaves a state the next run completes: repair and undo
# are each killed (SIGKILL, injected by strace) at every flock, mkdirat,
# renameat, renameat2, symlinkat and unlinkat they make, and at random moments.
# After each kill, `repair` then `undo` must give back the original tree byte
# for byte (paths, types, modes, sizes, link targets, contents), and so must
# `undo` alone (what `conda remove` runs), with no temporary left. Three runs
# are killed: a first repair, an undo, and a repair that updates an earlier
# one (the env gained a CUDA folder since). Then the same with a full disk at
# each write (a small tmpfs), where mounting one is allowed.
source "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || skip "strace is not installed"
unset LD_LIBRARY_PATH

same_tree() { # DIR EXPECTED WHAT
  tree_state "$1" > "$scratch/t"
  cmp -s "$2" "$scratch/t" || { diff "$2" "$scratch/t" >&2; fail "$3"; }
}

demo_env "$scratch/demo"
# An extra CUDA folder and a consumer that needs it: a later repair updates the hooks.
mkdir -p "$scratch/extra/cublas/lib" "$scratch/extra/demotorch"
printf 'int cublasCreate_v2(void) { return 0; }\n' > "$scratch/extra/cublas.c"
gcc -shared -fPIC -Wl,-soname,libcublas.so.12 -o "$scratch/extra/cublas/lib/libcublas.so.12" "$scratch/extra/cublas.c"
printf 'int cublasCreate_v2(void);\nint extra(void) { return cublasCreate_v2(); }\n' > "$scratch/extra/use.c"
gcc -shared -fPIC -o "$scratch/extra/demotorch/_extra.so" "$scratch/extra/use.c" \
  -Wl,--no-as-needed -L"$scratch/extra/cublas/lib" -l:libcublas.so.12
add_extra() { cp -a "$scratch/extra/cublas" "$sp/nvidia/" && cp "$scratch/extra/demotorch/_extra.so" "$sp/demotorch/"; }
drop_extra() { rm -rf "$sp/nvidia/cublas" "$sp/demotorch/_extra.so"; }

tree_state "$env" > "$scratch/original"
"$CONDACUDA" repair -p "$env" > /dev/null
tree_state "$env" > "$scratch/repaired"
"$CONDACUDA" undo -p "$env" > /dev/null
same_tree "$env" "$scratch/original" "repair + undo is not the identity"
add_extra
tree_state "$env" > "$scratch/original_extra"
"$CONDACUDA" repair -p "$env" > /dev/null
tree_state "$env" > "$scratch/repaired_extra"
"$CONDACUDA" undo -p "$env" > /dev/null
drop_extra

# Each scenario: how to set the env up before the killed run, the command
# killed, and the trees the recovery must reach.
setup() {
  case "$1" in
  first) ;;
  undo) "$CONDACUDA" repair -p "$env" > /dev/null ;;
  update) "$CONDACUDA" repair -p "$env" > /dev/null && add_extra ;;
  esac
}
command_of() { [ "$1" = undo ] && echo undo || echo repair; }
original_of() { [ "$1" = update ] && echo "$scratch/original_extra" || echo "$scratch/original"; }
repaired_of() { [ "$1" = update ] && echo "$scratch/repaired_extra" || echo "$scratch/repaired"; }
# Back to the plain demo env between runs.
reset_env() {
  local status=0
  "$CONDACUDA" undo -p "$env" > "$scratch/reset.out" 2>&1 || status=$?
  [ "$status" = 0 ] || { cat "$scratch/reset.out" >&2; fail "undo, to reset the env, exited $status"; }
  drop_extra
  same_tree "$env" "$scratch/original" "the env could not be reset"
}

# after_kill SCENARIO WHAT: undo alone gives the original back (on a copy),
# and repair completes the repair, then undo gives the original back.
after_kill() {
  local scenario=$1 what=$2
  rm -rf "$scratch/copy" && cp -a "$env" "$scratch/copy"
  "$CONDACUDA" undo -p "$scratch/copy" > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "undo alone after $what failed"; }
  same_tree "$scratch/copy" "$(original_of "$scenario")" "undo alone after $what left the tree changed"
  "$CONDACUDA" repair -p "$env" > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "repair after $what failed"; }
  same_tree "$env" "$(repaired_of "$scenario")" "repair after $what did not complete the repair"
  "$CONDACUDA" undo -p "$env" > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "undo after $what failed"; }
  same_tree "$env" "$(original_of "$scenario")" "repair + undo after $what left the tree changed"
}

# kill_at SCENARIO SYSCALL: the scenario's command killed at each of its calls of SYSCALL.
kills=0
kill_at() {
  local scenario=$1 call=$2 n=1 status command
  command=$(command_of "$scenario")
  while :; do
    setup "$scenario"
    status=0
    strace -o /dev/null -e trace="$call" -e inject="$call":signal=KILL:when="$n" \
      "$CONDACUDA" "$command" -p "$env" > /dev/null 2>&1 || status=$?
    [ "$status" = 137 ] || break # the command made fewer than n such calls and ended by itself
    kills=$((kills + 1))
    after_kill "$scenario" "$scenario: $command killed at $call #$n"
    reset_env
    n=$((n + 1))
    [ "$n" -le 40 ] || fail "$command made more than 40 $call calls"
  done
  [ "$status" = 0 ] || fail "$command under strace exited $status"
  reset_env
}

for scenario in first undo update; do
  for call in flock mkdirat renameat renameat2 symlinkat unlinkat; do kill_at "$scenario" "$call"; done
done
[ "$kills" -ge 35 ] || fail "only $kills kill points: the commands no longer make the calls this test kills at"
note "$kills kills at a system call, each recovered by undo alone and by repair then undo"

# Random moments: a kill after a random delay within a run's duration.
start=$(date +%s%N)
"$CONDACUDA" repair -p "$env" > /dev/null
run_us=$(( ($(date +%s%N) - start) / 1000 ))
reset_env
random_kills=0
for i in $(seq 1 60); do
  scenario=first
  case $((i % 3)) in 1) scenario=undo ;; 2) scenario=update ;; esac
  setup "$scenario"
  delay=$(( RANDOM * 32768 % (run_us + 1) + 1 )) # microseconds, 1 .. run_us + 1
  status=0
  timeout -s KILL "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))" \
    "$CONDACUDA" "$(command_of "$scenario")" -p "$env" > /dev/null 2>&1 || status=$?
  [ "$status" = 0 ] || random_kills=$((random_kills + 1))
  after_kill "$scenario" "$scenario killed after ${delay} us (round $i)"
  reset_env
done
note "60 runs killed at random moments ($random_kills died before finishing), each recovered"

# A full disk at each write: the env on a small tmpfs, filled up to leave only N KiB.
if [ "$(id -u)" = 0 ] && mkdir -p "$scratch/small" && mount -t tmpfs -o size=16m tmpfs "$scratch/small" 2> /dev/null; then
  trap 'status=$?; umount "$scratch/small" 2> /dev/null; cleanup "$status"' EXIT
  cp -a "$env" "$scratch/small/env"
  env=$scratch/small/env
  sp=$(echo "$env"/lib/python3*/site-packages)
  tree_state "$env" > "$scratch/original" # folder sizes differ on tmpfs
  "$CONDACUDA" repair -p "$env" > /dev/null
  tree_state "$env" > "$scratch/repaired"
  "$CONDACUDA" undo -p "$env" > /dev/null
  full=0
  for leave_kb in 0 4 8 16 32 64 256; do
    rm -f "$scratch/small/filler"
    avail=$(df --output=avail -k "$scratch/small" | tail -1)
    fallocate -l "$(( (avail - leave_kb) * 1024 ))" "$scratch/small/filler" 2> /dev/null ||
      dd if=/dev/zero of="$scratch/small/filler" bs=1k count="$((avail - leave_kb))" 2> /dev/null || true
    status=0
    "$CONDACUDA" repair -p "$env" > "$scratch/out" 2>&1 || status=$?
    if [ "$status" != 0 ]; then
      full=$((full + 1))
      [ "$status" = 4 ] || { cat "$scratch/out" >&2; fail "a full disk: repair exited $status, not 4"; }
    fi
    rm -f "$scratch/small/filler"
    after_kill first "a full disk with ${leave_kb} KiB left (exit $status)"
    reset_env
  done
  note "full disk at 7 fill levels ($full failed with exit 4), each recovered"
else
  note "full-disk cases skipped: no tmpfs can be mounted here"
fi
