#!/usr/bin/env bash
# Version requirements (issue 25): every symbol resolves and the import still
# fails, because the package checks the version of what it loaded, as torch
# does with cuDNN. Real python, compiled stubs:
#  - the wheel nvidia-cudnn-cu12 9.10.2.21 (libcudnn.so.9, cudnnGetVersion()
#    = 91002) and a torch-like package "cudnntorch" whose METADATA says
#    Requires-Dist: nvidia-cudnn-cu12==9.10.2.21 and whose import raises
#    torch's "cuDNN version incompatibility" when cudnnGetVersion() differs;
#  - a system cuDNN 9.1.0 (libcudnn.so.9 -> libcudnn.so.9.1.0, same exports) on
#    LD_LIBRARY_PATH.
# The import fails first; doctor exits 1 with requirement-mismatch naming the
# requirement and both versions; lock --check fails here; after repair the
# activated import works, after repair --pin the launch without activation too.
source "$(dirname "$0")/lib.sh"
export PYTHONDONTWRITEBYTECODE=1
unset CONDACUDA_HOOK_STATE

build_demo_env "$scratch/demo"
env=$scratch/demo/env
py=$env/bin/python3
sp=$(echo "$env"/lib/python3*/site-packages)
opt=$scratch/opt-cudnn/lib
# Without the system cuDNN: the env's own nvJitLink on the path (the demo's
# cuSPARSE needs it; an unrepaired demo env does not load with it unset).
clean=$sp/nvidia/nvjitlink/lib
import='import cudnntorch; print("cudnn", cudnntorch.cudnn_version())'
mismatch="cuDNN version incompatibility: PyTorch was compiled against (9, 10, 2) but found runtime version (9, 1, 0)"

# cudnn_stub VERSION OUT SONAME: a libcudnn exporting cudnnGetVersion.
cudnn_stub() {
  printf 'unsigned long cudnnGetVersion(void) { return %s; }\n' "$1" > "$scratch/cudnn-$1.c"
  gcc -shared -fPIC -Wl,-soname,"$3" -o "$2" "$scratch/cudnn-$1.c"
}
mkdir -p "$sp/nvidia/cudnn/lib" "$sp/cudnntorch" "$opt"
cudnn_stub 91002 "$sp/nvidia/cudnn/lib/libcudnn.so.9" libcudnn.so.9
touch "$sp/nvidia/cudnn/__init__.py"
cudnn_stub 90100 "$opt/libcudnn.so.9.1.0" libcudnn.so.9
ln -s libcudnn.so.9.1.0 "$opt/libcudnn.so.9"

# The torch-like package: its native part needs libcudnn.so.9 (RUNPATH into
# the wheel), its import compares versions as torch/backends/cudnn does.
cat > "$scratch/cudnntorch.c" << 'EOF'
unsigned long cudnnGetVersion(void);
unsigned long cudnn_version(void) { return cudnnGetVersion(); }
EOF
gcc -shared -fPIC -o "$sp/cudnntorch/_C.so" "$scratch/cudnntorch.c" \
  -L"$sp/nvidia/cudnn/lib" -l:libcudnn.so.9 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../nvidia/cudnn/lib'
cat > "$sp/cudnntorch/__init__.py" << 'EOF'
import ctypes, os
_C = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "_C.so"))
_C.cudnn_version.restype = ctypes.c_ulong
def _split(v):
    return (v // 10000, v % 10000 // 100, v % 100)
compiled, runtime = _split(91002), _split(_C.cudnn_version())
if compiled != runtime:
    raise RuntimeError("cuDNN version incompatibility: PyTorch was compiled against %s but found runtime version %s. "
                       "PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure "
                       "PyTorch can find the bundled cuDNN. Looks like your LD_LIBRARY_PATH contains incompatible "
                       "version of cudnn." % (compiled, runtime))
def cudnn_version():
    return "%d.%d.%d" % runtime
EOF
dist_info() { # NAME VERSION REQUIRES FILE...
  local name=$1 version=$2 requires=$3
  shift 3
  local dist="$sp/${name//-/_}-$version.dist-info"
  mkdir -p "$dist"
  { printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version"
    [ -z "$requires" ] || printf 'Requires-Dist: %s\n' "$requires"
    printf 'Requires-Dist: sympy>=1.13.3\n'
  } > "$dist/METADATA"
  { for f in "$@"; do printf '%s,,\n' "$f"; done; printf '%s/METADATA,,\n' "${dist##*/}"; } > "$dist/RECORD"
}
dist_info nvidia-cudnn-cu12 9.10.2.21 "" nvidia/cudnn/lib/libcudnn.so.9 nvidia/cudnn/__init__.py
dist_info cudnntorch 2.8.0 'nvidia-cudnn-cu12==9.10.2.21; platform_system == "Linux" and platform_machine == "x86_64"' \
  cudnntorch/__init__.py cudnntorch/_C.so

note "the import fails with the system cuDNN 9.1.0 on LD_LIBRARY_PATH, works without it"
out=$(LD_LIBRARY_PATH=$opt:$clean "$py" -c "$import" 2>&1 || true)
case "$out" in *"$mismatch"*) ;; *) fail "the import did not fail as torch's does: $out" ;; esac
expect_eq "$(LD_LIBRARY_PATH=$clean "$py" -c "$import")" "cudnn 9.10.2" "without the system cuDNN"

