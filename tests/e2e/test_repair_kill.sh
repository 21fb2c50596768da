#!/usr/bin/env bash
# A kill at any instant leaves a state the next run completes: repair and undo
# are each killed (SIGKILL, injected by strace) at every flock, mkdirat,
# renameat, renameat2, symlinkat and unlinkat they make, and at random moments;
# after each kill, `repair` then `undo` must give back the original tree byte
# for byte (paths, types, modes, sizes, link targets, contents), with no
# temporary left. Then the same with a full disk at each write (a small tmpfs),
# where mounting one is allowed.
source "$(dirname "$0")/lib.sh"
command -v strace > /dev/null || skip "strace is not installed"
export PYTHONDONTWRITEBYTECODE=1
unset LD_LIBRARY_PATH CONDACUDA_HOOK_STATE

build_demo_env "$scratch/demo"
env=$scratch/demo/env
# The tree as find and sha256sum see it.
tree() {
  (cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
tree "$env" > "$scratch/original"
"$CONDACUDA" repair -p "$env" > /dev/null
tree "$env" > "$scratch/repaired"
"$CONDACUDA" undo -p "$env" > /dev/null
cmp -s "$scratch/original" "$(tree "$env" > "$scratch/t"; echo "$scratch/t")" || fail "repair + undo is not the identity"

# after_kill WHAT: repair completes, undo gives the original tree back.
after_kill() {
  "$CONDACUDA" repair -p "$env" > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "repair after $1 failed"; }
  tree "$env" > "$scratch/t"
  cmp -s "$scratch/repaired" "$scratch/t" || { diff "$scratch/repaired" "$scratch/t" >&2; fail "repair after $1 did not complete the repair"; }
  "$CONDACUDA" undo -p "$env" > "$scratch/out" 2>&1 || { cat "$scratch/out" >&2; fail "undo after $1 failed"; }
  tree "$env" > "$scratch/t"
  cmp -s "$scratch/original" "$scratch/t" || { diff "$scratch/original" "$scratch/t" >&2; fail "repair + undo after $1 left the tree changed"; }
}

# kill_at COMMAND SYSCALL: runs COMMAND once per call of SYSCALL it makes,
# killed at the Nth; returns how many kills there were.
kills=0
kill_at() {
  local command=$1 call=$2 n=1 status
  while :; do
    [ "$command" = undo ] && "$CONDACUDA" repair -p "$env" > /dev/null # undo needs something to undo
    status=0
    strace -o /dev/null -e trace="$call" -e inject="$call":signal=KILL:when="$n" \
      "$CONDACUDA" "$command" -p "$env" > /dev/null 2>&1 || status=$?
    [ "$status" = 137 ] || break # the command made fewer than n such calls and ended by itself
    kills=$((kills + 1))
    after_kill "$command killed at $call #$n"
    n=$((n + 1))
    [ "$n" -le 40 ] || fail "$command made more than 40 $call calls"
  done
  [ "$status" = 0 ] || fail "$command under strace exited $status"
  [ "$command" = repair ] && "$CONDACUDA" undo -p "$env" > /dev/null
  return 0
}

for command in repair undo; do
  for call in flock mkdirat renameat renameat2 symlinkat unlinkat; do kill_at "$command" "$call"; done
done
[ "$kills" -ge 25 ] || fail "only $kills kill points: the commands no longer make the calls this test kills at"
note "$kills kills at a system call, each completed by repair then undo"

# Random moments: a kill after a random delay within a run's duration.
start=$(date +%s%N)
"$CONDACUDA" repair -p "$env" > /dev/null
run_ns=$(( $(date +%s%N) - start ))
"$CONDACUDA" undo -p "$env" > /dev/null
random_kills=0
for i in $(seq 1 60); do
  delay=$(( RANDOM % (run_ns / 1000 + 1) ))
  command=repair
  if [ $((i % 2)) = 0 ]; then command=undo; "$CONDACUDA" repair -p "$env" > /dev/null; fi
  timeout -s KILL "$(printf '0.%06d' "$delay")" "$CONDACUDA" "$command" -p "$env" > /dev/null 2>&1 && : || random_kills=$((random_kills + 1))
  after_kill "$command killed after ${delay} us (round $i)"
done
note "60 runs killed at random moments ($random_kills died before finishing), each completed by repair then undo"

# A full disk at each write: the env on a tmpfs just large enough for the
# env, filled up to leave only N bytes.
if [ "$(id -u)" = 0 ] && mkdir -p "$scratch/small" && mount -t tmpfs -o size=16m tmpfs "$scratch/small" 2> /dev/null; then
  trap 'umount "$scratch/small" 2> /dev/null; cleanup' EXIT
  cp -a "$env" "$scratch/small/env"
  env=$scratch/small/env
  tree "$env" > "$scratch/original"
  "$CONDACUDA" repair -p "$env" > /dev/null
  tree "$env" > "$scratch/repaired"
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
    after_kill "a full disk with ${leave_kb} KiB left (exit $status)"
  done
  note "full disk at 7 fill levels ($full failed with exit 4), each completed by repair then undo"
else
  note "full-disk cases skipped: no tmpfs can be mounted here"
fi
