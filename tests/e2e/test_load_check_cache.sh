#!/usr/bin/env bash
# doctor's load-check cache ($XDG_CACHE_HOME/condacuda/load-checks,
# sys/load_check_cache.hpp), and with it the system folder, dist-info and
# result caches beside it, never change a verdict: on every kind of env the
# e2e suites build (the demo env under several LD_LIBRARY_PATHs, an import
# order env, 400 hostile variants of real libraries, the CUDA 13 libraries when
# this machine has them) doctor --json is the same with --no-cache, with an
# empty cache and with the cache it filled. Then each of these is a miss, and
# the verdict follows the file, not the cache: a library changed in place (same
# size, mtime set back with touch -d: only the ctime tells), a damaged cache
# file, one owned by another user, one others may write. The result cache
# (bindings and the symbol rule, sys/result_cache.hpp) follows a provider
# changed the same way: a symbol it defined gone, only the ctime tells. A
# library judged under two glibc releases gets each its own verdict.
source "$(dirname "$0")/lib.sh"

cache=$XDG_CACHE_HOME/condacuda/load-checks
dist_info=$XDG_CACHE_HOME/condacuda/dist-info
folders=$XDG_CACHE_HOME/condacuda/system-folders
results=$XDG_CACHE_HOME/condacuda/results

# same_three ENV NAME [DOCTOR ARGS...]: --no-cache, cold and warm agree.
same_three() {
  local env=$1 name=$2 status
  shift 2
  rm -f "$cache" "$dist_info" "$folders" "$results"
  for run in nocache cold warm; do
    local extra=()
    [ "$run" = nocache ] && extra=(--no-cache)
    status=0
    "$CONDACUDA" doctor -p "$env" --json "${extra[@]}" "$@" > "$scratch/$name.$run.json" 2> "$scratch/$name.$run.err" || status=$?
    case "$status" in 0 | 1) ;; *) cat "$scratch/$name.$run.err" >&2; fail "$name: doctor ($run) exited $status" ;; esac
    for written in "$cache" "$dist_info" "$folders" "$results"; do
      if [ "$run" = nocache ] && [ -e "$written" ]; then fail "$name: --no-cache wrote $written"; fi
    done
  done
  cmp -s "$scratch/$name.nocache.json" "$scratch/$name.cold.json" || fail "$name: the cold cache changed doctor's report"
  cmp -s "$scratch/$name.nocache.json" "$scratch/$name.warm.json" || fail "$name: the warm cache changed doctor's report"
  local entries
  entries=$(grep -c "$env" "$cache" || true)
  [ "$entries" -gt 0 ] || fail "$name: nothing of $env was cached"
  local records kept
  records=$(grep -c -- "$env/.*\.dist-info/" "$dist_info" 2> /dev/null || true)
  kept=$(($(wc -l < "$results") - 1))
  [ "$kept" -gt 0 ] || fail "$name: no result was kept"
  note "$name: the same report three ways; $entries of its files cached, ${records:-0} dist-info files, $kept results"
}

# Files written less than a second ago are not cached (their timestamps could
# repeat): every env is built, then left a second before doctor runs.
settle() { sleep 1.1; }

demo_env "$scratch/demo"
settle
same_three "$env" demo
same_three "$env" demo-system-first --ld-library-path "$system"
same_three "$env" demo-unset --no-ld-library-path

demo_env "$scratch/order" # sets env, sp and py, which make_import_order_env uses
make_import_order_env "$scratch/order" 6
settle
same_three "$env" import-order

corpus=$CONDACUDA_SOURCE_DIR/tests/tools/hostile_corpus.py
hostile_corpus_bases "$scratch/bases" > "$scratch/bases.txt"
mapfile -t bases < "$scratch/bases.txt"
hostile=$scratch/hostile
mkdir -p "$hostile/conda-meta" "$hostile/lib"
touch "$hostile/conda-meta/history"
python3 "$corpus" generate "$hostile/lib" 400 7 "${bases[@]}" > /dev/null 2>&1
settle
same_three "$hostile" hostile
failing=$(json "$scratch/hostile.warm.json" "sum(1 for r in j['roots'] if r['verdict'] != 'loads')")
[ "$failing" -gt 0 ] || fail "no hostile variant fails: the comparison proves nothing"

if make_cuda13_env "$scratch/cu13"; then
  settle
  same_three "$scratch/cu13" cuda13 --no-ld-library-path
  # The wheels' METADATA and RECORD files, kept (the run is warm).
  grep -q -- "$scratch/cu13/.*\.dist-info/RECORD\$" "$dist_info" || fail "cuda13: no RECORD in the dist-info cache"
else
  note "no /usr/local/cuda/dist-info: the CUDA 13 env is left out"
fi

