#!/usr/bin/env bash
# compare_outputs.sh OLD_BINARY NEW_BINARY: runs the same commands with two
# condacuda binaries on the same envs and compares stdout, stderr and exit
# status byte for byte. For changes that must not change behaviour (a move of
# code): build the starting commit and the change, then run this. Not part of
# tests/run.sh (it needs two builds).
#
# Envs: the demo env (examples/demo-env) clean and with its older system
# nvJitLink on LD_LIBRARY_PATH; the CUDA 13 wheel env from /usr/local/cuda
# (when present) clean and with an older nvJitLink 13 planted. Commands: list,
# info, doctor (text, -v, --json, --dot, --ld-library-path, --no-ld-library-path),
# repair --dry-run, repair then undo (each binary in turn on the same prefix),
# run --print-ld-library-path, lock (YAML, JSON, --check, -o), check (no GPU
# here: exit 3), the error paths (unknown env, bad lock, bad release table, no
# command for run), an env without CUDA libraries, a post-link on a folder
# that is no env, and each command's --help.
# check's timings are masked (its decimal numbers); nothing else is.
set -euo pipefail
old=$(readlink -f "${1:?usage: compare_outputs.sh OLD_BINARY NEW_BINARY}")
new=$(readlink -f "${2:?usage: compare_outputs.sh OLD_BINARY NEW_BINARY}")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=old_nvjitlink13.sh
source "$root/tests/tools/old_nvjitlink13.sh"
# shellcheck source=cuda13_env.sh
source "$root/tests/tools/cuda13_env.sh"

"$root/examples/demo-env/build.sh" "$work/demo" > /dev/null
envs=("$work/demo/env")
polluted=("$work/demo/system-cuda-12.0/lib64")
if make_cuda13_env "$work/cuda13"; then
  build_old_nvjitlink13 "$work/old13" "$work/old13-src"
  envs+=("$work/cuda13")
  polluted+=("$work/old13")
fi

# check's timings: every decimal number, and the column padding they change.
mask() {
  case "$1" in
  *check*) sed -E -e 's/[0-9]+\.[0-9]+(e[+-]?[0-9]+)?/N/g' -e 's/ +/ /g' ;;
  *) cat ;;
  esac
}

# record NAME BINARY ARGS...: stdout, stderr and status into $work/out/<binary>/NAME.
record() {
  local name=$1 which=$2 status=0
  shift 2
  mkdir -p "$work/out/$which"
  "$work/condacuda" "$@" > "$work/out/$which/$name.stdout" 2> "$work/out/$which/$name.stderr" || status=$?
  echo "$status" > "$work/out/$which/$name.status"
  for f in stdout stderr; do
    mask "$name" < "$work/out/$which/$name.$f" > "$work/out/$which/$name.$f.masked"
    mv "$work/out/$which/$name.$f.masked" "$work/out/$which/$name.$f"
  done
}

