#!/usr/bin/env bash
# Launches without activation (Jupyter kernels, cron, srun, IDEs) and
# `repair --pin`, with real python and the real loader as the oracle:
#  - the demo env with the older system nvJitLink on LD_LIBRARY_PATH: the
#    import fails not activated before repair and after a plain repair
#    (`doctor --context not-activated` exits 1 and names `repair --pin`), and
#    works after `repair --pin` not activated, activated and with
#    LD_LIBRARY_PATH unset; doctor's verdict per context agrees with a real
#    dlopen of every root;
#  - a pinned library hard-linked from a "package cache": the cache's copy is
#    byte-identical after repair and after undo, and after undo the env's file
#    is the cache's inode again, byte-identical to the original;
#  - a venv (pyvenv.cfg, no conda-meta): repair pins by default, the import
#    works not activated, `condacuda run` runs the env's python;
#  - the CUDA 13 wheel env (hard links into /usr/local/cuda) with the planted
#    older nvJitLink 13, when this machine has it.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
cusparse=$sp/nvidia/cusparse/lib/libcusparse.so.12
oracle=$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py
seed_error="undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"

# A "package cache" sharing the library's inode, as conda's pkgs/ and uv's cache do.
mkdir -p "$scratch/pkgs/libcusparse/lib"
cache=$scratch/pkgs/libcusparse/lib/libcusparse.so.12
ln "$cusparse" "$cache"
cache_sha=$(sha256sum < "$cache")
original_sha=$(sha256sum < "$cusparse")
tree_state "$env" > "$scratch/original"

# activated_import LLP: the import in a shell that activates the env as conda does.
activated_import() {
  bash -c '
    set -eu
    if [ "$3" = UNSET ]; then unset LD_LIBRARY_PATH; else export LD_LIBRARY_PATH=$3; fi
    export CONDA_PREFIX=$1
    for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh | sort); do . "$f"; done
    "$CONDA_PREFIX/bin/python3" -c "$2"' activation "$env" "$import" "$1"
}

# agrees CONTEXT LLP: doctor --context CONTEXT --json under LD_LIBRARY_PATH=LLP
# (UNSET: unset), and the real loader opening every root with the value doctor
# assumed for that context, root by root.
agrees() {
  local context=$1 llp=$2 out=$scratch/doctor-$1.json assumed status=0
  if [ "$llp" = UNSET ]; then
    env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env" --context "$context" --json > "$out" || status=$?
  else
    LD_LIBRARY_PATH=$llp "$CONDACUDA" doctor -p "$env" --context "$context" --json > "$out" || status=$?
  fi
  [ "$status" -le 1 ] || fail "doctor --context $context exited $status"
  expect_eq "$(json "$out" 'j["context"]')" "$context" "the context judged"
  assumed=$(json "$out" 'j["ld_library_path"]["assumed"] or ""')
  if [ -z "$assumed" ]; then
    env -u LD_LIBRARY_PATH python3 "$oracle" "$out" --python "$py" > /dev/null
  else
    LD_LIBRARY_PATH=$assumed python3 "$oracle" "$out" --python "$py" > /dev/null
  fi
  return "$status"
}

note "before repair: the import fails without activation, like the seed report"
out=$(LD_LIBRARY_PATH=$system "$py" -c "$import" 2>&1 || true)
case "$out" in *"$seed_error"*) ;; *) fail "unexpected: $out" ;; esac

note "a plain repair: fixed when activated, still broken when not"
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" > /dev/null
out=$(LD_LIBRARY_PATH=$system "$py" -c "$import" 2>&1 || true)
case "$out" in *"$seed_error"*) ;; *) fail "plain repair, not activated: $out" ;; esac
expect_eq "$(activated_import "$system")" "sparse 12100" "plain repair, activated"
expect_status 1 agrees not-activated "$system"
expect_eq "$(json "$scratch/doctor-not-activated.json" \
  '[f["severity"] for f in j["findings"] if f["code"] == "not-activated"]')" "['error']" "the not-activated finding"
expect_eq "$(json "$scratch/doctor-not-activated.json" \
  '[f for f in j["findings"] if f["code"] == "not-activated"][0]["actions"]')" \
  "[{'kind': 'repair', 'args': ['$env', '--pin']}]" "its fix, as a step"
