#!/usr/bin/env bash
# Launch truth (issue 24): a verdict and a repair that belong to the env, not
# to the shell that ran condacuda. Real python and the real loader as the
# oracle, on the demo env (its older "system" nvJitLink 12.0 on
# LD_LIBRARY_PATH plays a site module):
#  1. a pin made from a module shell survives a repair from a clean shell
#     (the manifest records both launches) and the module launch keeps
#     working; --forget-launches keeps the pin too; --no-pin takes it back;
#  2. a shell whose LD_LIBRARY_PATH differs gets no stale-repair, but its own
#     unverified-launch finding;
#  3. `module load` after activation (real bash sourcing the hook, then a
#     folder prepended): doctor judges the shell's real order, as the real
#     process loads, and names the cause (folders-before-hook);
#  4. a uv-style venv (its wheel files symlinks into a cache outside the env)
#     with the older nvJitLink on LD_LIBRARY_PATH: no conda hooks, doctor
#     judges it not activated only, and repair never says ok while the launch
#     fails: it exits 1, names the launch and the ways out, writes nothing.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
module=$system
cusparse=$sp/nvidia/cusparse/lib/libcusparse.so.12
oracle=$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py
broken="undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"
manifest=$env/etc/condacuda/manifest.yml
tree_state "$env" > "$scratch/original"

# module_import: a launch without activation from the module shell (a Jupyter kernel).
module_import() { LD_LIBRARY_PATH=$module "$py" -c "$import" 2>&1 || true; }
# launches: the manifest's recorded launches, one per line ("(unset)" for unset).
launches() {
  python3 -c 'import sys, yaml
for l in yaml.safe_load(open(sys.argv[1])).get("launches", []):
    print(l["ld_library_path"] if l["ld_library_path"] is not None else "(unset)")' "$manifest"
}

note "1. the module launch fails before any repair"
case "$(module_import)" in *"$broken"*) ;; *) fail "the module launch did not fail first: $(module_import)" ;; esac

note "1. repair --pin from the module shell: the module launch works, the launch is recorded"
LD_LIBRARY_PATH=$module "$CONDACUDA" repair -p "$env" --pin > /dev/null
expect_eq "$(module_import)" "sparse 12100" "module launch after repair --pin"
expect_eq "$(launches)" "$module" "recorded launches"

note "1. a clean shell: no stale-repair, and its repair keeps the pin"
expect_status 0 env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env" --json > "$scratch/clean.json"
expect_eq "$(json "$scratch/clean.json" '[f["code"] for f in j["findings"] if f["code"] == "stale-repair"]')" "[]" \
  "stale-repair in a clean shell"
expect_eq "$(json "$scratch/clean.json" '[f["severity"] for f in j["findings"] if f["code"] == "unverified-launch"]')" \
  "['info']" "a clean shell's launch needs nothing more"
env -u LD_LIBRARY_PATH "$CONDACUDA" repair -p "$env" --json > "$scratch/clean-repair.json"
expect_eq "$(json "$scratch/clean-repair.json" '[c["action"] for c in j["pin_changes"]]')" "['keep']" \
  "the clean shell's repair keeps the pin"
expect_eq "$(json "$scratch/clean-repair.json" \
  'sorted(s["name"] for s in j["verification"]["scenarios"] if s["name"].endswith("recorded launch"))')" \
  "['not activated, recorded launch', 'recorded launch']" "the module launch verified from the clean shell"
expect_eq "$(module_import)" "sparse 12100" "module launch after a clean-shell repair"
expect_eq "$(launches | tr '\n' ' ')" "$module (unset) " "both launches recorded"
expect_status 0 env LD_LIBRARY_PATH="$module" "$CONDACUDA" doctor -p "$env" --json > "$scratch/module.json"
expect_eq "$(json "$scratch/module.json" '[f["code"] for f in j["findings"] if f["code"] in ("stale-repair", "unverified-launch")]')" \
  "[]" "the module shell after both repairs"

note "1. --forget-launches keeps the pin; --no-pin takes it back"
env -u LD_LIBRARY_PATH "$CONDACUDA" repair -p "$env" --forget-launches > /dev/null
expect_eq "$(launches)" "(unset)" "launches after --forget-launches"
expect_eq "$(module_import)" "sparse 12100" "module launch after --forget-launches"
env -u LD_LIBRARY_PATH "$CONDACUDA" repair -p "$env" --no-pin > /dev/null
case "$(module_import)" in *"$broken"*) ;; *) fail "--no-pin did not take the pin back: $(module_import)" ;; esac
"$CONDACUDA" undo -p "$env" > /dev/null
tree_state "$env" > "$scratch/after-undo"
cmp -s "$scratch/original" "$scratch/after-undo" || { diff "$scratch/original" "$scratch/after-undo" >&2; fail "undo left changes"; }

