#!/usr/bin/env bash
# The check's PTX module through the env's real nvJitLink 13, without a GPU
# (nvJitLink is a compiler): the module, targeting sm_75 for nvJitLink 13 (sm_50
# for 12), links for sm_75, sm_90 (H100/H200) and sm_100 into a cubin holding
# every kernel, and sm_70 is refused with
# NVJITLINK_ERROR_UNSUPPORTED_ARCH (docs/gpu-check.md, "nvJitLink").
source "$(dirname "$0")/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
for arch in sm_75 sm_90 sm_100; do
  "$CONDACUDA" check -p "$scratch/cu13" --no-ld-library-path --link-only "$arch" --json > "$scratch/$arch.json" || true
  s='[s for s in j["steps"] if s["name"] == "jit-link"][0]'
  expect_eq "$(json "$scratch/$arch.json" "${s}['status']")" "pass" "$arch: $(json "$scratch/$arch.json" "${s}['error']")"
  expect_eq "$(json "$scratch/$arch.json" "int(${s}['size'].split()[0]) > 1000")" "True" "$arch: cubin size"
  case "$(json "$scratch/$arch.json" "${s}['detail']")" in
    "PTX (.target sm_75) linked for $arch by nvJitLink 13."*) ;; # CUDA 13's lowest architecture
    *) fail "$arch: $(json "$scratch/$arch.json" "${s}['detail']")" ;;
  esac
  note "$arch: $(json "$scratch/$arch.json" "${s}['size']"), $(json "$scratch/$arch.json" '[p["ms"] for p in j["phases"] if p["name"] == "nvJitLink link"][0]') ms"
done
"$CONDACUDA" check -p "$scratch/cu13" --no-ld-library-path --link-only sm_70 --json > "$scratch/sm_70.json" || true
s='[s for s in j["steps"] if s["name"] == "jit-link"][0]'
expect_eq "$(json "$scratch/sm_70.json" "${s}['status']")" "fail" "sm_70 status"
case "$(json "$scratch/sm_70.json" "${s}['error']")" in
  "nvJitLinkCreate: NVJITLINK_ERROR_UNSUPPORTED_ARCH; error log: "*) ;;
  *) fail "sm_70: $(json "$scratch/sm_70.json" "${s}['error']")" ;;
esac
