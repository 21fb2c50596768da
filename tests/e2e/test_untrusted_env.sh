#!/usr/bin/env bash
# An env is untrusted input (condacuda runs as root inside conda install and
# remove): each attack of a hostile env first, then what condacuda does.
#   1. a planted manifest that lists "../victim.txt" (right sha256), or only
#      "../victimdir" as a folder it made: undo and repair refuse it (exit 2),
#      nothing deleted;
#   2. etc/conda or etc/condacuda planted as a link to a folder outside the
#      env (etc/conda also after a repair, a middle component of the hooks'
#      paths), .messages.txt as a link or a FIFO: nothing written or deleted
#      outside, no hang;
#   3. FIFOs where files are read, a RECORD that is /dev/zero, a FIFO library;
#   6. escape sequences in versions and ELF strings; 7. invalid UTF-8 in JSON;
#   9. messages that name the cause; 10. inputs past their caps.
source "$(dirname "$0")/lib.sh"
unset LD_LIBRARY_PATH

demo_env "$scratch/demo"

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
tree_state "$scratch/m" > "$scratch/m0"
# refused MESSAGE: undo and repair of $scratch/m both exit 2 saying MESSAGE.
refused() {
  local command err
  for command in undo repair; do
    err=$("$CONDACUDA" "$command" -p "$scratch/m" 2>&1 > /dev/null && echo "exit 0" || echo "exit $?")
    case "$err" in
    *"$1"*"exit 2") ;;
    *) fail "$command with a hostile manifest: $err" ;;
    esac
  done
}
refused "manifest.yml: entry path '../victim.txt' is not a path inside the env"
expect_eq "$(cat "$scratch/victim.txt")" precious "the file outside the env"
[ -d "$scratch/victimdir" ] || fail "the folder outside the env was removed"
tree_state "$scratch/m" > "$scratch/m1"
cmp -s "$scratch/m0" "$scratch/m1" || fail "the env changed"
# conda remove runs the pre-unlink script, which runs undo (and never fails the removal).
PREFIX=$scratch/m bash "$CONDACUDA_SOURCE_DIR/hooks/pre-unlink.sh"
expect_eq "$(cat "$scratch/victim.txt")" precious "the file outside the env, after pre-unlink"
[ -d "$scratch/victimdir" ] || fail "the folder outside the env was removed by pre-unlink"
# Only the folder: parsing must refuse it too (not stop at an entry first).
printf 'version: 1\ntool: condacuda 0.1.0\nfolders: []\nentries: []\ndirs: ["../victimdir"]\n' > "$scratch/m/etc/condacuda/manifest.yml"
refused "folder created '../victimdir' is not a path inside the env"
[ -d "$scratch/victimdir" ] || fail "the folder outside the env was removed"

note "2. etc/conda a link to a folder outside the env: refused, nothing written"
cp -a "$env" "$scratch/l"
mkdir -p "$scratch/outside" "$scratch/l/etc"
ln -s "$scratch/outside" "$scratch/l/etc/conda"
tree_state "$scratch/l" > "$scratch/l0"
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
tree_state "$scratch/l" > "$scratch/l1"
cmp -s "$scratch/l0" "$scratch/l1" || fail "the env changed"

note "   etc/condacuda a link to a folder outside: refused, nothing written there"
cp -a "$env" "$scratch/lc"
mkdir -p "$scratch/outside2" "$scratch/lc/etc"
ln -s "$scratch/outside2" "$scratch/lc/etc/condacuda"
status=0
"$CONDACUDA" repair -p "$scratch/lc" > "$scratch/lc.out" 2>&1 || status=$?
[ "$status" = 1 ] || [ "$status" = 2 ] || { cat "$scratch/lc.out" >&2; fail "repair through an etc/condacuda link exited $status"; }
[ -z "$(ls -A "$scratch/outside2")" ] || fail "repair wrote through etc/condacuda: $(ls -A "$scratch/outside2")"
status=0
"$CONDACUDA" undo -p "$scratch/lc" > /dev/null 2>&1 || status=$?
expect_eq "$status" 1 "exit status of undo through an etc/condacuda link"
[ -z "$(ls -A "$scratch/outside2")" ] || fail "undo wrote through etc/condacuda"