note "doctor names the requirement, both versions and the path entry"
expect_status 1 env LD_LIBRARY_PATH="$opt" "$CONDACUDA" doctor -p "$env" --json > "$scratch/doctor.json"
f='[f for f in j["findings"] if f["code"] == "requirement-mismatch"]'
expect_eq "$(json "$scratch/doctor.json" "len($f)")" 1 "requirement-mismatch findings"
expect_eq "$(json "$scratch/doctor.json" "${f}[0]['severity']")" error severity
title=$(json "$scratch/doctor.json" "${f}[0]['title']")
case "$title" in *"cudnntorch requires nvidia-cudnn-cu12==9.10.2.21"*"9.1.0"*) ;; *) fail "title: $title" ;; esac
evidence=$(json "$scratch/doctor.json" "' | '.join(${f}[0]['evidence'])")
for want in "file name libcudnn.so.9.1.0" "9.10.2.21" "LD_LIBRARY_PATH entry '$opt'"; do
  case "$evidence" in *"$want"*) ;; *) fail "the evidence lacks '$want': $evidence" ;; esac
done
expect_eq "$(json "$scratch/doctor.json" "${f}[0]['affects']")" "['lib/python3.11/site-packages/cudnntorch/_C.so']" affects
expect_eq "$(json "$scratch/doctor.json" "${f}[0]['expected']")" "lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9" \
  "the env's copy that satisfies"
# The loader maps every root: the real dlopen agrees, the requirement is the import's.
LD_LIBRARY_PATH=$opt python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py" "$scratch/doctor.json" --python "$py" > /dev/null
LD_LIBRARY_PATH=$clean "$CONDACUDA" doctor -p "$env" > /dev/null || fail "doctor without the system cuDNN"

note "lock --check fails here, matches without the system cuDNN"
LD_LIBRARY_PATH=$clean "$CONDACUDA" lock -p "$env" -o "$scratch/cuda.lock.yml" > /dev/null
LD_LIBRARY_PATH=$clean "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" > /dev/null
expect_status 1 env LD_LIBRARY_PATH="$opt" "$CONDACUDA" lock --check "$scratch/cuda.lock.yml" -p "$env" > "$scratch/check.txt"
grep -q "requirement-mismatch" "$scratch/check.txt" || fail "lock --check does not say why: $(cat "$scratch/check.txt")"

note "repair: activated the env's cuDNN goes first; --pin: without activation too"
LD_LIBRARY_PATH=$opt "$CONDACUDA" repair -p "$env" > /dev/null
activated=$(bash -c '
  export LD_LIBRARY_PATH=$3 CONDA_PREFIX=$1
  for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh | sort); do . "$f"; done
  "$CONDA_PREFIX/bin/python3" -c "$2"' activation "$env" "$import" "$opt")
expect_eq "$activated" "cudnn 9.10.2" "activated after repair"
LD_LIBRARY_PATH=$opt "$CONDACUDA" repair -p "$env" --pin --json > "$scratch/pin.json"
expect_eq "$(json "$scratch/pin.json" '[p["path"].split("site-packages/")[1] for p in j["plan"]["pins"]]')" \
  "['cudnntorch/_C.so']" "the pinned file"
expect_eq "$(LD_LIBRARY_PATH=$opt "$py" -c "$import")" "cudnn 9.10.2" "not activated after repair --pin"
LD_LIBRARY_PATH=$opt "$CONDACUDA" doctor -p "$env" --context not-activated > /dev/null || fail "doctor after --pin"
"$CONDACUDA" undo -p "$env" > /dev/null
note "ok"