# HOME too: list reads ~/.conda/environments.txt, which tests running beside
# this one may change between the two binaries' turns.
export CONDA_ENVS_DIRS=$work/envs-dir XDG_CACHE_HOME=$work/cache HOME=$work/home
mkdir -p "$CONDA_ENVS_DIRS" "$HOME"
ln -s "$work/demo/env" "$CONDA_ENVS_DIRS/demo"
unset CONDA_PREFIX VIRTUAL_ENV LD_LIBRARY_PATH
count=0
for which in old new; do
  # One path for both binaries: usage texts name argv[0].
  ln -sfn "$([ "$which" = old ] && echo "$old" || echo "$new")" "$work/condacuda"
  record list "$which" list
  record list-json "$which" list --json
  record list-names "$which" list --names
  record unknown-env "$which" doctor -n nope
  record unknown-env-json "$which" doctor --json -n nope
  record run-no-command "$which" run -n demo
  record bad-lock "$which" lock --check /etc/hostname -n demo
  record no-subcommand "$which"
  record lock-unknown-env "$which" lock -n nope --json
  record lock-bad-releases "$which" lock --releases /etc/hostname -n nope
  # An env with no CUDA library: nothing to repair, nothing to lock but the head.
  mkdir -p "$work/empty/conda-meta" && : > "$work/empty/conda-meta/history"
  record empty-dry-run-json "$which" repair --dry-run --json -p "$work/empty"
  record empty-lock "$which" lock -p "$work/empty"
  mkdir -p "$work/not-an-env"
  record not-env-post-link "$which" repair --post-link -p "$work/not-an-env"
  cp "$work/not-an-env/.messages.txt" "$work/out/$which/not-env-post-link.messages" 2> /dev/null || true
  rm -f "$work/not-an-env/.messages.txt"
  for command in list info doctor repair undo run lock check; do
    record "help-$command" "$which" "$command" --help
  done
  for i in "${!envs[@]}"; do
    e=${envs[$i]} p=${polluted[$i]} tag=env$i
    record "$tag-info" "$which" info -p "$e"
    record "$tag-info-json" "$which" info --json -p "$e"
    for llp in clean polluted; do
      args=(--no-ld-library-path)
      [ $llp = polluted ] && args=(--ld-library-path "$p")
      record "$tag-$llp-doctor" "$which" doctor -p "$e" "${args[@]}"
      record "$tag-$llp-doctor-v" "$which" doctor -v -p "$e" "${args[@]}"
      record "$tag-$llp-doctor-json" "$which" doctor --json -p "$e" "${args[@]}"
      record "$tag-$llp-doctor-dot" "$which" doctor --dot -p "$e" "${args[@]}"
      record "$tag-$llp-doctor-dot-json" "$which" doctor --dot --json -p "$e" "${args[@]}"
      record "$tag-$llp-check" "$which" check --quick -p "$e" "${args[@]}"
      record "$tag-$llp-check-json" "$which" check --quick --json -p "$e" "${args[@]}"
      LD_LIBRARY_PATH=$p record "$tag-$llp-run-print" "$which" run --print-ld-library-path -p "$e"
      LD_LIBRARY_PATH=$p record "$tag-$llp-dry-run" "$which" repair --dry-run -p "$e"
      LD_LIBRARY_PATH=$p record "$tag-$llp-dry-run-json" "$which" repair --dry-run --json -p "$e"
    done
    record "$tag-lock" "$which" lock -p "$e"
    record "$tag-lock-json" "$which" lock --json -p "$e"
    record "$tag-lock-driver" "$which" lock --driver 520.1 -p "$e"
    record "$tag-lock-bad-driver" "$which" lock --driver x -p "$e"
    "$work/condacuda" lock -p "$e" -o "$work/$tag.lock.yml" 2> /dev/null || { echo "FAIL: lock -o of $e exited $?" >&2; exit 1; }
    record "$tag-lock-check" "$which" lock --check "$work/$tag.lock.yml" -p "$e"
    record "$tag-lock-check-json" "$which" lock --check "$work/$tag.lock.yml" --json -p "$e"
    record "$tag-lock-o-json" "$which" lock -o "$work/$tag.o.yml" --json -p "$e"
    cp "$work/$tag.o.yml" "$work/out/$which/$tag-lock-o.yml"
    # A real repair and undo, on the same prefix for both binaries, in turn.
    LD_LIBRARY_PATH=$p record "$tag-repair" "$which" repair -p "$e"
    LD_LIBRARY_PATH=$p record "$tag-repair-again-json" "$which" repair --json -p "$e"
    record "$tag-run-print-repaired" "$which" run --print-ld-library-path -p "$e"
    record "$tag-doctor-repaired" "$which" doctor -p "$e" --ld-library-path "$p"
    record "$tag-undo" "$which" undo -p "$e"
    record "$tag-undo-again-json" "$which" undo --json -p "$e"
    record "$tag-post-link" "$which" repair --post-link -p "$e"
    cp "$e/.messages.txt" "$work/out/$which/$tag-post-link.messages" 2> /dev/null || true
    rm -f "$e/.messages.txt"
    "$work/condacuda" undo -p "$e" > /dev/null 2>&1 || { echo "FAIL: the last undo of $e exited $?" >&2; exit 1; }
  done
done
differ=0
for f in "$work/out/old"/*; do
  name=${f##*/}
  count=$((count + 1))
  if ! cmp -s "$f" "$work/out/new/$name"; then
    differ=$((differ + 1))
    echo "DIFFERS: $name"
    diff "$f" "$work/out/new/$name" | head -20 || true
  fi
done
echo "compared $count outputs of ${#envs[@]} env(s): $differ differ"
[ "$differ" = 0 ]
