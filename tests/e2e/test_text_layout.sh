#!/usr/bin/env bash
# The default text view (issue 51) on the demo env's scenarios: broken by an
# older system nvJitLink (also through a link), healthy, repaired and judged
# without activation, a repaired env's not-activated launch: no line over 100
# columns that has a space to break at, none of the loader's terms, the
# loader's error said once per finding, and each command of a fix alone on a
# line that pastes (the commands --json's actions name, word for word).
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
mkdir -p "$scratch/opt"
cp -r "$(dirname "$system")" "$scratch/opt/cuda-12.0"
ln -s cuda-12.0 "$scratch/opt/cuda"
terms='DT_RUNPATH|DT_RPATH|RUNPATH|RPATH|version node|major only|beyond the major| roots? '

# check NAME ARGS...: the text view of `condacuda ARGS` against the rules, and its --json's repair commands.
check() {
  local name=$1
  shift
  "$@" > "$scratch/$name.txt" || true
  "$@" --json > "$scratch/$name.json" || true
  python3 - "$scratch/$name.txt" "$scratch/$name.json" "$terms" "$name" << 'PY'
import json, re, sys
text, doc, terms, name = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
lines = text.splitlines()
bad = [l for l in lines if len(l) > 100 and " " in l.strip()]
assert not bad, "%s: lines over 100 columns with a break point: %s" % (name, bad)
found = [l for l in lines if re.search(terms, l)]
assert not found, "%s: loader terms in the default view: %s" % (name, found)
for f in doc.get("findings", []):
    if f["first_error"]:
        n = text.replace("\n         ", " ").count(f["first_error"])
        assert n <= 1, "%s: the error of %s is said %d times" % (name, f["code"], n)
    for a in f["actions"]:
        if a["kind"] == "repair":
            want = "         condacuda repair -p '%s'" % a["args"][0]
            assert want in lines, "%s: the repair command is not alone on a line: %s" % (name, want)
print("ok: %s: %d lines" % (name, len(lines)))
PY
}
check broken env LD_LIBRARY_PATH="$system" "$CONDACUDA" doctor -p "$env"
check link env LD_LIBRARY_PATH="$scratch/opt/cuda/lib64" "$CONDACUDA" doctor -p "$env"
check healthy env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env"
env LD_LIBRARY_PATH="$system" "$CONDACUDA" repair -p "$env" > /dev/null
check repaired env LD_LIBRARY_PATH="$system" "$CONDACUDA" doctor -p "$env"
check not-activated env LD_LIBRARY_PATH="$system" "$CONDACUDA" doctor -p "$env" --context not-activated
grep -q 'is a link to' "$scratch/link.txt" || fail "the link's line is missing"