note "   etc/conda swapped for a link after the repair (a middle component of the hook's path): nothing deleted, written or read through it"
# The hooks are etc/conda/activate.d/condacuda.sh and the like: etc/conda is
# neither the file nor its folder. The folder moved out of the env as it was,
# so every file in it still has the sha256 the manifest records: a walk that
# checks only the last folder would take them for condacuda's own and delete
# them (issue 26 point 10 g).
cp -a "$env" "$scratch/mid"
"$CONDACUDA" repair -p "$scratch/mid" > /dev/null
mv "$scratch/mid/etc/conda" "$scratch/outside3"
ln -s "$scratch/outside3" "$scratch/mid/etc/conda"
[ -f "$scratch/outside3/activate.d/condacuda.sh" ] || fail "the repair wrote no activation hook"
tree_state "$scratch/outside3" > "$scratch/mid0"
for command in undo repair "repair --no-pin"; do
  status=0
  # shellcheck disable=SC2086 # the command's words
  "$CONDACUDA" $command -p "$scratch/mid" > "$scratch/mid.out" 2>&1 || status=$?
  [ "$status" -lt 128 ] || { cat "$scratch/mid.out" >&2; fail "$command crashed (exit $status)"; }
  tree_state "$scratch/outside3" > "$scratch/mid1"
  cmp -s "$scratch/mid0" "$scratch/mid1" || fail "$command changed the folder outside the env: $(diff "$scratch/mid0" "$scratch/mid1" | head -5)"
done

note "   .messages.txt a link to a file outside, or a FIFO: the post-link writes nothing there, never hangs"
cp -a "$env" "$scratch/pm"
echo precious > "$scratch/target.txt"
ln -s "$scratch/target.txt" "$scratch/pm/.messages.txt"
timeout 60 "$CONDACUDA" repair --post-link -p "$scratch/pm" > /dev/null 2>&1 || fail "post-link with a linked .messages.txt did not exit 0"
expect_eq "$(cat "$scratch/target.txt")" precious "the file .messages.txt linked to"
"$CONDACUDA" undo -p "$scratch/pm" > /dev/null
rm "$scratch/pm/.messages.txt" && mkfifo "$scratch/pm/.messages.txt"
status=0
timeout 60 "$CONDACUDA" repair --post-link -p "$scratch/pm" > /dev/null 2>&1 || status=$?
expect_eq "$status" 0 "post-link with a FIFO as .messages.txt (124 would be a hang)"

# quick COMMAND...: runs a condacuda command that must end on its own (a
# hang is a failure after 60 s); its stdout in $scratch/q.out, stderr in
# $scratch/q.err, exit status in $q.
quick() {
  q=0
  timeout 60 "$CONDACUDA" "$@" > "$scratch/q.out" 2> "$scratch/q.err" || q=$?
  [ "$q" != 124 ] || fail "condacuda $* hung"
}
sp_of() { echo "$1"/lib/python3*/site-packages; }

note "3. FIFOs where files are read, and a RECORD that is /dev/zero: nothing blocks, each named"
cp -a "$env" "$scratch/f"
sp=$(sp_of "$scratch/f")
dist=$(echo "$sp"/nvidia_cusparse_cu12-*.dist-info)
rm "$dist/METADATA" && mkfifo "$dist/METADATA"
dist=$(echo "$sp"/nvidia_cuda_runtime_cu12-*.dist-info)
rm "$dist/RECORD" && ln -s /dev/zero "$dist/RECORD"
mkfifo "$scratch/f/conda-meta/evil-1.0-0.json"
mkdir -p "$scratch/f/etc/conda/activate.d" && mkfifo "$scratch/f/etc/conda/activate.d/other.sh"
for command in info doctor lock "repair --dry-run"; do
  # shellcheck disable=SC2086 # the command's words
  quick $command -p "$scratch/f"
  cat "$scratch/q.out" >> "$scratch/q.err" # info shows its warnings in its report
  said=$(flat "$scratch/q.err") # read across lines: the text view wraps at 100 columns
  grep -q "METADATA is not a regular file (a FIFO)" <<< "$said" ||
    { cat "$scratch/q.err" >&2; fail "$command: the FIFO METADATA is not named"; }
  grep -q "no readable RECORD (it is not a regular file (a character device))" <<< "$said" || fail "$command: the /dev/zero RECORD is not named"
  grep -q "evil-1.0-0.json: is not a regular file (a FIFO)" <<< "$said" || fail "$command: the FIFO conda-meta record is not named"
