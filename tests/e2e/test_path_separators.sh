#!/usr/bin/env bash
# A prefix or an env folder with ':' or ';' (issue 26): PATH splits on ':',
# and glibc splits LD_LIBRARY_PATH on ':' and ';' (elf/dl-load.c,
# _dl_init_paths), neither with an escape. `run` on '.../p:y' put y/bin,
# relative to the cwd, on PATH, and on '.../s;x' put a relative library
# folder on LD_LIBRARY_PATH: a library planted under ./x ran its constructor.
# Now `run` refuses such a prefix (exit 2, with the cause), doctor says why
# (unusable-prefix) and its fixes name the cause instead of the repair that
# refuses, and a ';' folder inside the env gets a fix that names it.
# (The hooks' side: tests/shell, "a prefix with a semicolon".)
source "$(dirname "$0")/lib.sh"
unset LD_LIBRARY_PATH

note "a prefix with ';': run refuses it, and nothing planted under the cwd runs"
demo_env "$scratch/s;x"
cwd=$scratch/cwd
# What '…/s;x/env/<folder>' becomes for the loader: '…/s' and 'x/env/<folder>'.
planted=$cwd/x/env/${sp#"$env"/}/nvidia/cuda_runtime/lib
mkdir -p "$planted"
printf '__attribute__((constructor)) static void planted(void) { fopen("%s/PWNED", "w"); }\n' "$scratch" |
  sed '1i #include <stdio.h>' > "$scratch/planted.c"
gcc -shared -fPIC -Wl,-soname,libcudart.so.12 -o "$planted/libcudart.so.12" "$scratch/planted.c"
expect_status 2 bash -c 'cd "$1" && "$CONDACUDA" run -p "$2" -- "$2/bin/python3" -c "import demotorch" 2> "$3"' \
  _ "$cwd" "$env" "$scratch/run.err"
[ ! -e "$scratch/PWNED" ] || fail "run loaded the library planted under the cwd"
grep -q "the env's path contains ':' or ';'" "$scratch/run.err" || fail "run's reason: $(cat "$scratch/run.err")"
expect_status 2 "$CONDACUDA" run -p "$env" --print-ld-library-path 2> /dev/null

note "doctor: unusable-prefix, and fixes that name the cause"
system=$scratch/s\;x/system-cuda-12.0/lib64
cp -a "$system" "$scratch/system-lib64"
expect_status 1 env LD_LIBRARY_PATH="$scratch/system-lib64" "$CONDACUDA" doctor -p "$env" --json > "$scratch/doctor.json"
expect_eq "$(json "$scratch/doctor.json" '[f["severity"] for f in j["findings"] if f["code"] == "unusable-prefix"]')" \
  "['warning']" "the unusable-prefix finding"
expect_eq "$(json "$scratch/doctor.json" '[f["fix"].startswith("move the env to a path without") for f in j["findings"] if f["severity"] == "error"]')" \
  "[True]" "the error's fix: move the env, not the repair"

note "a prefix with ':': run refuses it"
build_demo_env "$scratch/p:y"
mkdir -p "$cwd/y/bin"
printf '#!/bin/sh\ntouch "%s/RAN"\n' "$scratch" > "$cwd/y/bin/t"
chmod +x "$cwd/y/bin/t"
expect_status 2 bash -c 'cd "$1" && "$CONDACUDA" run -p "$2" -- t 2> /dev/null' _ "$cwd" "$scratch/p:y/env"
[ ! -e "$scratch/RAN" ] || fail "run ran ./y/bin/t from the cwd"

note "a ';' folder inside the env: doctor's fix names it, repair refuses it"
demo_env "$scratch/demo"
mv "$sp/nvidia/nvjitlink" "$sp/nvidia/nvjit;link"
sed -i 's|^nvidia/nvjitlink/|nvidia/nvjit;link/|' "$sp"/nvidia_nvjitlink*.dist-info/RECORD
expect_status 1 env LD_LIBRARY_PATH="$scratch/system-lib64" "$CONDACUDA" doctor -p "$env" --json > "$scratch/folder.json"
fixes=$(json "$scratch/folder.json" '[f["fix"] for f in j["findings"] if f["code"] == "undefined-symbol"]')
case "$fixes" in
  *"where its folder has no ':' or ';'"*"cannot hold"*"nvjit;link/lib"*) ;;
  *) fail "the fix does not name the folder: $fixes" ;;
esac
case "$fixes" in *"run \`condacuda repair"*) fail "the fix is the repair that refuses: $fixes" ;; esac
tree_state "$env" > "$scratch/before"
code=0
LD_LIBRARY_PATH=$scratch/system-lib64 "$CONDACUDA" repair -p "$env" > "$scratch/repair.out" 2>&1 || code=$?
[ "$code" != 0 ] || fail "repair accepted a ';' folder"
grep -q "cannot be put on LD_LIBRARY_PATH" "$scratch/repair.out" || fail "repair's reason: $(cat "$scratch/repair.out")"
tree_state "$env" > "$scratch/after"
cmp -s "$scratch/before" "$scratch/after" || fail "the refused repair changed the env"
note "ok"
