#!/usr/bin/env bash
# Writes the list of functions cmake/link_order.cmake lays out together: those
# condacuda runs at start (--version), then in a repeated doctor run on the 31
# CUDA 13 libraries laid out as an env, then on the demo env (its python's
# sys.path and frameworks), then in a first run (--no-cache) on the CUDA 13 env, in
# the order valgrind's callgrind first names them, mangled (the names lld
# matches). Run it by hand after changes that move much code, on a build of
# that code, and commit the list; a stale list costs speed, never correctness.
#   usage: link_order.sh [OUT]   (default: src/link_order.txt)
source "$(dirname "$0")/../e2e/lib.sh"
command -v valgrind > /dev/null || skip "valgrind is not installed"
make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
out=${1:-$CONDACUDA_SOURCE_DIR/src/link_order.txt}
export LD_LIBRARY_PATH=
doctor=("$CONDACUDA" doctor --json --no-ld-library-path -p "$scratch/cu13")
"${doctor[@]}" > /dev/null || true # fills the load-check cache
sleep 1.1                           # files changed in the last second are not cached
profile() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$scratch/$1.out" "${@:2}" > /dev/null 2>&1 || true; }
# The demo env has a python: its sys.path and the frameworks found on it.
"$CONDACUDA_SOURCE_DIR/examples/demo-env/build.sh" "$scratch/demo" > /dev/null
demo=("$CONDACUDA" doctor --json -p "$scratch/demo/env")
"${demo[@]}" > /dev/null || true
profile start "$CONDACUDA" --version
profile repeated "${doctor[@]}"
profile demo "${demo[@]}"
profile first "${doctor[@]}" --no-cache
# "fn=(id) name" names a function the first time it appears; "'2" marks a
# second instance of a recursive one. Code of no symbol (the vDSO's
# addresses, "(below main)") is left out.
python3 - "$scratch"/{start,repeated,demo,first}.out > "$scratch/order.txt" << 'PY'
import re, sys
seen = set()
for path in sys.argv[1:]:
    for line in open(path, errors="replace"):
        m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if not m:
            continue
        name = m.group(1).split("'")[0]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.$]*", name) or name.startswith("0x"):
            continue
        if name not in seen:
            seen.add(name)
            print(name)
PY
[ "$(wc -l < "$scratch/order.txt")" -gt 100 ] || fail "callgrind named too few functions"
cp "$scratch/order.txt" "$out"
note "$(wc -l < "$out") functions in $out"
