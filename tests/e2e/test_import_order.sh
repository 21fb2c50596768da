#!/usr/bin/env bash
# One process, many imports (issue 17), with real python: the seed env after
# repair (cuSPARSE finds the wheel's nvJitLink 12.4 through repair's link)
# plus a conda-built extension `condaext` whose RUNPATH finds conda's older
# lib/libnvJitLink.so.12 (cuda-nvjitlink 12.0.76). Each imports alone; but
# `import condaext` then `import demotorch` fails (the 12.0 copy is loaded
# first and lacks __nvJitLinkAddData_12_1), the other order works. doctor
# reports the import-order finding naming both and the failing order;
# --imports agrees with the real process in both orders. Then the pairs
# that must not give a finding: no shared soname, or a shared soname that
# resolves to the same file.
source "$(dirname "$0")/lib.sh"
export PYTHONDONTWRITEBYTECODE=1
unset CONDACUDA_HOOK_STATE LD_LIBRARY_PATH

build_demo_env "$scratch/demo"
env=$scratch/demo/env
sp=$(echo "$env"/lib/python3*/site-packages)
py=$env/bin/python3
ext=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
include=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
"$CONDACUDA" repair -p "$env" > /dev/null

note "conda's cuda-nvjitlink 12.0.76 in \$PREFIX/lib and an extension built against it"
add_conda_nvjitlink_12_0 "$env"
cat > "$scratch/condaext.c" << 'C'
#include <Python.h>
int nvJitLinkVersion(unsigned* major, unsigned* minor);
static PyObject* version(PyObject* self, PyObject* args) {
  unsigned major = 0, minor = 0;
  (void)self; (void)args;
  nvJitLinkVersion(&major, &minor);
  return Py_BuildValue("(II)", major, minor);
}
static PyMethodDef methods[] = {{"version", version, METH_NOARGS, "nvJitLink's version"}, {0, 0, 0, 0}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "condaext", 0, -1, methods, 0, 0, 0, 0};
PyMODINIT_FUNC PyInit_condaext(void) { return PyModule_Create(&module); }
C
# shellcheck disable=SC2016 # $ORIGIN is for the loader: site-packages/../.. is $PREFIX/lib
cc -shared -fPIC -I"$include" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../..' -o "$sp/condaext$ext" "$scratch/condaext.c" \
  -L"$env/lib" -l:libnvJitLink.so.12
cat > "$env/conda-meta/condaext-1.0-0.json" << JSON
{"name": "condaext", "version": "1.0", "build": "0", "files": ["lib/$(basename "$(dirname "$(dirname "$sp")")")/site-packages/condaext$ext"]}
JSON
demotorch=${sp#"$env"/}/demotorch/_C$ext
condaext=${sp#"$env"/}/condaext$ext

note "the real process: each alone works, condaext then demotorch fails"
"$py" -c 'import condaext' || fail "condaext alone"
"$py" -c 'import demotorch' || fail "demotorch alone"
"$py" -c 'import demotorch, condaext; print(condaext.version())' > "$scratch/good.txt" 2>&1 || { cat "$scratch/good.txt" >&2; fail "demotorch then condaext"; }
out=$("$py" -c 'import condaext, demotorch' 2>&1 || true)
case "$out" in
  *"ImportError: "*"libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"*) ;;
  *) fail "condaext then demotorch: $out" ;;
esac

note "doctor (launched as python was, not activated): every root loads alone; the import-order finding names both and the failing order"
expect_status 1 "$CONDACUDA" doctor -p "$env" --no-ld-library-path --context not-activated --json > "$scratch/doctor.json"
expect_eq "$(json "$scratch/doctor.json" 'j["summary"]["fails"]')" 0 "roots that fail alone"
order='[f for f in j["findings"] if f["code"] == "import-order"]'
expect_eq "$(json "$scratch/doctor.json" "len($order)")" 1 "one import-order finding"
expect_eq "$(json "$scratch/doctor.json" "${order}[0]['library'], '$condaext' in ${order}[0]['affects'], '$demotorch' in ${order}[0]['affects']")" \
  "('libnvJitLink.so.12', True, True)" "the soname and both roots"
expect_eq "$(json "$scratch/doctor.json" "${order}[0]['title']")" \
  "importing $condaext then $demotorch fails: $demotorch gets libnvJitLink.so.12 from the copy $condaext loaded" "the failing order"
expect_eq "$(json "$scratch/doctor.json" "'lib/libnvJitLink.so.12 (conda cuda-nvjitlink 12.0.76)' in ${order}[0]['evidence'][0]")" True \
  "the copy loaded first, and its package"
expect_eq "$(json "$scratch/doctor.json" "${order}[0]['evidence'][-1]")" \
  "the other order ($demotorch then $condaext) works" "the order that works"
case "$(json "$scratch/doctor.json" "${order}[0]['first_error']")" in
  *"libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12") ;;
  *) fail "the error: $(json "$scratch/doctor.json" "${order}[0]['first_error']")" ;;
esac

note "--imports agrees with the real process, both orders (import names and files)"
expect_status 1 "$CONDACUDA" doctor -p "$env" --no-ld-library-path --context not-activated --imports condaext,demotorch._C --json > "$scratch/bad.json"
expect_eq "$(json "$scratch/bad.json" '[(i["verdict"], i["loads_alone"]) for i in j["imports"]]')" \
  "[('loads', True), ('fails', True)]" "condaext then demotorch"
expect_status 1 "$CONDACUDA" doctor -p "$env" --no-ld-library-path --context not-activated --imports "$demotorch,$condaext" --json > "$scratch/good.json"
expect_eq "$(json "$scratch/good.json" '[i["verdict"] for i in j["imports"]]')" "['loads', 'loads']" "demotorch then condaext"
expect_status 2 "$CONDACUDA" doctor -p "$env" --imports demotorch > /dev/null 2> "$scratch/pure.err"
grep -q "names no extension module" "$scratch/pure.err" || fail "a pure-Python package is not mapped to a file"

note "no finding without a shared soname, or when it resolves to the same file"
rm "$env/lib/libnvJitLink.so.12" "$sp/condaext$ext" "$env/conda-meta/cuda-nvjitlink-12.0.76-0.json" "$env/conda-meta/condaext-1.0-0.json"
# An extension that needs nothing CUDA shares no soname with demotorch ...
printf '#include <Python.h>\nstatic struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "plain", 0, -1, 0, 0, 0, 0, 0};\nPyMODINIT_FUNC PyInit_plain(void) { return PyModule_Create(&m); }\n' > "$scratch/plain.c"
cc -shared -fPIC -I"$include" -o "$sp/plain$ext" "$scratch/plain.c"
# ... and one whose RUNPATH reaches the wheel's own nvJitLink shares the same file.
# shellcheck disable=SC2016
cc -shared -fPIC -I"$include" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/nvidia/nvjitlink/lib' -o "$sp/condaext$ext" \
  "$scratch/condaext.c" -L"$sp/nvidia/nvjitlink/lib" -l:libnvJitLink.so.12
"$CONDACUDA" doctor -p "$env" --no-ld-library-path --context not-activated --json > "$scratch/clean.json" || true
expect_eq "$(json "$scratch/clean.json" '[f["title"] for f in j["findings"] if f["code"] == "import-order"]')" "[]" "no import-order finding"
"$py" -c 'import condaext, demotorch, plain' || fail "the real process disagrees: a clean env fails in one order"
