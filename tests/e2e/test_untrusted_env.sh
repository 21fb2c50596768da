#!/usr/bin/env bash
# An env is untrusted input (condacuda runs as root inside conda install and
# remove): each attack of a hostile env first, then what condacuda does.
#   1. a planted manifest that lists "../victim.txt" (right sha256) and
#      "../victimdir": undo and repair refuse it (exit 2), nothing deleted;
#   2. etc/conda planted as a link to a folder outside the env: repair refuses
#      (exit 1, REFUSE naming the link), nothing written outside or inside.
source "$(dirname "$0")/lib.sh"
export PYTHONDONTWRITEBYTECODE=1
unset LD_LIBRARY_PATH CONDACUDA_HOOK_STATE
listing() { (cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort); }

build_demo_env "$scratch/demo"
env=$scratch/demo/env

note "1. a manifest listing paths outside the env: refused, nothing deleted"
cp -a "$env" "$scratch/m"
echo precious > "$scratch/victim.txt"
mkdir "$scratch/victimdir"
sha=$(sha256sum "$scratch/victim.txt" | cut -d' ' -f1)
mkdir -p "$scratch/m/etc/condacuda"
cat > "$scratch/m/etc/condacuda/manifest.yml" <<EOF
version: 1
tool: condacuda 0.1.0
folders: []
entries:
  - path: "../victim.txt"
    kind: file
    sha256: $sha
dirs: ["../victimdir"]
EOF
ln -s "$CONDACUDA" "$scratch/m/bin/condacuda" # as the conda package installs it, for the link script
listing "$scratch/m" > "$scratch/m0"
for command in undo repair; do
  err=$("$CONDACUDA" "$command" -p "$scratch/m" 2>&1 > /dev/null && echo "exit 0" || echo "exit $?")
  case "$err" in
  *"manifest.yml: entry path '../victim.txt' is not a path inside the env"*"exit 2") ;;
  *) fail "$command with a hostile manifest: $err" ;;
  esac
done
expect_eq "$(cat "$scratch/victim.txt")" precious "the file outside the env"
[ -d "$scratch/victimdir" ] || fail "the folder outside the env was removed"
listing "$scratch/m" > "$scratch/m1"
cmp -s "$scratch/m0" "$scratch/m1" || fail "the env changed"
# conda remove runs the pre-unlink script, which runs undo (and never fails the removal).
PREFIX=$scratch/m bash "$CONDACUDA_SOURCE_DIR/hooks/pre-unlink.sh"
expect_eq "$(cat "$scratch/victim.txt")" precious "the file outside the env, after pre-unlink"
[ -d "$scratch/victimdir" ] || fail "the folder outside the env was removed by pre-unlink"

note "2. etc/conda a link to a folder outside the env: refused, nothing written"
cp -a "$env" "$scratch/l"
mkdir -p "$scratch/outside" "$scratch/l/etc"
ln -s "$scratch/outside" "$scratch/l/etc/conda"
listing "$scratch/l" > "$scratch/l0"
expect_status 1 "$CONDACUDA" repair -p "$scratch/l" --json > "$scratch/l.json"
expect_eq "$(json "$scratch/l.json" 'j["outcome"]')" conflict outcome
reason=$(json "$scratch/l.json" '[c["reason"] for c in j["changes"] if c["action"] == "conflict"][0]')
case "$reason" in
"etc/conda is a symbolic link (to $scratch/outside): condacuda does not write or delete through it") ;;
*) fail "the refusal does not name the link: $reason" ;;
esac
expect_status 1 "$CONDACUDA" repair -p "$scratch/l" > "$scratch/l.txt"
grep -q "REFUSE" "$scratch/l.txt" || fail "the text output does not mark the refusal"
[ -z "$(ls -A "$scratch/outside")" ] || fail "repair wrote through the link: $(ls -A "$scratch/outside")"
listing "$scratch/l" > "$scratch/l1"
cmp -s "$scratch/l0" "$scratch/l1" || fail "the env changed"