note "2. a plain repair from a clean shell; doctor in another shell: no stale-repair"
env -u LD_LIBRARY_PATH "$CONDACUDA" repair -p "$env" > /dev/null
expect_status 0 env LD_LIBRARY_PATH="$module" "$CONDACUDA" doctor -p "$env" --json > "$scratch/other.json"
expect_eq "$(json "$scratch/other.json" '[f["code"] for f in j["findings"] if f["code"] == "stale-repair"]')" "[]" \
  "stale-repair for a shell change"
expect_eq "$(json "$scratch/other.json" '[f["code"] for f in j["findings"] if f["code"] == "unverified-launch"]')" \
  "['unverified-launch']" "the shell's own finding"
expect_eq "$(json "$scratch/other.json" '"condacuda repair" in [f for f in j["findings"] if f["code"] == "unverified-launch"][0]["fix"]')" \
  True "its fix"
# Issue 50: beside a not-activated warning (the module launch fails without
# activation), unverified-launch never says "it needs nothing more": it is a
# warning whose fix is the not-activated finding's (repair --pin).
expect_eq "$(json "$scratch/other.json" '[f["severity"] for f in j["findings"] if f["code"] == "not-activated"]')" \
  "['warning']" "the module launch fails without activation"
expect_eq "$(json "$scratch/other.json" \
  '[(f["severity"], "nothing more" in f["title"], "repair --pin" in f["fix"]) for f in j["findings"] if f["code"] == "unverified-launch"]')" \
  "[('warning', False, True)]" "unverified-launch agrees with not-activated"
expect_status 0 env LD_LIBRARY_PATH="$module" "$CONDACUDA" doctor -p "$env" > "$scratch/other.txt"
grep -q "the env changed" "$scratch/other.txt" && fail "doctor says the env changed"

note "3. module load after activation: doctor judges the shell's real order"
# shell_after_module: activate as conda does (hooks sourced), then prepend the
# module folder; run the real import and doctor in that very shell.
bash -c '
  set -u
  unset LD_LIBRARY_PATH
  export CONDA_PREFIX=$1
  for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh | sort); do . "$f"; done
  "$CONDA_PREFIX/bin/python3" -c "$3" > "$4/activated.out" 2>&1
  export LD_LIBRARY_PATH=$2:$LD_LIBRARY_PATH
  "$CONDA_PREFIX/bin/python3" -c "$3" > "$4/module.out" 2>&1
  echo "$LD_LIBRARY_PATH" > "$4/shell.llp"
  "$5" doctor -p "$CONDA_PREFIX" --json > "$4/module-doctor.json"
  echo $? > "$4/module-doctor.status"
  python3 "$6" "$4/module-doctor.json" --python "$CONDA_PREFIX/bin/python3" > /dev/null || echo disagree > "$4/oracle"
' shell "$env" "$module" "$import" "$scratch" "$CONDACUDA" "$oracle"
expect_eq "$(cat "$scratch/activated.out")" "sparse 12100" "activated, before the module"
grep -q "$broken" "$scratch/module.out" || fail "the real import did not fail after module load: $(cat "$scratch/module.out")"
expect_eq "$(cat "$scratch/module-doctor.status")" 1 "doctor's exit in the module shell"
expect_eq "$(json "$scratch/module-doctor.json" 'j["ld_library_path"]["assumed"]')" "$(cat "$scratch/shell.llp")" \
  "the order doctor judged"
expect_eq "$(json "$scratch/module-doctor.json" '[f["affects"] if f.get("affects") else f["evidence"][1].strip() for f in j["findings"] if f["code"] == "folders-before-hook"]')" \
  "['$module']" "the folder named in front of the hook"
expect_eq "$(json "$scratch/module-doctor.json" '[f["actions"] for f in j["findings"] if f["code"] == "folders-before-hook"]')" \
  "[[{'kind': 'activate', 'args': ['$env']}]]" "its step: activate the env again, after the module"
[ ! -f "$scratch/oracle" ] || fail "doctor disagrees with the real loader in the module shell"
"$CONDACUDA" undo -p "$env" > /dev/null

note "4. a uv-style venv: wheel files symlinked from a cache outside the env"
rm -rf "$env/conda-meta"
cache=$scratch/uv-cache
mkdir -p "$cache"
(cd "$sp" && find nvidia -type f -name 'lib*.so*') | while read -r rel; do
  mkdir -p "$cache/$(dirname "$rel")"
  mv "$sp/$rel" "$cache/$rel"
  ln -s "$cache/$rel" "$sp/$rel"
