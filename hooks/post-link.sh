#!/usr/bin/env bash
# conda post-link script of the condacuda package (installed as
# $PREFIX/bin/.condacuda-post-link.sh). conda runs it with the env activated,
# PREFIX set, cwd and PATH on the script's folder. It repairs the env's CUDA
# library loading (plan, verify by simulation, apply) and always exits 0: a
# failing post-link makes conda roll back the whole install. What the user must
# know goes to $PREFIX/.messages.txt, which conda prints and deletes.
#
# Another package (an organisation's pytorch-gpu metapackage, say) that depends
# on condacuda can run the same line from its own post-link, after its own
# dependencies are in place:  "$PREFIX/bin/condacuda" repair --post-link -p "$PREFIX"
"${PREFIX:?}/bin/condacuda" repair --post-link -p "$PREFIX" > /dev/null 2>&1 || true
exit 0