agrees activated "$system"
# Both contexts (the default): healthy (exit 0), the not-activated failure a warning.
LD_LIBRARY_PATH=$system "$CONDACUDA" doctor -p "$env" --json > "$scratch/both.json"
expect_eq "$(json "$scratch/both.json" 'j["context"]')" both "default context"
expect_eq "$(json "$scratch/both.json" \
  'sorted(set((r["contexts"]["activated"]["verdict"], r["contexts"]["not-activated"]["verdict"]) for r in j["roots"]))')" \
  "[('loads', 'fails'), ('loads', 'loads')]" "verdicts per root per context"
expect_eq "$(json "$scratch/both.json" '[f["severity"] for f in j["findings"] if f["code"] == "not-activated"]')" \
  "['warning']" "not-activated is a warning by default"
LD_LIBRARY_PATH=$system "$CONDACUDA" doctor -p "$env" > "$scratch/both.txt"
grep -q "not activated (Jupyter kernels" "$scratch/both.txt" || fail "the text shows no not-activated context"

note "repair --pin: one tag per file, the package cache untouched"
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --pin --json > "$scratch/pin.json"
expect_eq "$(json "$scratch/pin.json" 'j["outcome"]')" repaired outcome
expect_eq "$(json "$scratch/pin.json" '[p["path"].split("site-packages/")[1] for p in j["plan"]["pins"]]')" \
  "['nvidia/cusparse/lib/libcusparse.so.12']" "the pinned files"
expect_eq "$(json "$scratch/pin.json" 'all(s["passes"] for s in j["verification"]["scenarios"])')" True "verified"
grep -q '(RPATH)' <<< "$(readelf -d "$cusparse")" || fail "no DT_RPATH in the pinned library"
! grep -q '(RUNPATH)' <<< "$(readelf -d "$cusparse")" || fail "the pinned library kept its DT_RUNPATH"
cmp -s <(readelf -d "$cache" | grep -v PATH) <(readelf -d "$cusparse" | grep -v PATH) || fail "more than the tag changed"
expect_eq "$({ cmp -l "$cache" "$cusparse" || true; } | wc -l)" 1 "bytes that differ from the original"
expect_eq "$(sha256sum < "$cache")" "$cache_sha" "the package cache's copy after repair"
[ "$(stat -c %i "$cache")" != "$(stat -c %i "$cusparse")" ] || fail "the pinned file is still the cache's inode"
[ "$(stat -c %a "$cusparse")" = "$(stat -c %a "$cache")" ] || fail "the pinned file lost its mode"

note "after repair --pin the import works not activated, activated and unset"
expect_eq "$(LD_LIBRARY_PATH=$system "$py" -c "$import")" "sparse 12100" "not activated, system nvJitLink first"
expect_eq "$(activated_import "$system")" "sparse 12100" "activated"
expect_eq "$(env -u LD_LIBRARY_PATH "$py" -c "$import")" "sparse 12100" "LD_LIBRARY_PATH unset"
expect_eq "$(activated_import UNSET)" "sparse 12100" "activated from unset"
agrees not-activated "$system"
agrees activated "$system"
agrees not-activated UNSET
"$CONDACUDA" info -p "$env" --json > "$scratch/info.json"
expect_eq "$(json "$scratch/info.json" '[p.split("site-packages/")[1] for p in j["pinned"]]')" \
  "['nvidia/cusparse/lib/libcusparse.so.12']" "info lists the pin"

note "lock hashes a pinned file as its original: lock --check sees no drift"
"$CONDACUDA" lock -p "$env" -o "$scratch/cuda.lock.yml" > /dev/null
grep -q "$(echo "$original_sha" | cut -d' ' -f1)" "$scratch/cuda.lock.yml" || fail "the lock has not the original sha256"
"$CONDACUDA" lock -p "$env" --check "$scratch/cuda.lock.yml" > /dev/null || fail "lock --check reports the pin as drift"

note "repair again keeps the pins (no --pin needed), writes nothing"
stat -c '%i %Y %n' "$cusparse" "$env/etc/condacuda/manifest.yml" > "$scratch/stat1"
sleep 1
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --json > "$scratch/again.json"
expect_eq "$(json "$scratch/again.json" 'j["outcome"]')" unchanged "second repair"
stat -c '%i %Y %n' "$cusparse" "$env/etc/condacuda/manifest.yml" > "$scratch/stat2"
cmp -s "$scratch/stat1" "$scratch/stat2" || fail "the second repair rewrote files"

