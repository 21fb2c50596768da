#!/usr/bin/env bash
# Builds condacuda's demo env from the C sources in src/ (needs gcc and the
# Python headers of the python3 it finds):
#
#   OUTDIR/env                     a conda env (conda-meta/history) whose python
#                                  sees its site-packages (bin/python3 + pyvenv.cfg),
#                                  with pip wheels laid out as CUDA 12 wheels do:
#                                    nvidia-cuda-runtime-cu12 12.1.105  nvidia/cuda_runtime/lib
#                                    nvidia-cusparse-cu12 12.1.0.106    nvidia/cusparse/lib (RUNPATH $ORIGIN)
#                                    nvidia-nvjitlink-cu12 12.4.127     nvidia/nvjitlink/lib
#                                    demotorch 2.5.0                    demotorch/_C*.so (needs cudart, cusparse)
#   OUTDIR/system-cuda-12.0/lib64  an older "system" libnvJitLink.so.12 (12.0)
#
# With LD_LIBRARY_PATH=OUTDIR/system-cuda-12.0/lib64, `python3 -c 'import
# demotorch'` fails exactly like the seed report:
#   ImportError: .../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol:
#   __nvJitLinkAddData_12_1, version libnvJitLink.so.12
# With LD_LIBRARY_PATH unset it fails too: cuSPARSE's RUNPATH ($ORIGIN) does
# not reach nvidia/nvjitlink/lib.
set -euo pipefail
out=${1:?usage: build.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/src
python=${PYTHON:-python3}

pyver=$("$python" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
pyfull=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
ext_suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
pyexe=$("$python" -c 'import os, sys; print(os.path.realpath(sys.executable))')
if [ ! -f "$include/Python.h" ]; then
  echo "build.sh: Python.h not found in $include (install python3-dev)" >&2
  exit 1
fi

rm -rf "$out"
env=$out/env
sp=$env/lib/$pyver/site-packages
mkdir -p "$env/conda-meta" "$env/bin" "$sp" "$out/system-cuda-12.0/lib64"
printf '==> 2026-01-01 00:00:00 <==\n# cmd: examples/demo-env/build.sh\n' > "$env/conda-meta/history"
ln -s "$pyexe" "$env/bin/python3"
ln -s python3 "$env/bin/python"
# pyvenv.cfg makes the interpreter use this env's site-packages (conda envs
# ship their own python; a symlinked one needs this to find the env).
printf 'home = %s\ninclude-system-site-packages = false\nversion = %s\n' "$(dirname "$pyexe")" "$pyfull" > "$env/pyvenv.cfg"

cc() { gcc -O1 -fPIC -shared "$@"; }

lib=$sp/nvidia
mkdir -p "$lib/nvjitlink/lib" "$lib/cusparse/lib" "$lib/cuda_runtime/lib" "$sp/demotorch"
cc -DNVJITLINK_MINOR=4 -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script="$src/nvjitlink-12.4.map" \
   -o "$lib/nvjitlink/lib/libnvJitLink.so.12" "$src/nvjitlink.c"
cc -DNVJITLINK_MINOR=0 -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script="$src/nvjitlink-12.0.map" \
   -o "$out/system-cuda-12.0/lib64/libnvJitLink.so.12" "$src/nvjitlink.c"
cc -Wl,-soname,libcudart.so.12 -o "$lib/cuda_runtime/lib/libcudart.so.12" "$src/cudart.c"
# shellcheck disable=SC2016 # $ORIGIN is for the loader, not the shell
cc -Wl,-soname,libcusparse.so.12 -Wl,--enable-new-dtags,-rpath,'$ORIGIN' \
   -o "$lib/cusparse/lib/libcusparse.so.12" "$src/cusparse.c" \
   -L"$lib/nvjitlink/lib" -l:libnvJitLink.so.12
# shellcheck disable=SC2016
cc -I"$include" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../nvidia/cusparse/lib' \
   -Wl,-rpath-link,"$lib/nvjitlink/lib" \
   -o "$sp/demotorch/_C$ext_suffix" "$src/demotorch_C.c" \
   -L"$lib/cuda_runtime/lib" -l:libcudart.so.12 -L"$lib/cusparse/lib" -l:libcusparse.so.12
cp "$src/demotorch_init.py" "$sp/demotorch/__init__.py"
touch "$lib/__init__.py"

# dist-info folders with METADATA and a RECORD whose hashes are real.
wheel() { # NAME VERSION FILE... (files relative to site-packages)
  local name=$1 version=$2
  shift 2
  local dist="${name//-/_}-$version.dist-info"
  mkdir -p "$sp/$dist"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: condacuda demo package\n' "$name" "$version" > "$sp/$dist/METADATA"
  printf 'Wheel-Version: 1.0\nGenerator: condacuda-demo\nRoot-Is-Purelib: false\nTag: py3-none-manylinux2014_x86_64\n' > "$sp/$dist/WHEEL"
  printf 'pip\n' > "$sp/$dist/INSTALLER"
  (cd "$sp" && "$python" - "$dist" "$@" <<'PY'
import base64, hashlib, os, sys
dist, files = sys.argv[1], sys.argv[2:] + [sys.argv[1] + "/METADATA", sys.argv[1] + "/WHEEL", sys.argv[1] + "/INSTALLER"]
with open(os.path.join(dist, "RECORD"), "w") as record:
    for f in files:
        data = open(f, "rb").read()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.write("%s,sha256=%s,%d\n" % (f, digest, len(data)))
    record.write("%s/RECORD,,\n" % dist)
PY
  )
}
wheel nvidia-cuda-runtime-cu12 12.1.105 nvidia/cuda_runtime/lib/libcudart.so.12
wheel nvidia-cusparse-cu12 12.1.0.106 nvidia/cusparse/lib/libcusparse.so.12
wheel nvidia-nvjitlink-cu12 12.4.127 nvidia/nvjitlink/lib/libnvJitLink.so.12
wheel demotorch 2.5.0 demotorch/__init__.py "demotorch/_C$ext_suffix"
echo "demo env: $env"
echo "older system nvJitLink: $out/system-cuda-12.0/lib64"
