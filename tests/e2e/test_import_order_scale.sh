#!/usr/bin/env bash
# The import-order pass at scale (issue 26, point 3): the seed env after
# repair, plus conda's nvJitLink 12.0 in $PREFIX/lib and N compiled extension
# modules in site-packages, half built against conda's copy (RUNPATH
# $ORIGIN/../.., as condaext in test_import_order.sh), half against the
# wheel's 12.4 (RUNPATH $ORIGIN/nvidia/nvjitlink/lib) and calling
# __nvJitLinkAddData_12_1, which the 12.0 copy lacks: every extension of the
# first half imported before one of the second (or before demotorch) fails.
#   - N = 40: the grouped pass (one simulated order per pair of classes of
#     roots that load alike) gives exactly the exhaustive pass's findings, as
#     doctor's JSON (the unit binary runs both on this env: the exhaustive
#     pass is no switch of the command line);
#   - N = 600: doctor and `repair --dry-run` finish, one import-order finding
#     lists every extension, no order is left unsimulated (no
#     import-order-skipped). Their wall times are printed as notes, never
#     asserted (README, Benchmarks, has the figures).
source "$(dirname "$0")/lib.sh"
export PYTHONDONTWRITEBYTECODE=1
unset CONDACUDA_HOOK_STATE LD_LIBRARY_PATH
command -v cc > /dev/null || skip "no C compiler"
command -v python3 > /dev/null || skip "no python3"
unit=$CONDACUDA_BUILD_DIR/tests/condacuda_unit
[ -x "$unit" ] || skip "no $unit (the exhaustive pass runs there)"

note "N = 40: the grouped pass gives the exhaustive pass's findings"
make_import_order_env "$scratch/n40" 40
env=$scratch/n40/env
sp=$(echo "$env"/lib/python3*/site-packages)
py=$env/bin/python3
"$py" -c 'import ext1' || fail "the real process: ext1 (conda's 12.0) alone"
"$py" -c 'import ext2, ext1' || fail "the real process: ext2 (the wheel's 12.4) then ext1"
case "$("$py" -c 'import ext1, ext2' 2>&1 || true)" in
  *"ImportError: "*"undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"*) ;;
  *) fail "the real process: ext1 then ext2 should fail" ;;
esac
mkdir "$scratch/out"
CONDACUDA_ORDER_ENV=$env CONDACUDA_ORDER_OUT=$scratch/out \
  "$unit" -tc='import order: grouped and exhaustive findings of CONDACUDA_ORDER_ENV' > "$scratch/unit.log" 2>&1 ||
  { cat "$scratch/unit.log" >&2; fail "the unit binary on the N = 40 env"; }
python3 - "$scratch/out/grouped.json" "$scratch/out/exhaustive.json" << 'PY' || fail "grouped and exhaustive findings differ"
import json, sys
grouped, exhaustive = (json.load(open(p))["findings"] for p in sys.argv[1:3])
if grouped != exhaustive:
    print("grouped:", json.dumps(grouped, indent=1), "\nexhaustive:", json.dumps(exhaustive, indent=1), file=sys.stderr)
    sys.exit(1)
order = [f for f in grouped if f["code"] == "import-order"]
extensions = {r for f in order for r in f["affects"] if "/ext" in r}
assert len(extensions) == 40, sorted(extensions)
assert not [f for f in grouped if f["code"] == "import-order-skipped"]
print("# %d import-order findings, %d extensions listed, the same in both passes" % (len(order), len(extensions)))
PY
expect_status 1 "$CONDACUDA" doctor -p "$env" --no-ld-library-path --context not-activated --json > "$scratch/n40.json"
suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
ext1=${sp#"$env"/}/ext1$suffix
ext10=${sp#"$env"/}/ext10$suffix
expect_eq "$(json "$scratch/n40.json" '[f["title"] for f in j["findings"] if f["code"] == "import-order" and f["severity"] == "error"][-1:]')" \
  "['importing $ext1 then $ext10 fails: $ext10 gets libnvJitLink.so.12 from the copy $ext1 loaded']" \
  "doctor, not activated, names the first pair of extensions that fails (roots in file-name order)"

note "N = 600: doctor and repair --dry-run"
make_import_order_env "$scratch/n600" 600
env=$scratch/n600/env
start=$(date +%s.%N)
expect_status 0 "$CONDACUDA" doctor -p "$env" --no-ld-library-path --json > "$scratch/n600.json"
end=$(date +%s.%N)
note "doctor, N = 600: $(python3 -c "print('%.2f' % ($end - $start))") s wall (both contexts)"
python3 - "$scratch/n600.json" << 'PY' || fail "doctor on N = 600"
import json, sys
j = json.load(open(sys.argv[1]))
order = [f for f in j["findings"] if f["code"] == "import-order" and f["library"] == "libnvJitLink.so.12"]
extensions = {r for f in order for r in f["affects"] if "/ext" in r}
assert len(extensions) == 600, len(extensions)
assert not [f for f in j["findings"] if f["code"] == "import-order-skipped"], "no order left unsimulated"
print("# doctor, N = 600: %d import-order findings for libnvJitLink.so.12 list the 600 extensions" % len(order))
PY
start=$(date +%s.%N)
expect_status 0 "$CONDACUDA" repair -p "$env" --dry-run --json > "$scratch/repair.json"
end=$(date +%s.%N)
note "repair --dry-run, N = 600: $(python3 -c "print('%.2f' % ($end - $start))") s wall"
expect_eq "$(json "$scratch/repair.json" 'j["verification"]["ok"]')" True "verified, the limit excused"
expect_eq "$(json "$scratch/repair.json" 'sorted({(l["launch"], l["soname"], l["copy"]) for l in j["plan"]["order_limits"]})')" \
  "[('not-activated', 'libnvJitLink.so.12', 'lib/libnvJitLink.so.12')]" \
  "the limit: the conda half's own RUNPATH reaches conda's file without activation"