# A library changed in place, same size, mtime put back: only its ctime
# differs from the cached key. DT_INIT_ARRAYSZ made huge: the loader would
# call past the mapped image, which only the load check sees.
env=$scratch/change
mkdir -p "$env/conda-meta" "$env/lib"
touch "$env/conda-meta/history"
cp "${bases[0]}" "$env/lib/libcufft_changed.so"
settle
verdict() { json "$1" "[r['verdict'] for r in j['roots'] if r['file'] == 'lib/libcufft_changed.so'][0]"; }
rm -f "$cache"
"$CONDACUDA" doctor -p "$env" --json > "$scratch/before.json" || fail "doctor on the unchanged library"
expect_eq "$(verdict "$scratch/before.json")" loads "the unchanged library"
grep -q "libcufft_changed.so" "$cache" || fail "the unchanged library was not cached"
mtime=$(stat -c %y "$env/lib/libcufft_changed.so")
size=$(stat -c %s "$env/lib/libcufft_changed.so")
# DT_INIT_ARRAYSZ (tag 27) made 1 GiB, in place
python3 "$CONDACUDA_SOURCE_DIR/tests/tools/elf_patch.py" "$env/lib/libcufft_changed.so" dynamic 27=$((1 << 30))
touch -d "$mtime" "$env/lib/libcufft_changed.so"
expect_eq "$(stat -c %s "$env/lib/libcufft_changed.so")" "$size" "the changed library's size"
expect_eq "$(stat -c %y "$env/lib/libcufft_changed.so")" "$mtime" "the changed library's mtime"
expect_status 1 "$CONDACUDA" doctor -p "$env" --json --no-cache > "$scratch/truth.json"
truth=$(verdict "$scratch/truth.json")
[ "$truth" != loads ] || fail "the changed library still loads in doctor --no-cache: the test proves nothing"
expect_status 1 "$CONDACUDA" doctor -p "$env" --json > "$scratch/after.json"
expect_eq "$(verdict "$scratch/after.json")" "$truth" "the changed library with the cache (a same-size, same-mtime change)"
note "a change with the mtime put back: '$truth' with and without the cache"

# A damaged cache: ignored with a warning, the verdict the file's own.
settle
expect_exit 1 /dev/null /dev/null "$CONDACUDA" doctor -p "$env" --json
grep -q "libcufft_changed.so" "$cache" || fail "the changed library was not cached again"
sed -i 's/^\([0-9,]*\) [orc] /\1 x /' "$cache"
expect_exit 1 "$scratch/damaged.json" "$scratch/damaged.err" "$CONDACUDA" doctor -p "$env" --json
expect_eq "$(verdict "$scratch/damaged.json")" "$truth" "the verdict with a damaged cache"
grep -q "load-check cache is corrupt" "$scratch/damaged.err" || fail "no warning about the damaged cache: $(cat "$scratch/damaged.err")"

# Forged as 'loads' and owned by another user, then writable by others: not read.
expect_exit 1 /dev/null /dev/null "$CONDACUDA" doctor -p "$env" --json
sed -i 's/^\([0-9,]*\) [rc] [0-9a-f]*\t/\1 o \t/' "$cache"
grep -q "^[0-9,]* o .*libcufft_changed.so" "$cache" || fail "could not forge the cache entry"
chown 65534:65534 "$cache"
expect_exit 1 "$scratch/foreign.json" "$scratch/foreign.err" "$CONDACUDA" doctor -p "$env" --json
expect_eq "$(verdict "$scratch/foreign.json")" "$truth" "the verdict with another user's cache"
grep -q "owned by another user" "$scratch/foreign.err" || fail "no warning about another user's cache"
[ "$(stat -c %u "$cache")" = 65534 ] || fail "another user's cache was replaced"
chown 0:0 "$cache"
chmod 666 "$cache"
expect_exit 1 "$scratch/shared.json" "$scratch/shared.err" "$CONDACUDA" doctor -p "$env" --json
expect_eq "$(verdict "$scratch/shared.json")" "$truth" "the verdict with a cache others may write"
grep -q "others may write it" "$scratch/shared.err" || fail "no warning about a cache others may write"
chmod 644 "$cache"
expect_exit 0 "$scratch/forged.json" /dev/null "$CONDACUDA" doctor -p "$env" --json
note "a forged entry in the user's own cache file is believed (as git believes its index): $(verdict "$scratch/forged.json")"

