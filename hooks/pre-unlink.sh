#!/usr/bin/env bash
# conda pre-unlink script of the condacuda package (installed as
# $PREFIX/bin/.condacuda-pre-unlink.sh). conda runs it as `bash -x script`,
# without activation, before removing the package's files: `condacuda undo`
# removes exactly what repair created (when unchanged), so removing the
# package leaves the env as it was. Never fails the removal.
"${PREFIX:?}/bin/condacuda" undo -p "$PREFIX" > /dev/null 2>&1 || true
exit 0