done
note "   a FIFO as a library: the real loader waits forever; doctor says so instead of 'loads'"
cp -a "$env" "$scratch/fl"
sp=$(sp_of "$scratch/fl")
jit=$sp/nvidia/nvjitlink/lib/libnvJitLink.so.12
rm "$jit" && mkfifo "$jit"
cusparse=$sp/nvidia/cusparse/lib/libcusparse.so.12
status=0
LD_LIBRARY_PATH=${jit%/*} timeout 5 python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$cusparse" 2> /dev/null || status=$?
expect_eq "$status" 124 "the real dlopen of cuSPARSE with a FIFO as nvJitLink (124: still waiting after 5 s)"
quick doctor --json --ld-library-path "${jit%/*}" -p "$scratch/fl"
expect_eq "$q" 1 "doctor's exit status with a FIFO as nvJitLink"
json "$scratch/q.out" '[r["error"] for r in j["roots"] if r["file"].endswith("libcusparse.so.12")][0]' > "$scratch/fifo.err"
grep -q "libnvJitLink.so.12: a FIFO: the loader would wait forever opening it" "$scratch/fifo.err" ||
  fail "doctor does not say the loader blocks: $(cat "$scratch/fifo.err")"

note "6. escape sequences in what the env wrote never reach the terminal raw"
cp -a "$env" "$scratch/e"
sp=$(sp_of "$scratch/e")
meta=$(echo "$sp"/nvidia_cusparse_cu12-*.dist-info/METADATA)
sed -i "s/^Version: .*/Version: 12.1$(printf '\033]0;owned\007\033[2J')/" "$meta"
lib=$sp/nvidia/cusparse/lib/libcusparse.so.12
patchelf --add-needed "$(printf 'libx\033[2J.so')" "$lib"
# Each with its exit status: cuSPARSE's needed libx... is nowhere (doctor 1,
# and repair 1: it cannot make the env healthy).
for run in "0 info" "1 doctor" "1 doctor -v" "1 repair --dry-run" "0 lock"; do
  command=${run#* }
  # shellcheck disable=SC2086
  quick $command --color always -p "$scratch/e" 2> /dev/null
  expect_eq "$q" "${run%% *}" "exit status of $command"
  if grep -q "$(printf '\033')[]2]" "$scratch/q.out" "$scratch/q.err"; then fail "$command printed a raw escape sequence"; fi
done
quick info -p "$scratch/e"
grep -qF '12.1\x1b]0;owned\x07\x1b[2J' "$scratch/q.out" || fail "info does not show the version escaped"
quick doctor -p "$scratch/e"
grep -qF 'libx\x1b[2J.so' "$scratch/q.out" || fail "doctor does not show the needed name escaped"

note "7. --json stays valid UTF-8 with a symbol name that is not"
mkdir -p "$scratch/u"
cp -a "$env" "$scratch/u/env"
sp=$(sp_of "$scratch/u/env")
printf 'int symZbad(void);\nint use(void) { return symZbad(); }\n' > "$scratch/u/use.c"
gcc -shared -fPIC -o "$sp/demotorch/_bad.so" "$scratch/u/use.c" -Wl,--no-as-needed -L"$sp/nvidia/cuda_runtime/lib" -l:libcudart.so.12
python3 - "$sp/demotorch/_bad.so" <<'PY'
import sys
path = sys.argv[1]
data = open(path, 'rb').read()
assert data.count(b'symZbad') >= 1
open(path, 'wb').write(data.replace(b'symZbad', b'sym\xf3bad'))
PY
quick doctor --json -p "$scratch/u/env"
python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))' "$scratch/q.out" ||
  fail "doctor --json is not valid UTF-8 JSON"
grep -qF 'sym\\xf3bad' "$scratch/q.out" || fail "the symbol name is not written as sym\\xf3bad"