# The result cache: a root that binds, then its provider changed in place
# (same size, mtime put back): the symbol it defined renamed. The bindings
# kept under the old stamps say it binds; the ctime makes them a miss.
env=$scratch/rebind
mkdir -p "$env/conda-meta" "$env/lib"
touch "$env/conda-meta/history"
printf 'int cc_provided(void) { return 2; }\n' > "$scratch/prov.c"
printf 'int cc_provided(void);\nint cc_root(void) { return cc_provided() + 1; }\n' > "$scratch/root.c"
gcc -shared -fPIC -o "$env/lib/libnvJitLink_ccprov.so" "$scratch/prov.c"
gcc -shared -fPIC -Wl,-z,now -o "$env/lib/libcusparse_ccroot.so" "$scratch/root.c" -L"$env/lib" -lnvJitLink_ccprov -Wl,-rpath,'$ORIGIN'
settle
root_verdict() { json "$1" "[r['verdict'] for r in j['roots'] if r['file'] == 'lib/libcusparse_ccroot.so'][0]"; }
rm -f "$results"
"$CONDACUDA" doctor -p "$env" --json > "$scratch/bound.json" || fail "doctor on the env that binds"
expect_eq "$(root_verdict "$scratch/bound.json")" loads "the root before its provider changed"
[ "$(wc -l < "$results")" -gt 1 ] || fail "no binding was kept"
mtime=$(stat -c %y "$env/lib/libnvJitLink_ccprov.so")
python3 - "$env/lib/libnvJitLink_ccprov.so" << 'PY'
import sys
path = sys.argv[1]
data = open(path, "rb").read()
assert b"cc_provided\0" in data, "the name is in the dynamic string table"
with open(path, "r+b") as f:  # in place: same inode, same size
    f.write(data.replace(b"cc_provided\0", b"cc_provideX\0"))
PY
touch -d "$mtime" "$env/lib/libnvJitLink_ccprov.so"
settle # a file changed within the last second has no stamp: nothing is looked up for it
expect_status 1 "$CONDACUDA" doctor -p "$env" --json --no-cache > "$scratch/unbound.truth.json"
truth=$(root_verdict "$scratch/unbound.truth.json")
[ "$truth" != loads ] || fail "the root still loads in doctor --no-cache: the test proves nothing"
expect_status 1 "$CONDACUDA" doctor -p "$env" --json > "$scratch/unbound.json"
expect_eq "$(root_verdict "$scratch/unbound.json")" "$truth" "the root with the result cache (its provider changed, mtime put back)"
cmp -s <(json "$scratch/unbound.truth.json" "j['roots']") <(json "$scratch/unbound.json" "j['roots']") ||
  fail "the roots differ with and without the result cache after the change"
note "a provider changed with the mtime put back: '$truth' with and without the result cache"

# A damaged result cache: ignored with a warning, the verdict the files' own.
sed -i '2s/^/%zz/' "$results"
expect_exit 1 "$scratch/results-damaged.json" "$scratch/results-damaged.err" "$CONDACUDA" doctor -p "$env" --json
expect_eq "$(root_verdict "$scratch/results-damaged.json")" "$truth" "the verdict with a damaged result cache"
grep -q "result cache is corrupt" "$scratch/results-damaged.err" || fail "no warning about the damaged result cache: $(cat "$scratch/results-damaged.err")"

# The glibc release is part of every cache key: one library that 2.34's
# load-command rules refuse (a p_align that is no page multiple) and 2.35's
# load (glibc 163f625cf9), judged under each release with the caches the
# other filled. A key without the release would serve one's verdict for both.
env=$scratch/by-release
mkdir -p "$env/conda-meta" "$env/lib"
touch "$env/conda-meta/history"
printf 'int cc_align(void) { return 1; }\n' > "$scratch/align.c"
gcc -shared -fPIC -o "$env/lib/libcufft_align.so" "$scratch/align.c"
python3 "$CONDACUDA_SOURCE_DIR/tests/tools/elf_patch.py" "$env/lib/libcufft_align.so" load-align 0x800
settle
align_verdict() { json "$1" "[r['verdict'] for r in j['roots'] if r['file'] == 'lib/libcufft_align.so'][0]"; }
expect_exit 1 "$scratch/g234.truth.json" /dev/null "$CONDACUDA" doctor -p "$env" --json --glibc 2.34 --no-cache
expect_exit 0 "$scratch/g235.truth.json" /dev/null "$CONDACUDA" doctor -p "$env" --json --glibc 2.35 --no-cache
expect_eq "$(align_verdict "$scratch/g234.truth.json") $(align_verdict "$scratch/g235.truth.json")" "fails loads" \
  "2.34 refuses the library, 2.35 loads it"
rm -f "$cache" "$dist_info" "$folders" "$results"
for glibc in 2.34 2.35 2.34 2.35; do # each run after the other release filled the caches
  status=0
  "$CONDACUDA" doctor -p "$env" --json --glibc "$glibc" > "$scratch/g.json" || status=$?
  doctor_status_agrees "$scratch/g.json" "$status"
  cmp -s <(json "$scratch/g.json" "j['roots']") <(json "$scratch/g${glibc/./}.truth.json" "j['roots']") ||
    fail "--glibc $glibc with the caches the other release filled: $(align_verdict "$scratch/g.json")"
done
grep -q "libcufft_align.so" "$cache" || fail "the library was not cached"
note "one library, refused by 2.34 and loaded by 2.35: each release's verdict with the other's caches"