note "undo: the original bytes, the cache's inode again"
"$CONDACUDA" undo -p "$env" > /dev/null
expect_eq "$(sha256sum < "$cusparse")" "$original_sha" "the env's file after undo"
expect_eq "$(stat -c %i "$cusparse")" "$(stat -c %i "$cache")" "the env's file is the cache's inode again"
expect_eq "$(sha256sum < "$cache")" "$cache_sha" "the package cache's copy after undo"
tree_state "$env" > "$scratch/after"
cmp -s "$scratch/original" "$scratch/after" || { diff "$scratch/original" "$scratch/after" >&2; fail "undo left changes"; }

note "undo refuses a pinned file changed since"
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --pin > /dev/null
printf 'x' >> "$cusparse"
expect_status 1 "$CONDACUDA" undo -p "$env"
grep -q "pins:" "$env/etc/condacuda/manifest.yml" || fail "the pin left the manifest"
truncate -s -1 "$cusparse"
"$CONDACUDA" undo -p "$env" > /dev/null
expect_eq "$(sha256sum < "$cusparse")" "$original_sha" "restored once the change is taken back"

note "undo when the original inode was not kept: gone, or another file in its place; the tag is flipped back"
# The kept original is trusted only when it hashes as the original; else undo
# changes the pinned file's tag back, and the kept name goes either way.
for kept_state in removed replaced; do
  LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --pin > /dev/null
  kept=("$env"/etc/condacuda/originals/*)
  expect_eq "${#kept[@]}" 1 "kept originals before undo ($kept_state)"
  expect_eq "$(sha256sum < "${kept[0]}")" "$original_sha" "the kept original before undo ($kept_state)"
  rm "${kept[0]}" # unlinked: the package cache's inode stays as it is
  if [ "$kept_state" = replaced ]; then { cat "$cache" && printf 'x'; } > "${kept[0]}"; fi
  "$CONDACUDA" undo -p "$env" > /dev/null
  expect_eq "$(sha256sum < "$cusparse")" "$original_sha" "the env's file after undo, its kept original $kept_state"
  grep -q '(RUNPATH)' <<< "$(readelf -d "$cusparse")" || fail "no DT_RUNPATH after undo, its kept original $kept_state"
  expect_eq "$(sha256sum < "$cache")" "$cache_sha" "the package cache's copy after undo, its kept original $kept_state"
  tree_state "$env" > "$scratch/after-$kept_state"
  cmp -s "$scratch/original" "$scratch/after-$kept_state" ||
    { diff "$scratch/original" "$scratch/after-$kept_state" >&2; fail "undo with its kept original $kept_state left changes"; }
done
ln -f "$cache" "$cusparse" # the cache's inode again, as the rest of this test expects

note "a venv: repair pins by default"
rm -rf "$env/conda-meta"
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --json > "$scratch/venv.json"
expect_eq "$(json "$scratch/venv.json" 'j["env"]["kind"]')" venv kind
expect_eq "$(json "$scratch/venv.json" 'j["plan"]["pin"] and len(j["plan"]["pins"]) == 1')" True "pinned by default"
expect_eq "$(json "$scratch/venv.json" 'any("venv" in n for n in j["notes"])')" True "says why"
expect_eq "$(LD_LIBRARY_PATH=$system "$py" -c "$import")" "sparse 12100" "venv, not activated"
expect_eq "$("$CONDACUDA" run "$env" -- sh -c 'command -v python3')" "$env/bin/python3" "run finds the env's python"
expect_eq "$("$CONDACUDA" run "$env" -- sh -c 'echo "$VIRTUAL_ENV"')" "$env" "run sets VIRTUAL_ENV"
status=0
out=$("$CONDACUDA" run "$env" python3 -c 1 2>&1) || status=$?
expect_eq "$status" 2 "run without --: bad input"
case "$out" in *"put -- before the command"*) ;; *) fail "run without --: $out" ;; esac
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --no-pin > /dev/null
expect_eq "$(sha256sum < "$cusparse")" "$original_sha" "--no-pin takes the pin back"
"$CONDACUDA" undo -p "$env" > /dev/null

note "the CUDA 13 wheel env with an older nvJitLink 13 planted"
if make_cuda13_env "$scratch/cu13" && [ -z "$(find "$scratch/cu13" -type l -name 'lib*.so*' -print -quit)" ]; then
  cu13=$scratch/cu13
  old=$scratch/old-cuda/lib64
  make_old_nvjitlink13 "$old"
  tree_state "$cu13" > "$scratch/cu13-original"
  # What the env shares with /usr/local/cuda (the "package cache"), by inode.
  (cd "$cu13" && find . -type f -links +1 -printf '%i %p\n' | sort) > "$scratch/cu13-inodes"
  expect_status 1 env LD_LIBRARY_PATH="$old" "$CONDACUDA" doctor -p "$cu13" --context not-activated > /dev/null
  LD_LIBRARY_PATH=$old "$CONDACUDA" repair -p "$cu13" --json > "$scratch/cu13.json"
  expect_eq "$(json "$scratch/cu13.json" 'j["outcome"]')" repaired "cu13 outcome"
  pins=$(json "$scratch/cu13.json" '" ".join(p["path"] for p in j["plan"]["pins"])')
  [ -n "$pins" ] || fail "nothing pinned in the CUDA 13 env"
  note "pinned: $pins"
  for p in $pins; do
    src=$(awk -v p="./$p" '$2 == p { print $1 }' "$scratch/cu13-inodes")
    [ -n "$src" ] || fail "$p was not hard-linked from /usr/local/cuda before the pin"
    shared=$(find "${CONDACUDA_CUDA_ROOT:-/usr/local/cuda}/lib/" -inum "$src" | head -1)
    [ -n "$shared" ] || fail "no /usr/local/cuda file shares $p"
    expect_eq "$(sha256sum < "$shared")" "$(sha256sum < "$cu13/etc/condacuda/originals/"*"-${p##*/}")" "the shared original of $p"
  done
  # Every root loads alone, not activated. What remains: import orders that
  # load the planted nvJitLink first through a library with no DT_RUNPATH to
  # pin (libcusolverMg): the plan names it as an order limit, the note says
  # which order works, and doctor's import-order errors are about that only.
  expect_eq "$(json "$scratch/cu13.json" 'sorted(set((l["launch"], l["soname"], l["copy"]) for l in j["plan"]["order_limits"]))')" \
    "[('not-activated', 'libnvJitLink.so.13', '$old/libnvJitLink.so.13')]" "the order limit: the planted copy, not activated"
  expect_eq "$(json "$scratch/cu13.json" 'any("import-order" in n and "before" in n for n in j["notes"])')" True "the note says which order works"
  # Exit 1: the import-order errors of the limit the plan names (below).
  expect_status 1 env LD_LIBRARY_PATH="$old" "$CONDACUDA" doctor -p "$cu13" --context not-activated --json > "$scratch/cu13-doctor.json"
  expect_eq "$(json "$scratch/cu13-doctor.json" 'j["summary"]["fails"]')" 0 "CUDA 13 roots that fail not activated after the pins"
  expect_eq "$(json "$scratch/cu13-doctor.json" 'sorted(set(f["code"] for f in j["findings"] if f["severity"] == "error") - {"import-order"})')" \
    "[]" "errors other than import-order after the pins"
  expect_eq "$(json "$scratch/cu13-doctor.json" 'sorted(set(f["library"] for f in j["findings"] if f["code"] == "import-order"))')" \
    "['libnvJitLink.so.13']" "import-order errors only for the limit the plan names"
  LD_LIBRARY_PATH=$old python3 "$oracle" "$scratch/cu13-doctor.json" --probe "$CONDACUDA_DLOPEN_PROBE" > /dev/null
  "$CONDACUDA" undo -p "$cu13" > /dev/null
  tree_state "$cu13" > "$scratch/cu13-after"
  cmp -s "$scratch/cu13-original" "$scratch/cu13-after" || fail "undo did not restore the CUDA 13 env"
  (cd "$cu13" && find . -type f -links +1 -printf '%i %p\n' | sort) > "$scratch/cu13-inodes-after"
  cmp -s "$scratch/cu13-inodes" "$scratch/cu13-inodes-after" || fail "undo did not give back the shared inodes"
else
  note "no /usr/local/cuda/dist-info here, or another file system (symlinks, unpinnable): the CUDA 13 part is skipped"
fi
