#!/usr/bin/env bash
# One process, many imports (issue 17), with real python: the seed env after
# repair (cuSPARSE finds the wheel's nvJitLink 12.4 through repair's link)
# plus a conda-built extension `condaext` whose RUNPATH finds conda's older
# lib/libnvJitLink.so.12 (cuda-nvjitlink 12.0.76). Each imports alone; but
# `import condaext` then `import demotorch` fails (the 12.0 copy is loaded
# first and lacks __nvJitLinkAddData_12_1), the other order works. doctor
# reports the import-order finding naming both and the failing order;
# --imports agrees with the real process in both orders. repair gives the
# soname one copy (the wheel's, which serves both): activated, both orders
# work (real python with the hook sourced); not activated, condaext's own
# RUNPATH still reaches conda's file, which no search path repair controls
# changes: the plan names that limit and its note the order that works and
# the package to upgrade, with --pin too. Where the plan allows it (an
# extension whose RUNPATH is its own folder), the link leads to the one copy
# and both orders work without activation, and with an older nvJitLink on
# LD_LIBRARY_PATH once --pin pins it (its import-order error names it). Then the pairs that must not give
# a finding: no shared soname, or a shared soname resolved to the same file.
source "$(dirname "$0")/lib.sh"
unset LD_LIBRARY_PATH

demo_env "$scratch/demo"
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

note "repair: one copy of libnvJitLink.so.12 (the wheel's, which serves both); activated every order works"
"$CONDACUDA" repair -p "$env" --json > "$scratch/repair.json"
expect_eq "$(json "$scratch/repair.json" '[(c["soname"], c["file"]) for c in j["plan"]["copies"]]')" \
  "[('libnvJitLink.so.12', '${sp#"$env"/}/nvidia/nvjitlink/lib/libnvJitLink.so.12')]" "the one copy"
expect_eq "$(json "$scratch/repair.json" '[f["path"] for f in j["plan"]["folders"] if f["path"] == "lib"]')" "[]" \
  "conda's lib/ (the 12.0 copy) is not put on LD_LIBRARY_PATH"
expect_eq "$(json "$scratch/repair.json" '[(l["launch"], l["soname"], l["copy"], l["requester"]) for l in j["plan"]["order_limits"]]')" \
  "[('not-activated', 'libnvJitLink.so.12', 'lib/libnvJitLink.so.12', '$condaext')]" \
  "the limit: condaext's own RUNPATH reaches conda's file without activation"
case "$(json "$scratch/repair.json" '" ".join(j["notes"])')" in
  *"upgrade conda cuda-nvjitlink 12.0.76 to 12.4.127 or newer"*"or import $demotorch before $condaext"*) ;;
  *) fail "the note names the package to upgrade and the order that works: $(json "$scratch/repair.json" 'j["notes"]')" ;;
esac
activated() { # PYTHON CODE: runs it with the env's hook sourced, as `conda activate` does
  CONDA_PREFIX=$env bash -c 'set -eu; . "$CONDA_PREFIX/etc/conda/activate.d/condacuda.sh"; exec "$1" -c "$2"' bash "$py" "$1"
}
expect_eq "$(activated 'import condaext, demotorch; print(condaext.version())')" "(12, 4)" "activated: condaext then demotorch"
expect_eq "$(activated 'import demotorch, condaext; print(condaext.version())')" "(12, 4)" "activated: demotorch then condaext"
hooked=$(CONDA_PREFIX=$env bash -c '. "$CONDA_PREFIX/etc/conda/activate.d/condacuda.sh"; echo "$LD_LIBRARY_PATH"')
LD_LIBRARY_PATH=$hooked expect_status 0 "$CONDACUDA" doctor -p "$env" --context activated --json > "$scratch/activated.json"
expect_eq "$(json "$scratch/activated.json" '[f["title"] for f in j["findings"] if f["code"] == "import-order" and f["severity"] == "error"]')" \
  "[]" "doctor, activated: no import-order error"
LD_LIBRARY_PATH=$hooked expect_status 0 "$CONDACUDA" doctor -p "$env" --context activated --imports condaext,demotorch._C > /dev/null

note "--pin cannot change condaext's own RUNPATH: not activated, the plan names the order that works, as the real process shows"
"$CONDACUDA" repair -p "$env" --pin --json > "$scratch/pin.json"
expect_eq "$(json "$scratch/pin.json" '[(l["launch"], l["copy"]) for l in j["plan"]["order_limits"]]')" \
  "[('not-activated', 'lib/libnvJitLink.so.12')]" "the same limit with --pin"
expect_eq "$(json "$scratch/pin.json" 'j["verification"]["ok"]')" True "verified, the limit excused"
"$py" -c 'import demotorch, condaext' || fail "not activated, the order the plan names fails"
case "$("$py" -c 'import condaext, demotorch' 2>&1 || true)" in
  *"undefined symbol: __nvJitLinkAddData_12_1"*) ;;
  *) fail "not activated, condaext then demotorch should still fail (the limit)" ;;
