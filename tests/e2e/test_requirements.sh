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
demo_env "$scratch/demo"
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
f='[f for g in j["findings"] for f in (g.get("parts") or [g]) if f["code"] == "requirement-mismatch"]'
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
python3 - "$scratch/cuda.lock.yml" << 'PY' || fail "the lock does not record the requirement as met"
import sys, yaml
rules = {r["rule"]: r for r in yaml.safe_load(open(sys.argv[1]))["alignment"]["rules"]}
r = rules["requirements"]
assert r["result"] == "pass", r
assert any("cudnntorch 2.8.0 requires nvidia-cudnn-cu12==9.10.2.21: met by nvidia-cudnn-cu12 9.10.2.21" in e
           for e in r["evidence"]), r
PY
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

note "NCCL: the evidence is the version string the library embeds (no version in its file name)"
nccl_stub() { # VERSION CUDA OUT
  printf 'const char nccl_banner[] = "NCCL version %s+cuda%s";\nint ncclGetVersion(int *v) { *v = 0; return (int)sizeof nccl_banner; }\n' \
    "$1" "$2" > "$scratch/nccl-$1.c"
  gcc -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$3" "$scratch/nccl-$1.c"
}
nccl_opt=$scratch/opt-nccl/lib
mkdir -p "$sp/nvidia/nccl/lib" "$sp/nccltorch" "$nccl_opt"
nccl_stub 2.27.3 12.9 "$sp/nvidia/nccl/lib/libnccl.so.2"
nccl_stub 2.21.5 12.4 "$nccl_opt/libnccl.so.2"
printf 'int ncclGetVersion(int *v);\nint nccl_version(void) { int v; return ncclGetVersion(&v); }\n' > "$scratch/nccltorch.c"
gcc -shared -fPIC -o "$sp/nccltorch/_C.so" "$scratch/nccltorch.c" -L"$sp/nvidia/nccl/lib" -l:libnccl.so.2 \
  -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../nvidia/nccl/lib'
dist_info nvidia-nccl-cu12 2.27.3 "" nvidia/nccl/lib/libnccl.so.2
dist_info nccltorch 2.8.0 'nvidia-nccl-cu12==2.27.3; platform_system == "Linux"' nccltorch/_C.so
expect_status 1 env LD_LIBRARY_PATH="$nccl_opt:$clean" "$CONDACUDA" doctor -p "$env" --json > "$scratch/nccl.json"
f='[f for g in j["findings"] for f in (g.get("parts") or [g]) if f["code"] == "requirement-mismatch"]'
expect_eq "$(json "$scratch/nccl.json" "[x['title'] for x in $f]")" \
  "['nccltorch requires nvidia-nccl-cu12==2.27.3, but the nccl that loads is 2.21.5']" "the NCCL mismatch"
case "$(json "$scratch/nccl.json" "' | '.join(${f}[0]['evidence'])")" in
  *"embedded string 'NCCL version 2.21.5+cuda12.4'"*) ;; *) fail "the NCCL evidence: $(json "$scratch/nccl.json" "${f}[0]['evidence']")" ;;
esac
LD_LIBRARY_PATH=$clean "$CONDACUDA" doctor -p "$env" > /dev/null || fail "doctor with the env's own NCCL"

note "conda: a package's depends (cudnn >=9.10,<10.0a0) against the system cuDNN 9.1.0"
mkdir -p "$env/lib"
printf 'unsigned long cudnnGetVersion(void);\nunsigned long conda_cudnn(void) { return cudnnGetVersion(); }\n' > "$scratch/conda.c"
gcc -shared -fPIC -o "$env/lib/libcondatorch_cudnn.so" "$scratch/conda.c" -L"$sp/nvidia/cudnn/lib" -l:libcudnn.so.9 \
  -Wl,--enable-new-dtags,-rpath,"\$ORIGIN/${sp#"$env"/lib/}/nvidia/cudnn/lib"
printf '{"name": "condatorch", "version": "2.8.0", "build": "cuda_0", "files": ["lib/libcondatorch_cudnn.so"], "depends": ["cudnn >=9.10,<10.0a0", "python_abi 3.11.* *_cp311"]}\n' \
  > "$env/conda-meta/condatorch-2.8.0-cuda_0.json"
expect_status 1 env LD_LIBRARY_PATH="$opt:$clean" "$CONDACUDA" doctor -p "$env" --json > "$scratch/conda.json"
expect_eq "$(json "$scratch/conda.json" "sorted(set(x['title'] for x in $f if x['title'].startswith('condatorch')))")" \
  "['condatorch requires cudnn >=9.10,<10.0a0, but the cudnn that loads is 9.1.0']" "the conda mismatch"
expect_eq "$(json "$scratch/conda.json" "[a for x in $f if x['title'].startswith('condatorch') for a in x['affects']]")" \
  "['lib/libcondatorch_cudnn.so']" "the conda consumer"
LD_LIBRARY_PATH=$clean "$CONDACUDA" doctor -p "$env" > /dev/null || fail "doctor with the env's own cuDNN"

note "a module path: one finding per path entry, each library with both versions"
mod=$scratch/mod-cuda-12.1/lib64
mkdir -p "$mod"
gcc -shared -fPIC -Wl,-soname,libcudart.so.12 -o "$mod/libcudart.so.12.1.105" "$CONDACUDA_SOURCE_DIR/examples/demo-env/src/cudart.c"
ln -s libcudart.so.12.1.105 "$mod/libcudart.so.12"
cp -P "$opt/libcudnn.so.9" "$opt/libcudnn.so.9.1.0" "$mod/"
expect_status 1 env LD_LIBRARY_PATH="$mod:$nccl_opt:$clean" "$CONDACUDA" doctor -p "$env" --json > "$scratch/module.json"
s="[f for f in j['findings'] if f['via_entry'] in ('$mod', '$nccl_opt')]"
expect_eq "$(json "$scratch/module.json" "sorted(x['via_entry'] for x in $s)")" "$(printf "['%s', '%s']" "$mod" "$nccl_opt")" \
  "one finding per path entry"
expect_eq "$(json "$scratch/module.json" "[x['title'].split(':')[0] for x in $s if x['via_entry'] == '$mod']")" \
  "[\"LD_LIBRARY_PATH entry '$mod' shadows 2 of the env's libraries (libcudnn.so.9, libcudart.so.12)\"]" "the module entry's title"
lines=$(json "$scratch/module.json" "' | '.join(e for x in $s for e in x['evidence'])")
for want in "libcudart.so.12: $mod/libcudart.so.12, version 12.1.105 (file name libcudart.so.12.1.105); the env has" \
            "(nvidia-cuda-runtime-cu12 12.1.105)" "libcudnn.so.9: $mod/libcudnn.so.9, version 9.1.0 (file name libcudnn.so.9.1.0)" \
            "libnccl.so.2: $nccl_opt/libnccl.so.2, version 2.21.5 (embedded string 'NCCL version 2.21.5+cuda12.4')"; do
  case "$lines" in *"$want"*) ;; *) fail "the shadowed evidence lacks '$want': $lines" ;; esac
done
note "ok"
