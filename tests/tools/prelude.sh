# shellcheck shell=bash
# The prelude every test script shares, sourced first by each suite's lib.sh
# (tests/e2e/lib.sh, and through it tests/gpu and tests/bench; tests/shell/lib.sh):
# strict mode, a line-numbered failure trap, skip/fail/note, and one scratch
# folder, $scratch.
#   skip REASON  the test cannot run here (a tool or file it needs is missing):
#                "SKIP: REASON" on stderr, exit 125 (CTest's SKIP_RETURN_CODE;
#                CTest captures stdout and stderr together, and tests/run.sh
#                names each skipped test with its last SKIP: line)
#   fail WHAT    "FAIL: WHAT" on stderr, exit 1
#   note TEXT    "# TEXT" on stdout
#   $scratch     a fresh folder, $TMPDIR/condacuda-<script>.XXXXXX, removed
#                when the script ends passed or skipped; kept (and named on
#                stderr) when it failed, or always with CONDACUDA_KEEP_TEST_DIRS=1
set -Eeuo pipefail
trap 'echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (exit $?)" >&2' ERR

skip() { echo "SKIP: $*" >&2; exit 125; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

_test_name=${0##*/}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/condacuda-${_test_name%.sh}.XXXXXX")
# cleanup [STATUS]: the EXIT trap (STATUS defaults to $?; a script that sets a
# trap of its own calls it last, with the status it saved first).
cleanup() {
  local status=${1:-$?}
  if [ -n "${CONDACUDA_KEEP_TEST_DIRS:-}" ] || { [ "$status" != 0 ] && [ "$status" != 125 ]; }; then
    echo "scratch folder kept: $scratch" >&2
  else
    rm -rf "$scratch"
  fi
}
trap cleanup EXIT
