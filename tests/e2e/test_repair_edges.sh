#!/usr/bin/env bash
# repair's refusals and safety: nothing is written when the plan cannot make
# the env healthy (nvjitlink wheel missing), when a file of the user's is in
# the way, or when the manifest is corrupt (doctor names it:
# unreadable-repair-record, with the fix); --dry-run writes nothing;
# concurrent repairs serialise on the env lock; undo leaves (and reports) a
# hook the user changed. An unwritable prefix: test_repair_unwritable.sh.
source "$(dirname "$0")/lib.sh"
listing() { (cd "$1" && find . -printf '%p %y %s %l\n' | sort); }

demo_env "$scratch/demo"

note "--dry-run writes nothing"
listing "$env" > "$scratch/l0"
"$CONDACUDA" repair -p "$env" --dry-run > /dev/null
listing "$env" > "$scratch/l1"
cmp -s "$scratch/l0" "$scratch/l1" || fail "dry run wrote something"

note "the nvjitlink wheel missing: exit 1, nothing written, the fix named"
cp -a "$env" "$scratch/nojit"
rm -rf "$scratch/nojit"/lib/python3*/site-packages/nvidia/nvjitlink "$scratch/nojit"/lib/python3*/site-packages/nvidia_nvjitlink*
listing "$scratch/nojit" > "$scratch/n0"
expect_status 1 "$CONDACUDA" repair -p "$scratch/nojit" --json > "$scratch/nojit.json"
listing "$scratch/nojit" > "$scratch/n1"
cmp -s "$scratch/n0" "$scratch/n1" || fail "repair wrote into an env it could not fix"
expect_eq "$(json "$scratch/nojit.json" 'j["outcome"]')" cannot-repair outcome
fix=$(json "$scratch/nojit.json" '[f["fix"] for s in j["verification"]["scenarios"] for f in s["findings"] if f["code"] == "not-found"][0]')
case "$fix" in *nvidia-nvjitlink-cu12*) ;; *) fail "fix does not name the wheel: $fix" ;; esac

note "a file of the user's where repair wants to write: untouched, reported, nothing written"
cp -a "$env" "$scratch/user"
mkdir -p "$scratch/user/etc/conda/activate.d"
echo 'export MY_OWN=1' > "$scratch/user/etc/conda/activate.d/condacuda.sh"
listing "$scratch/user" > "$scratch/u0"
expect_status 1 "$CONDACUDA" repair -p "$scratch/user" --json > "$scratch/user.json"
expect_eq "$(cat "$scratch/user/etc/conda/activate.d/condacuda.sh")" 'export MY_OWN=1' "user file"
listing "$scratch/user" > "$scratch/u1"
cmp -s "$scratch/u0" "$scratch/u1" || fail "repair wrote beside a conflict"
expect_eq "$(json "$scratch/user.json" '[c["action"] for c in j["changes"] if c["path"].endswith("activate.d/condacuda.sh")][0]')" conflict action

note "a corrupt manifest: exit 2 naming it, nothing written"
cp -a "$env" "$scratch/corrupt"
mkdir -p "$scratch/corrupt/etc/condacuda"
printf 'version: [1\n' > "$scratch/corrupt/etc/condacuda/manifest.yml"
listing "$scratch/corrupt" > "$scratch/c0"
err=$("$CONDACUDA" repair -p "$scratch/corrupt" 2>&1 > /dev/null && echo "exit 0" || echo "exit $?")
case "$err" in *manifest.yml*"line "*"exit 2") ;; *) fail "corrupt manifest: $err" ;; esac
listing "$scratch/corrupt" > "$scratch/c1"
cmp -s "$scratch/c0" "$scratch/c1" || fail "repair wrote despite a corrupt manifest"

