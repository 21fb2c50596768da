#!/usr/bin/env bash
# cmake/link_order.cmake: with lld the functions of src/link_order.txt are
# laid out in the list's order at the start of condacuda's code, and
# tests/bench/link_order.sh writes such a list from callgrind. No timing.
# link_order.sh lays out its env with make_cuda13_env: the test takes the
# cuda13_inodes lock (tests/CMakeLists.txt finds that name here).
source "$(dirname "$0")/../e2e/lib.sh"
command -v nm > /dev/null || skip "nm is not installed"
command -v readelf > /dev/null || skip "readelf is not installed"
list=$CONDACUDA_SOURCE_DIR/src/link_order.txt
comment=$(readelf -p .comment "$CONDACUDA")
linked_by_lld=false
[[ $comment == *"LLD "* ]] && linked_by_lld=true # "Linker: LLD 14.0.6" (Debian's: "Linker: Debian LLD 14.0.6")
# The build says whether it meant to (cmake/link_order.cmake, through ctest).
if [ "${CONDACUDA_ORDERED_LINK:-}" = ON ] && ! $linked_by_lld; then
  fail "the build orders the link (CONDACUDA_ORDERED_LINK=ON), but lld did not link $CONDACUDA"
fi
if $linked_by_lld; then
  # Consecutive listed functions at increasing addresses: nine in ten of them
  # when the list was followed (a C library object holds several), about
  # half when it was not.
  nm --defined-only "$CONDACUDA" > "$scratch/nm.txt"
  python3 - "$list" "$scratch/nm.txt" << 'PY' || fail "the functions are not in the list's order"
import sys
address = {}
for line in open(sys.argv[2]):
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        address.setdefault(parts[2], int(parts[0], 16))
placed = [address[n.strip()] for n in open(sys.argv[1]) if n.strip() in address]
pairs = list(zip(placed, placed[1:]))
rising = sum(1 for a, b in pairs if b >= a)
print("# %d of the list's %d functions in the binary, %d of %d consecutive pairs rising" %
      (len(placed), sum(1 for _ in open(sys.argv[1])), rising, len(pairs)))
sys.exit(0 if len(placed) > 500 and rising >= 0.8 * len(pairs) else 1)
PY
else
  note "condacuda was not linked by lld: the list is not followed (cmake/link_order.cmake)"
fi
status=0
bash "$(dirname "$0")/link_order.sh" "$scratch/written.txt" || status=$?
[ "$status" = 125 ] && skip "link_order.sh skipped"
[ "$status" = 0 ] || fail "link_order.sh exited $status"
grep -qx main "$scratch/written.txt" || fail "main is not in the written list"
grep -q '^_ZN9condacuda3app6doctor' "$scratch/written.txt" || fail "app::doctor is not in the written list"
