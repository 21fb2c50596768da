#!/usr/bin/env bash
# repair on a prefix this user cannot write: exit 4, the error says why
# (Permission denied), nothing is written. As root (who writes anywhere) it
# runs repair as nobody through setpriv; as another user, on a copy of the
# env it made read-only. Skipped (125) as root without setpriv.
source "$(dirname "$0")/lib.sh"
listing() { (cd "$1" && find . -printf '%p %y %s %l\n' | sort); }

as_user=()
if [ "$(id -u)" = 0 ]; then
  command -v setpriv > /dev/null || skip "as root this needs setpriv (util-linux) to run repair as another user"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi

demo_env "$scratch/demo"
ro=$scratch/ro
cp -a "$env" "$ro"
if [ ${#as_user[@]} -gt 0 ]; then
  chmod -R a+rX "$scratch"
else
  # the scratch folder must stay removable when the test ends, failed or not
  trap 'status=$?; chmod -R u+w "$ro" 2> /dev/null || true; cleanup "$status"' EXIT
  chmod -R a-w "$ro"
fi
listing "$ro" > "$scratch/r0"
err=$({ "${as_user[@]}" "$CONDACUDA" repair -p "$ro" > /dev/null; } 2>&1 && echo "exit 0" || echo "exit $?")
case "$err" in *"Permission denied"*"exit 4") ;; *) fail "unwritable prefix: $err" ;; esac
listing "$ro" > "$scratch/r1"
cmp -s "$scratch/r0" "$scratch/r1" || fail "something was written into an unwritable prefix"
note "unwritable prefix: exit 4, nothing written ($(if [ ${#as_user[@]} -gt 0 ]; then echo "as nobody"; else echo "read-only copy"; fi))"