done
(cd "$cache" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$scratch/cache.sha"
tree_state "$env" > "$scratch/venv-before"
case "$(module_import)" in *"$broken"*) ;; *) fail "the uv venv did not fail first: $(module_import)" ;; esac
LD_LIBRARY_PATH=$module "$CONDACUDA" repair -p "$env" --json > "$scratch/uv.json"
expect_eq "$(json "$scratch/uv.json" 'j["env"]["kind"]')" venv kind
expect_eq "$(json "$scratch/uv.json" 'j["outcome"]')" repaired "the uv venv's outcome"
expect_eq "$(json "$scratch/uv.json" '[s["name"] for s in j["verification"]["scenarios"] if s["name"] in ("this shell", "system CUDA first")]')" \
  "[]" "activated launches verified in a venv"
expect_eq "$(json "$scratch/uv.json" '[h for h in j["plan"]["hooks"] if "activate.d" in h]')" "[]" "conda hooks in a venv"
[ ! -e "$env/etc/conda/activate.d" ] || fail "repair wrote conda activate.d into a venv"
expect_eq "$(json "$scratch/uv.json" '[p["path"].split("site-packages/")[1] for p in j["plan"]["pins"]]')" \
  "['nvidia/cusparse/lib/libcusparse.so.12']" "the pinned file"
expect_eq "$(json "$scratch/uv.json" '"private copy" in j["plan"]["pins"][0]["reason"]')" True "a private copy"
if [ ! -f "$cusparse" ] || [ -L "$cusparse" ]; then fail "the private copy is not a regular file"; fi
grep -q '^version: 3' "$manifest" || fail "a manifest with a private copy is not version 3"
grep -q "link_target: \"$cache/nvidia/cusparse/lib/libcusparse.so.12\"" "$manifest" || fail "the link's text is not recorded"
expect_eq "$(module_import)" "sparse 12100" "venv/bin/python, the module on LD_LIBRARY_PATH, after repair"
expect_eq "$(bash -c '. "$1/bin/activate" 2> /dev/null || export PATH=$1/bin:$PATH; python3 -c "$2"' venv "$env" "$import")" \
  "sparse 12100" "after sourcing the venv's activate"
LD_LIBRARY_PATH=$module "$CONDACUDA" doctor -p "$env" --json > "$scratch/uv-doctor.json"
expect_eq "$(json "$scratch/uv-doctor.json" 'j["context"]')" not-activated "a venv is judged not activated"
LD_LIBRARY_PATH=$module python3 "$oracle" "$scratch/uv-doctor.json" --python "$py" > /dev/null
expect_status 0 env LD_LIBRARY_PATH="$module" "$CONDACUDA" repair -p "$env" --json > "$scratch/uv-again.json"
expect_eq "$(json "$scratch/uv-again.json" 'j["outcome"]')" unchanged "a second repair"
expect_eq "$(cd "$cache" && find . -type f -print0 | sort -z | xargs -0 sha256sum)" "$(cat "$scratch/cache.sha")" "the cache after repair"
"$CONDACUDA" undo -p "$env" > /dev/null
[ -L "$cusparse" ] || fail "undo did not put the link back"
tree_state "$env" > "$scratch/venv-after"
cmp -s "$scratch/venv-before" "$scratch/venv-after" || { diff "$scratch/venv-before" "$scratch/venv-after" >&2; fail "undo did not restore the venv"; }
expect_eq "$(cd "$cache" && find . -type f -print0 | sort -z | xargs -0 sha256sum)" "$(cat "$scratch/cache.sha")" "the cache after undo"

note "4. never ok while a verified launch fails: a cached cuSPARSE without DT_RUNPATH cannot be pinned"
src=$CONDACUDA_SOURCE_DIR/examples/demo-env/src
cc -shared -fPIC -Wl,-soname,libcusparse.so.12 -o "$cache/nvidia/cusparse/lib/libcusparse.so.12" "$src/cusparse.c" \
  -L"$cache/nvidia/nvjitlink/lib" -l:libnvJitLink.so.12
tree_state "$env" > "$scratch/venv-before"
expect_status 1 env LD_LIBRARY_PATH="$module" "$CONDACUDA" repair -p "$env" --json > "$scratch/uv-refused.json"
expect_eq "$(json "$scratch/uv-refused.json" 'j["outcome"]')" cannot-repair "the unpinnable venv's outcome"
expect_status 1 env LD_LIBRARY_PATH="$module" "$CONDACUDA" repair -p "$env" > "$scratch/uv.txt"
grep -q "condacuda run" "$scratch/uv.txt" || fail "condacuda run not named: $(cat "$scratch/uv.txt")"
grep -qE '^  ok  not activated:' "$scratch/uv.txt" && fail "repair says ok for a launch that fails"
tree_state "$env" > "$scratch/venv-after"
cmp -s "$scratch/venv-before" "$scratch/venv-after" || fail "a refused repair wrote into the venv"
expect_status 1 env LD_LIBRARY_PATH="$module" "$CONDACUDA" doctor -p "$env" > /dev/null
expect_eq "$(LD_LIBRARY_PATH=$module "$CONDACUDA" run "$env" -- python3 -c "$import")" "sparse 12100" "condacuda run, the way out"
note "ok"
