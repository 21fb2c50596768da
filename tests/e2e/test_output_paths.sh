#!/usr/bin/env bash
# `lock -o FILE` writes where the user points and destroys nothing it names
# (issue 26, point 1), as `sort -o` and compilers do. Every special file is
# made in this test's own scratch folder, never the machine's /dev/null:
#  - a character device (mknod, as root; skipped with 125 otherwise): still
#    the same device afterwards, written through;
#  - a FIFO with a reader: still a FIFO, the reader gets the lockfile; a FIFO
#    nobody reads: an error at once (exit 2), no wait;
#  - a symlink: still the link, its target holds the lockfile (mode kept); a
#    dangling one creates its target;
#  - a folder: exit 2, nothing changed.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
"$CONDACUDA" lock -p "$env" -o "$scratch/expected.yml" > /dev/null
expected=$(sha256sum < "$scratch/expected.yml")

note "a symlink: followed, the atomic replace happens at its target, whose mode stays"
printf 'old\n' > "$scratch/real.yml"
chmod 0640 "$scratch/real.yml"
ln -s real.yml "$scratch/link.yml"
"$CONDACUDA" lock -p "$env" -o "$scratch/link.yml" > /dev/null
[ -L "$scratch/link.yml" ] || fail "-o replaced the symlink"
expect_eq "$(readlink "$scratch/link.yml")" real.yml "the link's text"
expect_eq "$(sha256sum < "$scratch/real.yml")" "$expected" "what the target holds"
expect_eq "$(stat -c %a "$scratch/real.yml")" 640 "the target's mode"
mkdir "$scratch/sub"
ln -s sub/new.yml "$scratch/dangling.yml"
"$CONDACUDA" lock -p "$env" -o "$scratch/dangling.yml" > /dev/null
[ -L "$scratch/dangling.yml" ] || fail "-o replaced the dangling symlink"
expect_eq "$(sha256sum < "$scratch/sub/new.yml")" "$expected" "a dangling link's new target"

note "a FIFO with a reader: still a FIFO, the reader gets the lockfile"
mkfifo "$scratch/fifo"
timeout 20 cat "$scratch/fifo" > "$scratch/from-fifo" &
reader=$!
# The reader opens the FIFO first; repeat until it did (no sleep-based guess).
for _ in $(seq 1 200); do
  if "$CONDACUDA" lock -p "$env" -o "$scratch/fifo" > /dev/null 2> "$scratch/fifo.err"; then break; fi
  grep -q "nothing reads" "$scratch/fifo.err" || fail "lock -o FIFO: $(cat "$scratch/fifo.err")"
done
wait "$reader"
[ -p "$scratch/fifo" ] || fail "-o replaced the FIFO"
expect_eq "$(sha256sum < "$scratch/from-fifo")" "$expected" "what the reader got"

note "a FIFO nobody reads: an error at once, never a wait"
expect_status 2 timeout 20 "$CONDACUDA" lock -p "$env" -o "$scratch/fifo"
[ -p "$scratch/fifo" ] || fail "a refused -o replaced the FIFO"

note "a folder: exit 2, nothing changed"
mkdir "$scratch/folder"
expect_status 2 "$CONDACUDA" lock -p "$env" -o "$scratch/folder"
if [ ! -d "$scratch/folder" ] || [ -n "$(ls -A "$scratch/folder")" ]; then fail "the folder changed"; fi

note "a character device made here: written through, still the device"
if [ "$(id -u)" != 0 ] || ! mknod "$scratch/null" c 1 3 2> /dev/null; then
  skip "mknod needs root (and a file system that allows device nodes)"
fi
"$CONDACUDA" lock -p "$env" -o "$scratch/null" > /dev/null
expect_eq "$(stat -c %F "$scratch/null")" "character special file" "the device after -o"
expect_eq "$(stat -c '%t:%T' "$scratch/null")" "1:3" "its numbers"
[ -z "$(ls "$scratch"/null.condacuda-tmp-* 2> /dev/null)" ] || fail "a temporary was left beside the device"
note "ok"