note "doctor on a repaired env whose record is cut short, corrupt or newer: unreadable-repair-record, never stale-repair"
cp -a "$env" "$scratch/record"
"$CONDACUDA" repair -p "$scratch/record" > /dev/null
manifest=$scratch/record/etc/condacuda/manifest.yml
cp "$manifest" "$scratch/manifest.good"
expect_record_finding() { # $1: the case; $2: what its title or evidence says; $3: a word of its fix
  local out=$scratch/record-$1.json status=0
  "$CONDACUDA" doctor -p "$scratch/record" --json > "$out" || status=$?
  expect_eq "$status" 1 "doctor's exit, record $1"
  expect_eq "$(json "$out" '[f["code"] for f in j["findings"] if f["code"] in ("stale-repair", "unreadable-repair-record")]')" \
    "['unreadable-repair-record']" "the record $1: its finding"
  local f='[f for f in j["findings"] if f["code"] == "unreadable-repair-record"][0]'
  expect_eq "$(json "$out" "${f}['severity']")" error "record $1: severity"
  case "$(json "$out" "' '.join([${f}['title']] + ${f}['evidence'])")" in *"$2"*) ;; *) fail "record $1: no '$2'" ;; esac
  case "$(json "$out" "${f}['fix']")" in *"$3"*) ;; *) fail "record $1: fix $(json "$out" "${f}['fix']")" ;; esac
}
# Cut short where the folders end (a manifest still valid YAML, with fewer
# folders: read as a record, it made the repair look stale).
head -c "$(grep -b -m1 '^entries:' "$scratch/manifest.good" | cut -d: -f1)" "$scratch/manifest.good" > "$manifest"
expect_record_finding "cut short" "no 'entries' list: the manifest is incomplete" "condacuda repair -p"
printf 'version: [1\n' > "$manifest"
expect_record_finding corrupt "is corrupt" "move it away"
sed 's/^version: .*/version: 9/' "$scratch/manifest.good" > "$manifest"
expect_record_finding "from a newer condacuda" "written by a newer condacuda" "a newer one"
note "the fix it names works: the record moved away, repair takes its own hooks back"
head -c 100 "$scratch/manifest.good" > "$manifest"
mv "$manifest" "$manifest.corrupt"
"$CONDACUDA" repair -p "$scratch/record" > "$scratch/record-repair.out" ||
  { cat "$scratch/record-repair.out" >&2; fail "repair after the record was moved away"; }
expect_status 0 "$CONDACUDA" doctor -p "$scratch/record" --json > "$scratch/record-after.json"
expect_eq "$(json "$scratch/record-after.json" '[f["code"] for f in j["findings"] if "repair" in f["code"]]')" "[]" \
  "repair findings once mended"

note "two repairs at once serialise on the env lock"
cp -a "$env" "$scratch/race"
"$CONDACUDA" repair -p "$scratch/race" --json > "$scratch/race1.json" & p1=$!
"$CONDACUDA" repair -p "$scratch/race" --json > "$scratch/race2.json" & p2=$!
wait $p1 || fail "first concurrent repair failed"
wait $p2 || fail "second concurrent repair failed"
outcomes=$(printf '%s\n' "$(json "$scratch/race1.json" 'j["outcome"]')" "$(json "$scratch/race2.json" 'j["outcome"]')" | sort | tr '\n' ' ')
case "$outcomes" in "repaired repaired "|"repaired unchanged ") ;; *) fail "outcomes: $outcomes" ;; esac
"$CONDACUDA" repair -p "$scratch/race" --json > "$scratch/race3.json"
expect_eq "$(json "$scratch/race3.json" 'j["outcome"]')" unchanged "state after the race"
! compgen -G "$scratch/race/etc/conda/activate.d/*tmp*" > /dev/null || fail "temporary file left behind"

note "files lost after a repair are recreated; a hook the user changed is refused and left by undo"
rm "$scratch/race/etc/conda/activate.d/condacuda.fish" "$scratch/race"/lib/python3*/site-packages/nvidia/cusparse/lib/libnvJitLink.so.12
"$CONDACUDA" repair -p "$scratch/race" --json > "$scratch/race4.json"
expect_eq "$(json "$scratch/race4.json" 'sorted(c["action"] for c in j["changes"] if c["action"] != "keep")')" "['create', 'create']" recreated
echo '# my change' >> "$scratch/race/etc/conda/deactivate.d/condacuda.csh"
expect_status 1 "$CONDACUDA" repair -p "$scratch/race" > /dev/null
expect_status 1 "$CONDACUDA" undo -p "$scratch/race" > "$scratch/undo.txt"
grep -q 'leave  etc/conda/deactivate.d/condacuda.csh' "$scratch/undo.txt" || fail "undo did not report the changed file"
[ -f "$scratch/race/etc/conda/deactivate.d/condacuda.csh" ] || fail "undo removed a changed file"
[ ! -e "$scratch/race/etc/conda/activate.d/condacuda.sh" ] || fail "undo kept an unchanged file"
grep -q 'deactivate.d/condacuda.csh' "$scratch/race/etc/condacuda/manifest.yml" || fail "manifest should list what is left"
note "repair refusals and safety: ok"
