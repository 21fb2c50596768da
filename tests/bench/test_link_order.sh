#!/usr/bin/env bash
# cmake/link_order.cmake: with lld the functions of src/link_order.txt are
# laid out in the list's order at the start of condacuda's code, and
# tests/bench/link_order.sh writes such a list from callgrind. No timing.
source "$(dirname "$0")/../e2e/lib.sh"
command -v nm > /dev/null || skip "nm is not installed"
list=$CONDACUDA_SOURCE_DIR/src/link_order.txt
comment=$(readelf -p .comment "$CONDACUDA" 2> /dev/null || true)
if [[ $comment == *"LLD "* ]]; then # "Linker: LLD 14.0.6" (Debian's: "Linker: Debian LLD 14.0.6")
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