esac
"$CONDACUDA" undo -p "$env" > /dev/null

note "where the plan allows it: an extension whose RUNPATH is its own folder gets a link to the one copy, and every order works without activation"
# shellcheck disable=SC2016 # $ORIGIN is for the loader
cc -shared -fPIC -I"$include" -Wl,--enable-new-dtags,-rpath,'$ORIGIN' -o "$sp/condaext$ext" "$scratch/condaext.c" \
  -L"$env/lib" -l:libnvJitLink.so.12
"$CONDACUDA" repair -p "$env" --json > "$scratch/link.json"
expect_eq "$(json "$scratch/link.json" '[(l["path"], l["target"]) for l in j["plan"]["links"] if l["needed_by"] == "'"$condaext"'"]')" \
  "[('${sp#"$env"/}/libnvJitLink.so.12', 'nvidia/nvjitlink/lib/libnvJitLink.so.12')]" "condaext's link leads to the one copy, not conda's 12.0"
expect_eq "$(json "$scratch/link.json" 'j["plan"]["order_limits"]')" "[]" "no limit left"
expect_eq "$("$py" -c 'import condaext, demotorch; print(condaext.version())')" "(12, 4)" "not activated: condaext then demotorch"
expect_eq "$("$py" -c 'import demotorch, condaext; print(condaext.version())')" "(12, 4)" "not activated: demotorch then condaext"
expect_status 0 "$CONDACUDA" doctor -p "$env" --no-ld-library-path --context not-activated --json > "$scratch/linked.json"
expect_eq "$(json "$scratch/linked.json" '[f["title"] for f in j["findings"] if f["code"] == "import-order" and f["severity"] == "error"]')" \
  "[]" "doctor, not activated: no import-order error"

note "--pin where the plan allows it: an older nvJitLink on LD_LIBRARY_PATH, not activated; pinned, every order works"
hostile=$scratch/hostile
build_nvjitlink_12_0 "$hostile"
LD_LIBRARY_PATH=$hostile "$py" -c 'import condaext' || fail "hostile: condaext alone loads (the old copy has what it needs)"
case "$(LD_LIBRARY_PATH=$hostile "$py" -c 'import demotorch' 2>&1 || true)" in
  *"undefined symbol: __nvJitLinkAddData_12_1"*) ;;
  *) fail "hostile, not pinned: demotorch should fail" ;;
esac
LD_LIBRARY_PATH=$hostile "$CONDACUDA" repair -p "$env" --pin --json > "$scratch/pinned.json"
expect_eq "$(json "$scratch/pinned.json" 'sorted(p["path"] for p in j["plan"]["pins"])')" \
  "['$condaext', '${sp#"$env"/}/nvidia/cusparse/lib/libcusparse.so.12']" \
  "cuSPARSE (fails alone) and condaext (its import-order error) pinned"
expect_eq "$(json "$scratch/pinned.json" 'j["plan"]["order_limits"]')" "[]" "no limit with the pins"
expect_eq "$(LD_LIBRARY_PATH=$hostile "$py" -c 'import condaext, demotorch; print(condaext.version())')" "(12, 4)" \
  "pinned, hostile: condaext then demotorch"
expect_eq "$(LD_LIBRARY_PATH=$hostile "$py" -c 'import demotorch, condaext; print(condaext.version())')" "(12, 4)" \
  "pinned, hostile: demotorch then condaext"
"$CONDACUDA" undo -p "$env" > /dev/null
rm "$sp/condaext$ext"

note "no finding without a shared soname, or when it resolves to the same file"
rm "$env/lib/libnvJitLink.so.12" "$env/conda-meta/cuda-nvjitlink-12.0.76-0.json" "$env/conda-meta/condaext-1.0-0.json"
# An extension that needs nothing CUDA shares no soname with demotorch ...
printf '#include <Python.h>\nstatic struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "plain", 0, -1, 0, 0, 0, 0, 0};\nPyMODINIT_FUNC PyInit_plain(void) { return PyModule_Create(&m); }\n' > "$scratch/plain.c"
cc -shared -fPIC -I"$include" -o "$sp/plain$ext" "$scratch/plain.c"
# ... and one whose RUNPATH reaches the wheel's own nvJitLink shares the same file.
# shellcheck disable=SC2016
cc -shared -fPIC -I"$include" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/nvidia/nvjitlink/lib' -o "$sp/condaext$ext" \
  "$scratch/condaext.c" -L"$sp/nvidia/nvjitlink/lib" -l:libnvJitLink.so.12
# Exit 1: not activated, the env's cuSPARSE does not find its nvJitLink
# (not-found, not-activated); no import-order finding is among them.
expect_status 1 "$CONDACUDA" doctor -p "$env" --no-ld-library-path --context not-activated --json > "$scratch/clean.json"
expect_eq "$(json "$scratch/clean.json" '[f["title"] for f in j["findings"] if f["code"] == "import-order"]')" "[]" "no import-order finding"
"$py" -c 'import condaext, demotorch, plain' || fail "the real process disagrees: a clean env fails in one order"
