#!/usr/bin/env bash
# Root repairing a user's env (issue 26 point 9): `sudo condacuda repair`, or
# the post-link script of a root `conda install` into an env a user owns.
# Everything repair creates -- folders, hooks, the manifest and journal, the
# links, the pinned copies -- belongs to the env's owner, as the rest of the
# env does, so that the user can update or undo it without root; the files
# repair did not create keep their owner; undo leaves nothing of root's.
# Skipped (125) unless run as root.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (it repairs an env root does not own)"

demo_env "$scratch/demo"
export LD_LIBRARY_PATH=$system
# A user and a group that exist nowhere: the numbers are what is checked.
owner=4242 group=4343
chown -R -h "$owner:$group" "$env"

# not_the_envs: every path under the env not owned by owner:group (a link itself).
not_the_envs() { find "$env" \( ! -uid "$owner" -o ! -gid "$group" \) -printf '%P %U:%G\n'; }

note "repair, as root: what it created is the env owner's"
"$CONDACUDA" repair -p "$env" > /dev/null
[ -d "$env/etc/condacuda" ] || fail "repair left no record"
[ -L "$(echo "$env"/lib/python3*/site-packages/nvidia/cusparse/lib/libnvJitLink.so.12)" ] || fail "no repair link"
expect_eq "$(not_the_envs)" "" "paths root owns after repair"

note "repair --pin, as root: the pinned copies too"
"$CONDACUDA" repair -p "$env" --pin --json > "$scratch/pin.json" || { cat "$scratch/pin.json" >&2; fail "repair --pin"; }
expect_eq "$(json "$scratch/pin.json" 'len(j["plan"]["pins"]) > 0')" True "repair --pin pinned a library"
expect_eq "$(not_the_envs)" "" "paths root owns after repair --pin"

note "the user can undo it without root"
# setpriv drops to the env's owner (a uid without an account is enough); the
# scratch folder (mode 0700, root's) must let it reach the env.
if command -v setpriv > /dev/null; then
  chmod 755 "$scratch" "$scratch/demo"
  setpriv --reuid "$owner" --regid "$group" --clear-groups "$CONDACUDA" undo -p "$env" > "$scratch/undo.out" 2>&1 ||
    { cat "$scratch/undo.out" >&2; fail "the env's owner cannot undo root's repair"; }
  [ ! -e "$env/etc/condacuda" ] || fail "undo by the owner left the record"
elif [ -n "${CI:-}" ]; then fail "setpriv (util-linux) is missing"; fi
expect_eq "$(not_the_envs)" "" "paths root owns after undo"

note "an env root owns stays root's"
build_demo_env "$scratch/root-demo"
"$CONDACUDA" repair -p "$scratch/root-demo/env" --pin > /dev/null
expect_eq "$(find "$scratch/root-demo/env" ! -uid 0 -printf '%P\n')" "" "paths not root's in root's env"
