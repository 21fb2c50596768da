#!/usr/bin/env bash
# The check's PTX module through the env's real nvJitLink 13, without a GPU
# (nvJitLink is a compiler): the module, targeting sm_75 for nvJitLink 13 (sm_50
# for 12), links for sm_75, sm_90 (H100/H200) and sm_100 into a cubin holding
# every kernel, and sm_70 is refused with
# NVJITLINK_ERROR_UNSUPPORTED_ARCH (docs/gpu-check.md, "nvJitLink").
source "$(dirname "$0")/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
# --link-only runs no driver step: check's verdict is the link's, on every
# machine, driver or not: pass (exit 0) when it links, fail (exit 1) when not.
for arch in sm_75 sm_90 sm_100; do
  expect_status 0 "$CONDACUDA" check -p "$scratch/cu13" --no-ld-library-path --link-only "$arch" --json > "$scratch/$arch.json"
  s='[s for s in j["steps"] if s["name"] == "jit-link"][0]'
  expect_eq "$(json "$scratch/$arch.json" "${s}['status']")" "pass" "$arch: $(json "$scratch/$arch.json" "${s}['error']")"
  expect_eq "$(json "$scratch/$arch.json" "int(${s}['size'].split()[0]) > 1000")" "True" "$arch: cubin size"
  case "$(json "$scratch/$arch.json" "${s}['detail']")" in
    "PTX (.target sm_75) linked for $arch by nvJitLink 13."*) ;; # CUDA 13's lowest architecture
    *) fail "$arch: $(json "$scratch/$arch.json" "${s}['detail']")" ;;
  esac
  note "$arch: $(json "$scratch/$arch.json" "${s}['size']"), $(json "$scratch/$arch.json" '[p["ms"] for p in j["phases"] if p["name"] == "nvJitLink link"][0]') ms"
done
expect_status 1 "$CONDACUDA" check -p "$scratch/cu13" --no-ld-library-path --link-only sm_70 --json > "$scratch/sm_70.json"
s='[s for s in j["steps"] if s["name"] == "jit-link"][0]'
expect_eq "$(json "$scratch/sm_70.json" "${s}['status']")" "fail" "sm_70 status"
case "$(json "$scratch/sm_70.json" "${s}['error']")" in
  "nvJitLinkCreate: NVJITLINK_ERROR_UNSUPPORTED_ARCH; error log: "*) ;;
  *) fail "sm_70: $(json "$scratch/sm_70.json" "${s}['error']")" ;;
esac

# A CUDA 12 nvJitLink still links for Volta (sm_70): the module's .target is
# sm_50 for it. Tried with a real CUDA 12 toolkit's nvJitLink where this
# machine has one (CONDACUDA_NVJITLINK12, or /usr/local/cuda-12.*).
jit12=${CONDACUDA_NVJITLINK12:-}
for candidate in /usr/local/cuda-12.*/lib64/libnvJitLink.so.12; do
  [ -z "$jit12" ] && [ -e "$candidate" ] && jit12=$candidate
done
if [ -n "$jit12" ] && [ -e "$jit12" ]; then
  pyver=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
  lib12=$scratch/cu12/lib/$pyver/site-packages/nvidia/nvjitlink/lib
  mkdir -p "$lib12" "$scratch/cu12/bin"
  printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3\n' > "$scratch/cu12/pyvenv.cfg"
  cp -L "$jit12" "$lib12/libnvJitLink.so.12"
  expect_status 0 "$CONDACUDA" check -p "$scratch/cu12" --no-ld-library-path --link-only sm_70 --json > "$scratch/cu12-sm_70.json"
  s='[s for s in j["steps"] if s["name"] == "jit-link"][0]'
  expect_eq "$(json "$scratch/cu12-sm_70.json" "${s}['status']")" "pass" "CUDA 12 nvJitLink, sm_70: $(json "$scratch/cu12-sm_70.json" "${s}['error']")"
  case "$(json "$scratch/cu12-sm_70.json" "${s}['detail']")" in
    "PTX (.target sm_50) linked for sm_70 by nvJitLink 12."*) ;;
    *) fail "CUDA 12, sm_70: $(json "$scratch/cu12-sm_70.json" "${s}['detail']")" ;;
  esac
else
  note "no CUDA 12 nvJitLink on this machine (CONDACUDA_NVJITLINK12, /usr/local/cuda-12.*): the sm_70 link is not tried"
fi