note "9. messages that name the cause"
cp -a "$env" "$scratch/a:b"
status=0
LD_LIBRARY_PATH=$scratch/demo/system-cuda-12.0/lib64 "$CONDACUDA" repair -p "$scratch/a:b" > "$scratch/colon.out" 2>&1 || status=$?
expect_eq "$status" 1 "repair of a prefix holding ':'"
# (the text view wraps at 100 columns: the words are read across its lines)
grep -q "LD_LIBRARY_PATH cannot hold '$scratch/a:b', those characters separate its entries" <<< "$(flat "$scratch/colon.out")" ||
  fail "the ':' is not named as the cause: $(cat "$scratch/colon.out")"
long=$scratch/long
while [ ${#long} -lt 4200 ]; do long=$long/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done
quick doctor -p "$long"
expect_eq "$q" 2 "a prefix longer than PATH_MAX"
grep -q "bytes long; Linux takes at most 4095 (PATH_MAX)" "$scratch/q.err" || fail "PATH_MAX not named: $(cat "$scratch/q.err")"
"$CONDACUDA" lock -p "$env" -o "$scratch/good.lock.yml"
python3 -c "print('version: 1\nx: ' + '['*20000 + ']'*20000)" > "$scratch/deep.yml"
python3 - "$scratch/good.lock.yml" "$scratch/nul.yml" "$scratch/dup.yml" <<'PY'
import sys
good = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(good.replace(b'env: ', b'env: "a\\\x00b" #', 1))
open(sys.argv[3], 'wb').write(good.replace(b'version: 1\n', b'version: 1\nversion: 1\n', 1))
PY
for case in "deep.yml:nested more than 64 levels deep at line 2" "nul.yml:a NUL byte at line" "dup.yml:the key 'version' appears twice"; do
  quick lock --check "$scratch/${case%%:*}" -p "$env"
  expect_eq "$q" 2 "lock --check ${case%%:*}"
  grep -q "${case#*:}" "$scratch/q.err" || fail "lock --check ${case%%:*}: $(cat "$scratch/q.err")"
done

note "10. inputs past their cap are refused with a message, not read whole"
python3 -c "import sys; sys.stdout.write('version: 1\n# ' + 'x' * (30 << 20) + '\n')" > "$scratch/big.lock.yml"
quick lock --check "$scratch/big.lock.yml" -p "$env"
expect_eq "$q" 2 "a 30 MB lock"
grep -q "more than the 4194304 condacuda reads of such a file" "$scratch/q.err" || fail "30 MB lock: $(cat "$scratch/q.err")"
cp -a "$env" "$scratch/c"
sp=$(sp_of "$scratch/c")
record=$(echo "$sp"/nvidia_cusparse_cu12-*.dist-info/RECORD)
head -c $((60 << 20)) /dev/zero | tr '\0' 'x' >> "$record"
meta=$(echo "$sp"/nvidia_nvjitlink_cu12-*.dist-info/METADATA)
python3 -c "import sys; open(sys.argv[1], 'a').write('Version: ' + '9' * (50 << 20) + '\n')" "$meta"
quick info -p "$scratch/c"
cat "$scratch/q.out" >> "$scratch/q.err"
grep -q "RECORD ([^)]*more than the 16777216 condacuda reads" <<< "$(flat "$scratch/q.err")" || fail "60 MB RECORD: $(cat "$scratch/q.err")"
grep -q "METADATA is .* bytes, more than the 1048576" <<< "$(flat "$scratch/q.err")" || fail "50 MB METADATA: $(cat "$scratch/q.err")"
[ "$(wc -c < "$scratch/q.out")" -lt 100000 ] || fail "info printed $(wc -c < "$scratch/q.out") bytes"
cp -a "$env" "$scratch/s"
jit=$(sp_of "$scratch/s")/nvidia/nvjitlink/lib/libnvJitLink.so.12
truncate -s 1T "$jit"
quick lock --no-hash-cache -p "$scratch/s"
expect_eq "$q" 2 "lock of an env holding a 1 TB (sparse) library"
grep -q "not hashed: 1099511627776 bytes, more than the 8589934592 condacuda hashes" "$scratch/q.err" || fail "1 TB file: $(cat "$scratch/q.err")"
