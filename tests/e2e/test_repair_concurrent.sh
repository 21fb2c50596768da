#!/usr/bin/env bash
# repair and undo serialise on the env's lock (a flock on the prefix folder,
# taken before anything is read or created, never deleted): 4 repairs and 4
# undos at once, 20 rounds. Every command exits 0, or 4 saying that another
# condacuda holds the env; after each round the env is either repaired or as
# it was (nothing half done), and undo then gives the original tree back.
source "$(dirname "$0")/lib.sh"
unset LD_LIBRARY_PATH

demo_env "$scratch/demo"
tree_state "$env" > "$scratch/original"
"$CONDACUDA" repair -p "$env" > /dev/null
tree_state "$env" > "$scratch/repaired"
"$CONDACUDA" undo -p "$env" > /dev/null

busy=0
for round in $(seq 1 20); do
  pids=()
  for i in 1 2 3 4; do
    "$CONDACUDA" repair -p "$env" > "$scratch/r$i.out" 2> "$scratch/r$i.err" & pids+=($!)
    "$CONDACUDA" undo -p "$env" > "$scratch/u$i.out" 2> "$scratch/u$i.err" & pids+=($!)
  done
  for n in "${!pids[@]}"; do
    status=0
    wait "${pids[$n]}" || status=$?
    case "$status" in
    0) ;;
    4) err=$scratch/r$((n / 2 + 1)).err
       [ $((n % 2)) = 1 ] && err=$scratch/u$((n / 2 + 1)).err
       grep -q "another condacuda (pid [0-9]*) is changing this env" "$err" || fail "round $round: exit 4 without saying who holds the env"
       busy=$((busy + 1)) ;;
    *) name=r$((n / 2 + 1)); [ $((n % 2)) = 1 ] && name=u$((n / 2 + 1))
       cat "$scratch/$name.out" "$scratch/$name.err" >&2
       fail "round $round: $name exited $status" ;;
    esac
  done
  tree_state "$env" > "$scratch/t"
  if ! cmp -s "$scratch/t" "$scratch/original" && ! cmp -s "$scratch/t" "$scratch/repaired"; then
    diff "$scratch/repaired" "$scratch/t" >&2 || true
    fail "round $round: the env is neither repaired nor as it was"
  fi
done
"$CONDACUDA" undo -p "$env" > /dev/null
tree_state "$env" > "$scratch/t"
cmp -s "$scratch/original" "$scratch/t" || fail "undo after the rounds did not give the original tree back"
note "20 rounds of 4 repairs and 4 undos at once: consistent after each ($busy busy refusals)"
