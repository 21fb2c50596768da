#!/usr/bin/env bash
# The seed scenario end to end with real python: the demo env's import fails
# with an older system nvJitLink on LD_LIBRARY_PATH -> `condacuda repair` ->
# activate as conda does (CONDA_PREFIX set, activate.d/*.sh sourced in sorted
# order) -> the import succeeds -> deactivate -> LD_LIBRARY_PATH is
# byte-identical to before. Then: idempotence, `condacuda run`, the symlink
# alone with a clean LD_LIBRARY_PATH, undo restoring the env byte for byte.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"

# A listing of the env: path, type, size, link target, content hash.
fingerprint() {
  (cd "$1" && find . -printf '%p %y %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$2"
}
fingerprint "$env" "$scratch/before.txt"

note "before repair the import fails like the seed report"
out=$(LD_LIBRARY_PATH=$system "$py" -c "$import" 2>&1 || true)
case "$out" in *"undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"*) ;; *) fail "unexpected: $out" ;; esac

note "repair"
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --json > "$scratch/repair.json"
expect_eq "$(json "$scratch/repair.json" 'j["outcome"]')" repaired outcome
expect_eq "$(json "$scratch/repair.json" 'j["after"]["healthy"]')" True "doctor after"
expect_eq "$(json "$scratch/repair.json" '[l["path"].split("site-packages/")[1] + " -> " + l["target"] for l in j["plan"]["links"]]')" \
  "['nvidia/cusparse/lib/libnvJitLink.so.12 -> ../../nvjitlink/lib/libnvJitLink.so.12']" "the seed's symlink"
expect_eq "$(readlink "$(echo "$env"/lib/python3*/site-packages/nvidia/cusparse/lib/libnvJitLink.so.12)")" \
  "../../nvjitlink/lib/libnvJitLink.so.12" "relative link on disk"
[ -f "$env/etc/condacuda/manifest.yml" ] || fail "no manifest"
[ ! -e "$env/conda-meta/condacuda.json" ] || fail "wrote into conda-meta"
for f in "$env"/etc/conda/{activate,deactivate}.d/condacuda.sh; do
  shellcheck -s sh "$f" || fail "shellcheck: $f"
done

note "activate as conda does, import, deactivate: LD_LIBRARY_PATH restored byte for byte"
# case NAME SETUP: SETUP is shell code that sets LD_LIBRARY_PATH up in bash.
activation_case() {
  local name=$1 setup=$2
  bash -c '
    set -eu
    '"$setup"'
    before=${LD_LIBRARY_PATH-UNSET}[${LD_LIBRARY_PATH+set}]
    export CONDA_PREFIX=$1 PYTHONDONTWRITEBYTECODE=1
    for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh | sort); do . "$f"; done
    "$CONDA_PREFIX/bin/python3" -c "$2" > /dev/null
    for f in $(ls "$CONDA_PREFIX"/etc/conda/deactivate.d/*.sh | sort -r); do . "$f"; done
    unset CONDA_PREFIX
    after=${LD_LIBRARY_PATH-UNSET}[${LD_LIBRARY_PATH+set}]
    [ "$before" = "$after" ] || { echo "before [$before] after [$after]"; exit 1; }
  ' activation "$env" "$import" || fail "activation case $name"
}
activation_case unset 'unset LD_LIBRARY_PATH'
activation_case empty 'export LD_LIBRARY_PATH='
activation_case one-entry "export LD_LIBRARY_PATH='$system'"
mkdir -p "$scratch/with space/lib"
activation_case spaces "export LD_LIBRARY_PATH='$scratch/with space/lib:$system'"

note "repair again: nothing changes"
stat -c '%i %Y %n' "$env"/etc/conda/*/condacuda.* "$env/etc/condacuda/manifest.yml" > "$scratch/stat1.txt"
sleep 1
LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" --json > "$scratch/again.json"
expect_eq "$(json "$scratch/again.json" 'j["outcome"]')" unchanged "second repair"
stat -c '%i %Y %n' "$env"/etc/conda/*/condacuda.* "$env/etc/condacuda/manifest.yml" > "$scratch/stat2.txt"
cmp -s "$scratch/stat1.txt" "$scratch/stat2.txt" || fail "the second repair rewrote files"

note "without activation: condacuda run, and the symlink alone"
out=$(LD_LIBRARY_PATH=$system "$CONDACUDA" run -p "$env" -- "$py" -c "$import")
expect_eq "$out" "sparse 12100" "condacuda run"
out=$(env -u LD_LIBRARY_PATH "$py" -c "$import")
expect_eq "$out" "sparse 12100" "RUNPATH + symlink, clean LD_LIBRARY_PATH"
expect_status 3 "$CONDACUDA" run -p "$env" -- sh -c 'exit 3'

note "undo: the env is byte for byte as before repair"
"$CONDACUDA" undo -p "$env" > /dev/null
fingerprint "$env" "$scratch/after.txt"
diff "$scratch/before.txt" "$scratch/after.txt" || fail "undo left differences"
note "repair + undo on the demo env: ok"
