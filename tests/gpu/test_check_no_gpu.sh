#!/usr/bin/env bash
# The CPU proof of `condacuda check` (exit 3, no usable GPU), with the real
# CUDA 13 wheel libraries of /usr/local/cuda laid out as an env:
#   1. nothing on LD_LIBRARY_PATH: no libcuda.so.1, the message says where the
#      loader looked;
#   2. the toolkit's stubs folder on LD_LIBRARY_PATH (it holds only
#      libcuda.so, soname libcuda.so.1): still no libcuda.so.1, the message
#      names the stubs folder;
#   3. the stub reachable as libcuda.so.1 (what Dockerfiles do to link):
#      it loads, cuInit returns CUDA_ERROR_STUB_LIBRARY (34), the message
#      names the LD_LIBRARY_PATH entry.
# In every case the probe's library report is produced and agrees with the
# loader model's prediction, library by library and object by object.
source "$(dirname "$0")/lib.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
env_lib=$(echo "$scratch"/cu13/lib/python3*/site-packages/nvidia/cu13/lib)
stubs=${CONDACUDA_CUDA_ROOT:-/usr/local/cuda}/lib64/stubs

if has_driver; then
  note "a driver is installed: case 1 does not apply"
else
  note "1. nothing on LD_LIBRARY_PATH"
  check_json "$scratch/none.json" 3 -p "$scratch/cu13" --no-ld-library-path --as-is
  f=$scratch/none.json
  expect_eq "$(json "$f" 'j["outcome"]')" "no-gpu" outcome
  case "$(json "$f" 'j["reason"]')" in
    "no usable GPU: libcuda.so.1 (the NVIDIA driver) was not found; the loader looked in "*"/etc/ld.so.cache (libcuda.so.1: cannot open shared object file: No such file or directory)") ;;
    *) fail "reason: $(json "$f" 'j["reason"]')" ;;
  esac
  predictions_agree "$f"
  expect_eq "$(json "$f" '[l["component"] for l in j["libraries"]]')" \
    "['driver', 'cudart', 'cublaslt', 'cublas', 'cusparse', 'nvjitlink']" "components in dlopen order"
  # The env's own files loaded, each of them, even without a GPU.
  expect_eq "$(json "$f" 'all(l["loaded"] and "/nvidia/cu13/lib/" in l["path"] for l in j["libraries"][1:])')" "True" \
    "the env's libraries loaded from the env"
  expect_eq "$(json "$f" '[s["status"] for s in j["steps"]]')" "['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']" steps
  expect_eq "$(json "$f" 'j["ld_library_path"]["value"]')" "None" "the probe's LD_LIBRARY_PATH"
  # By default an env without condacuda's hook gets the folders repair would
  # add (as `condacuda run` gives them): still no driver, still as predicted.
  check_json "$scratch/planned.json" 3 -p "$scratch/cu13" --no-ld-library-path
  expect_eq "$(json "$scratch/planned.json" 'j["ld_library_path"]["source"]')" "plan" "source of LD_LIBRARY_PATH"
  expect_eq "$(json "$scratch/planned.json" 'all(l["opened_by"] == "soname" and l["loaded"] for l in j["libraries"][1:])')" \
    "True" "the env's libraries by soname through the planned folders"
  predictions_agree "$scratch/planned.json"
  expect_status 3 env -u LD_LIBRARY_PATH "$CONDACUDA" check -p "$scratch/cu13" > "$scratch/none.txt"
  grep -q "^result: NO GPU: no usable GPU: libcuda.so.1 (the NVIDIA driver) was not found" "$scratch/none.txt" ||
    fail "text output: $(cat "$scratch/none.txt")"
fi

if [ ! -e "$stubs/libcuda.so" ]; then
  skip "no toolkit stub at $stubs/libcuda.so"
fi
grep -q 'Library soname: \[libcuda.so.1\]' <<< "$(readelf -d "$stubs/libcuda.so")" || fail "$stubs/libcuda.so: soname is not libcuda.so.1"

if ! has_driver && [ ! -e "$stubs/libcuda.so.1" ]; then
  note "2. the toolkit's stubs folder on LD_LIBRARY_PATH"
  check_json "$scratch/stubs.json" 3 -p "$scratch/cu13" --ld-library-path "$stubs" --as-is
  f=$scratch/stubs.json
  reason=$(json "$f" 'j["reason"]')
  case "$reason" in
    *"the loader looked in $stubs, "*"; $stubs on LD_LIBRARY_PATH holds the CUDA toolkit's stub libcuda.so, which is for linking only and is no driver") ;;
    *) fail "reason: $reason" ;;
  esac
  expect_eq "$(json "$f" 'j["ld_library_path"]["value"]')" "$stubs" "the probe's LD_LIBRARY_PATH"
  predictions_agree "$f"
fi

note "3. the stub reachable as libcuda.so.1"
fake=$scratch/cuda/lib64/stubs
mkdir -p "$fake"
ln -s "$stubs/libcuda.so" "$fake/libcuda.so.1"
check_json "$scratch/stub34.json" 3 -p "$scratch/cu13" --ld-library-path "$fake:$env_lib"
f=$scratch/stub34.json
expect_eq "$(json "$f" 'j["driver"]["init_result"]')" "34" "cuInit's result"
expect_eq "$(json "$f" 'j["driver"]["init_name"]')" "CUDA_ERROR_STUB_LIBRARY" "its name"
expect_eq "$(json "$f" 'j["libraries"][0]["path"]')" "$fake/libcuda.so.1" "where libcuda.so.1 came from"
case "$(json "$f" 'j["reason"]')" in
  "no usable GPU: cuInit returned CUDA_ERROR_STUB_LIBRARY (34): the libcuda.so.1 that loaded, $fake/libcuda.so.1, is the CUDA toolkit's link-time stub, not the driver; it was found through the LD_LIBRARY_PATH entry $fake: remove that stubs folder from LD_LIBRARY_PATH") ;;
  *) fail "reason: $(json "$f" 'j["reason"]')" ;;
esac
# With the env's folder on the path (what the env's hook does), every env
# library is opened by soname, and still as predicted.
expect_eq "$(json "$f" 'all(l["opened_by"] == "soname" for l in j["libraries"])')" "True" "opened by soname"
predictions_agree "$f"
note "exit 3 with the right message in all cases; the probe's loads match the prediction"
