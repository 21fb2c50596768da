#!/usr/bin/env bash
# Two copies of one soname in the env (issue 14, case 2), with real python:
# the seed env plus conda's cuda-nvjitlink 12.0.76 in $PREFIX/lib, beside the
# pip wheel nvidia-nvjitlink-cu12 12.4 that cuSPARSE needs. The 12.0 copy lacks
# __nvJitLinkAddData_12_1: chosen, it breaks the import (shown first with the
# real loader). repair must choose the wheel's copy for the link and put its
# folder before lib/, verify, and the activated import works.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"

note "conda's cuda-nvjitlink 12.0.76 in \$PREFIX/lib, beside the 12.4 wheel"
add_conda_nvjitlink_12_0 "$env"
# The libraries' folders first, conda's lib/ before the wheel's, as a naive activation would put them.
naive="$env/lib:$sp/nvidia/cusparse/lib:$sp/nvidia/nvjitlink/lib:$sp/nvidia/cuda_runtime/lib"

note "the failure: conda's older copy first breaks cuSPARSE"
out=$(LD_LIBRARY_PATH=$naive "$py" -c "$import" 2>&1 || true)
case "$out" in *"undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"*) ;; *) fail "unexpected: $out" ;; esac

note "repair chooses the wheel's copy, which has what cuSPARSE needs"
unset LD_LIBRARY_PATH
"$CONDACUDA" repair -p "$env" --json > "$scratch/repair.json" || { cat "$scratch/repair.json" >&2; fail "repair refused"; }
expect_eq "$(json "$scratch/repair.json" 'j["outcome"]')" repaired outcome
expect_eq "$(json "$scratch/repair.json" '[l["target"] for l in j["plan"]["links"]]')" \
  "['../../nvjitlink/lib/libnvJitLink.so.12']" "the link goes to the wheel's copy"
expect_eq "$(json "$scratch/repair.json" '[f["path"].split("/")[-2] if "site-packages" in f["path"] else f["path"] for f in j["plan"]["folders"] if "libnvJitLink.so.12" in f["sonames"]]')" \
  "['nvjitlink']" "the folder that answers for libnvJitLink.so.12"
expect_eq "$(json "$scratch/repair.json" 'all(s["passes"] for s in j["verification"]["scenarios"] if s["required"])')" True verified

note "the activated import works, and without activation (the link)"
out=$(bash -c 'set -eu; export CONDA_PREFIX=$1
  for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh | sort); do . "$f"; done
  "$CONDA_PREFIX/bin/python3" -c "$2"' activation "$env" "$import")
expect_eq "$out" "sparse 12100" "activated"
expect_eq "$("$py" -c "$import")" "sparse 12100" "not activated, LD_LIBRARY_PATH unset"
"$CONDACUDA" doctor -p "$env" > /dev/null || fail "doctor after repair is not healthy"

note "no copy in the env has what cuSPARSE needs: repair refuses and names the package to upgrade"
"$CONDACUDA" undo -p "$env" > /dev/null
dist=$(echo "$sp"/nvidia_nvjitlink_cu12-*.dist-info)
while IFS=, read -r rel _; do rm -f "${sp:?}/$rel"; done < "$dist/RECORD"
rm -rf "$dist" "$sp/nvidia/nvjitlink"
expect_status 1 "$CONDACUDA" repair -p "$env" --color never > "$scratch/refused.txt"
layout_ok repair-refused "$scratch/refused.txt"
grep -q "^nothing written: " "$scratch/refused.txt" || fail "repair wrote something"
grep -q "conda install 'cuda-nvjitlink>=12.1'" "$scratch/refused.txt" || { cat "$scratch/refused.txt" >&2; fail "the conda package's upgrade"; }
[ ! -e "$env/etc/condacuda" ] || fail "a refused repair left its manifest"
