#!/usr/bin/env bash
# The user's own model (issue 51): LD_LIBRARY_PATH names /opt/cuda/lib64 and
# /opt/cuda is a link to cuda-12.0 (as /usr/local/cuda -> cuda-12.0 is on
# most machines). doctor says the entry is a link and where it leads, and its
# fix offers to point the link at a CUDA release that defines what is missing
# (>= 12.1, from the versioned entry points), beside repair and removing the
# entry. Without the link the extra words are absent.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
mkdir -p "$scratch/opt"
cp -r "$(dirname "$system")" "$scratch/opt/cuda-12.0"
ln -s cuda-12.0 "$scratch/opt/cuda"
expect_status 1 env LD_LIBRARY_PATH="$scratch/opt/cuda/lib64" "$CONDACUDA" doctor -p "$env" --json > "$scratch/link.json"
f='[f for f in j["findings"] if f["code"] == "undefined-symbol"][0]'
expect_eq "$(json "$scratch/link.json" "'$scratch/opt/cuda is a link to $scratch/opt/cuda-12.0' in ${f}['evidence']")" True \
  "the link and its target in the evidence"
case "$(json "$scratch/link.json" "${f}['fix']")" in
  *", or point $scratch/opt/cuda (now $scratch/opt/cuda-12.0) at a CUDA >= 12.1") ;;
  *) fail "the fix does not offer to point the link: $(json "$scratch/link.json" "${f}['fix']")" ;;
esac
expect_status 1 env LD_LIBRARY_PATH="$scratch/opt/cuda-12.0/lib64" "$CONDACUDA" doctor -p "$env" --json > "$scratch/plain.json"
expect_eq "$(json "$scratch/plain.json" "[e for e in ${f}['evidence'] if 'is a link to' in e], 'point' in ${f}['fix']")" \
  "([], False)" "no link: no link words"
