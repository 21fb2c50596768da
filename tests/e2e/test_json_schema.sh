#!/usr/bin/env bash
# Every command's --json against docs/json.md (tests/tools/check_json_docs.py):
# each documented field present with its type, nothing undocumented, the
# shared head (schema, env, outcome, exit_code), exit_code the process's own,
# outcome one of the command's words, env {name, prefix, kind} everywhere.
# Run on the demo env through each outcome a script meets: list, info,
# doctor (problems, then healthy), repair (dry run, repaired, unchanged),
# lock (stdout, -o FILE), lock --check (matches, drift, does-not-load), check (no GPU here,
# or pass), undo (undone, nothing to undo), kernel install (a dry run); and the error document for an
# unknown env (with the envs found and a suggestion), a usage error, a
# mistyped command and an unreadable lock.
source "$(dirname "$0")/lib.sh"
export HOME=$scratch/home XDG_CACHE_HOME=$scratch/cache CONDA_ENVS_DIRS=$scratch/envs
unset CONDA_ENVS_PATH CONDA_PREFIX VIRTUAL_ENV CONDA_ROOT CONDA_EXE MAMBA_ROOT_PREFIX
mkdir -p "$HOME" "$scratch/envs"
demo_env "$scratch/demo"
mv "$env" "$scratch/envs/seed"
env=$scratch/envs/seed
docs=$CONDACUDA_SOURCE_DIR/docs/json.md
checker=$CONDACUDA_SOURCE_DIR/tests/tools/check_json_docs.py
checked=()

# doc NAME EXPECTED_STATUS ARGS...: `condacuda ARGS --json`, its status, and its document against the docs.
doc() {
  local name=$1 want=$2 status=0
  shift 2
  "$CONDACUDA" "$@" --json > "$scratch/$name.json" 2> "$scratch/$name.err" || status=$?
  [ "$status" = "$want" ] || { cat "$scratch/$name.err" >&2; fail "condacuda $*: exit $status, expected $want"; }
  python3 "$checker" "$docs" "$scratch/$name.json" "$status" || fail "condacuda $* --json disagrees with docs/json.md"
  checked+=("$(json "$scratch/$name.json" 'j["schema"] + " " + j["outcome"]')")
}

doc list 0 list
doc info 0 info -p "$env"
SLURMD_NODENAME=node1 LD_LIBRARY_PATH=$system doc doctor-problems 1 doctor -p "$env"
expect_eq "$(json "$scratch/doctor-problems.json" 'j["healthy"]')" False "healthy, kept beside outcome"
LD_LIBRARY_PATH=$system doc repair-dry 0 repair -p "$env" --dry-run
LD_LIBRARY_PATH=$system doc repair 0 repair -p "$env"
LD_LIBRARY_PATH=$system doc repair-again 0 repair -p "$env"
SLURMD_NODENAME=node2 doc doctor-healthy 0 doctor -p "$env" --no-ld-library-path
expect_eq "$(json "$scratch/doctor-healthy.json" 'j["node"]["ld_library_path"], j["node"]["glibc"] != ""')" "(None, True)" "doctor's node facts"
note "fleet --from reads doctor documents: condacuda.fleet/1"
doc fleet-from 1 fleet --from "$scratch/doctor-problems.json" --from "$scratch/doctor-healthy.json"
expect_eq "$(json "$scratch/fleet-from.json" "[c['hostlist'] for c in j['classes']]")" "['node1', 'node2']" "a class each"
doc lock 0 lock -p "$env"
doc lock-written 0 lock -p "$env" -o "$scratch/cuda.lock.yml"
expect_eq "$(json "$scratch/lock-written.json" 'j["output"]')" "$scratch/cuda.lock.yml" "where the lock went"
grep -q '^# condacuda lockfile' <<< "$(head -1 "$scratch/cuda.lock.yml")" || fail "lock --json -o wrote no YAML lockfile"
doc lock-matches 0 lock --check "$scratch/cuda.lock.yml" -p "$env"
sed 's/^version: 1$/version: 1\n# edited/; s/sha256: "\([0-9a-f]\{8\}\)/sha256: "00000000/' "$scratch/cuda.lock.yml" > "$scratch/drift.yml"
doc lock-drift 1 lock --check "$scratch/drift.yml" -p "$env"
doc lock-does-not-load 1 lock --check "$scratch/cuda.lock.yml" -p "$env" --driver 450.80
expect_eq "$(json "$scratch/lock-does-not-load.json" 'j["outcome"], [r["rule"] for r in j["rules_here"]]')" \
  "('does-not-load', ['driver'])" "a driver too old for the env: does not load here"
note "a lock written as JSON by condacuda 0.1 (lock --json -o) is still read"
python3 -c 'import json, sys, yaml; d = yaml.safe_load(open(sys.argv[1])); json.dump(d, open(sys.argv[2], "w"))' \
  "$scratch/cuda.lock.yml" "$scratch/old-json-lock.yml"
doc lock-json-lock 0 lock --check "$scratch/old-json-lock.yml" -p "$env"
if "$CONDACUDA_DLOPEN_PROBE" libcuda.so.1 > /dev/null 2>&1; then want=0; else want=3; fi
doc check "$want" check -p "$env" --quick
doc undo 0 undo -p "$env"
doc undo-again 0 undo -p "$env"
doc kernel-install 0 kernel install -p "$env" --kernel-name seed --dry-run
expect_eq "$(json "$scratch/kernel-install.json" 'j["outcome"], j["written"]')" "('would-install', False)" "a dry run writes nothing"
[ ! -e "$HOME/.local/share/jupyter/kernels/seed" ] || fail "kernel install --dry-run wrote a kernelspec"

note "errors are documents too"
doc error-env 2 doctor -n sede
expect_eq "$(json "$scratch/error-env.json" 'j["error"]["message"].endswith("did you mean '"'seed'"'?")')" True "the suggestion"
expect_eq "$(json "$scratch/error-env.json" '[e["name"] for e in j["envs"]]')" "['seed']" "the envs found"
doc error-usage 2 doctor -p "$env" --no-such-option
doc error-command 2 doctr
expect_eq "$(json "$scratch/error-command.json" 'j["error"]["message"]')" \
  "unknown command 'doctr'; did you mean 'doctor'? (condacuda --help lists them)" "the command suggestion"
printf 'not: [a lock\n' > "$scratch/bad.yml"
doc error-lock 2 lock --check "$scratch/bad.yml" -p "$env"
expect_eq "$(json "$scratch/error-lock.json" 'j["error"]["code"], j["error"]["path"]')" "('bad_input', '$scratch/bad.yml')" "the unreadable lock"

note "checked: $(printf '%s, ' "${checked[@]}")"
# Every schema of the docs was met at least once.
documented=$(grep -o '^## .*`condacuda\.[a-z-]*/[0-9]*`' "$docs" | grep -o 'condacuda\.[a-z-]*/[0-9]*' | sort -u | tr '\n' ' ')
seen=$(printf '%s\n' "${checked[@]}" | cut -d' ' -f1 | sort -u | tr '\n' ' ')
expect_eq "$seen" "$documented" "every documented schema exercised"
