#!/usr/bin/env bash
# `condacuda fleet --from` on a thousand node documents, gathered as if by
# hand (ssh, pdsh, sbatch --array): six templates made by the real binary
# on the demo env (repaired), its node facts varied for real through
# CONDACUDA_GPU, CONDACUDA_DRIVER and LD_LIBRARY_PATH (unset, or the old
# system CUDA whose nvJitLink breaks the env, alone or before another
# folder), then copied to gpu0001 .. gpu1000 (renamed: node.name,
# slurm_node, hostname), one file each, the last hundred as JSON Lines.
# Classes are keyed on the verdict: the six templates judge three ways, so
# three classes answer, two of them with mixed facts (GPUs and drivers; two
# LD_LIBRARY_PATHs, with the shared-repair note). Beside them what a real gathering brings back
# too: a truncated document, a file that is not JSON, a lock document, a
# condacuda.error/1 document, an empty file, a bad line inside the JSON Lines
# file, and a node with two documents (the last kept).
# Checked: the exact classes, their mixed facts (hostlists computed here, by Slurm's scontrol
# where it is installed, else by a small compressor for these simple names),
# the malformed inputs as silent classes by reason (the same failure in
# several files one class, each node's own part in its detail), the summary,
# the exit code, a text report a screen long, --from a folder and a file at
# once, and fleet reading back the condacuda.fleet/1 document it wrote. The
# wall time of the thousand-document run is printed, never asserted.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
"$CONDACUDA" repair -p "$env" > /dev/null
templates=$scratch/templates
docs=$scratch/docs
mkdir -p "$templates" "$docs"

# template NAME STATUS GPU DRIVER LD_LIBRARY_PATH|-: one real doctor document (- : unset).
template() {
  local name=$1 status=$2 gpu=$3 driver=$4 llp=$5
  local path=(LD_LIBRARY_PATH="$llp")
  [ "$llp" = - ] && path=(-u LD_LIBRARY_PATH)
  expect_status "$status" env "${path[@]}" SLURMD_NODENAME="template-$name" CONDACUDA_GPU="$gpu" CONDACUDA_DRIVER="$driver" \
    "$CONDACUDA" doctor -p "$env" --json --gpu visible --context not-activated > "$templates/$name.json"
}
mkdir -p "$scratch/site-lib"
template healthy 0 A100 550.54.15 -
template v100a 0 V100 535.104.05 - # loads too: healthy's class, its GPUs and drivers mixed
template v100b 0 V100 535.129.03 -
template shadowed 1 A100 550.54.15 "$system"
template shadowed2 1 A100 550.54.15 "$system:$scratch/site-lib" # the same failure in another launch
template old 1 H100 470.57.02 -                                  # driver-too-old
# What else comes back: a lock document, an error document (both real).
"$CONDACUDA" lock -p "$env" --json > "$templates/lock.json"
expect_status 2 "$CONDACUDA" doctor -p "$scratch/no-such-env" --json > "$templates/error.json" 2> "$templates/error.stderr"

# The thousand documents and the malformed inputs; expected.json: each node's
# template (its class), by the plan below, for the checks.
python3 - "$templates" "$docs" > "$scratch/expected.json" << 'PY'
import copy, json, sys

templates, docs = sys.argv[1], sys.argv[2]
t = {n: json.load(open(f"{templates}/{n}.json"))
     for n in ("healthy", "v100a", "v100b", "shadowed", "shadowed2", "old", "lock", "error")}
# The class each template's nodes fall in (the verdict's).
label = {"healthy": "loads", "v100a": "loads", "v100b": "loads", "shadowed": "shadowed", "shadowed2": "shadowed", "old": "old"}

def plan(i):
    if i <= 400: return "shadowed" if i % 50 == 0 else "healthy"
    if i <= 600: return "v100a" if i % 2 else "v100b"
    if i <= 800: return "old" if i in (650, 700) else "shadowed" if i % 2 else "shadowed2"
    if i <= 900: return "old"
    return "v100a" if i % 10 == 3 else "healthy"

def document(name, template):
    d = copy.deepcopy(t[template])
    d["node"].update(name=name, slurm_node=name, hostname=name + ".cluster.example")
    return d

expected = {}
lines = []
for i in range(1, 1001):
    name = f"gpu{i:04d}"
    expected[name] = label[plan(i)]
    if i <= 900:
        with open(f"{docs}/{name}.json", "w") as f:
            json.dump(document(name, plan(i)), f, indent=2)
    else:
        lines.append(json.dumps(document(name, plan(i)), separators=(",", ":")))
# The JSON Lines file sorts after the gpu*.json files: its second document
# of gpu0007 (another class) is the one kept.
lines.insert(50, '{"schema":"condacuda.doctor/1","node":{"name":"gpu0950"')  # cut short: line 51
lines.insert(70, "")                                                          # a blank line: skipped
lines.append(json.dumps(document("gpu0007", "shadowed"), separators=(",", ":")))
expected["gpu0007"] = "shadowed"
with open(f"{docs}/rack10.jsonl", "w") as f:
    f.write("\n".join(lines) + "\n")
healthy = json.dumps(document("gpu1001", "healthy"), indent=2)
with open(f"{docs}/gpu1001.json", "w") as f:
    f.write(healthy[: len(healthy) // 2])                 # truncated
with open(f"{docs}/gpu1002.json", "w") as f:
    f.write("srun: error: gpu1002: task 0: Killed\n")    # not JSON
with open(f"{docs}/gpu1003.json", "w") as f:
    json.dump(t["lock"], f, indent=2)                     # condacuda.lock/2
with open(f"{docs}/gpu1004.json", "w") as f:
    json.dump(t["error"], f, indent=2)                    # condacuda.error/1
open(f"{docs}/gpu1005.json", "w").close()               # empty
json.dump(expected, sys.stdout)
PY

# The expected hostlist of each set of names: scontrol show hostlistsorted
# (it reads slurm.conf and reaches no daemon: the hostlist oracle's), else a
# compressor for names of one prefix and four digits.
if command -v scontrol > /dev/null; then
  mkdir -p "$scratch/etc"
  printf 'ClusterName=condacuda-test\nSlurmctldHost=localhost\n' > "$scratch/etc/slurm.conf"
  export SLURM_CONF=$scratch/etc/slurm.conf
  oracle=scontrol
else
  oracle=python
fi
# hostlists FILE: a JSON object label -> [names] in, label -> hostlist out.
hostlists() {
  if [ "$oracle" = scontrol ]; then
    python3 -c 'import json, sys; [print(k, ",".join(v)) for k, v in json.load(open(sys.argv[1])).items()]' "$1" |
      while read -r label names; do printf '%s %s\n' "$label" "$(scontrol show hostlistsorted "$names")"; done |
      python3 -c 'import json, sys; print(json.dumps(dict(l.split(" ", 1) for l in sys.stdin.read().splitlines())))'
  else
    python3 - "$1" << 'PY'
import json, re, sys

def compress(names):
    nums = sorted(int(re.fullmatch(r"gpu(\d{4})", n).group(1)) for n in names)
    if len(nums) == 1:
        return f"gpu{nums[0]:04d}"
    ranges, lo = [], nums[0]
    for a, b in zip(nums, nums[1:] + [None]):
        if b != a + 1:
            ranges.append(f"{lo:04d}" if lo == a else f"{lo:04d}-{a:04d}")
            lo = b
    return "gpu[" + ",".join(ranges) + "]"

print(json.dumps({k: compress(v) for k, v in json.load(open(sys.argv[1])).items()}))
PY
  fi
}
python3 -c '
import json, sys
expected = json.load(open(sys.argv[1]))
groups = {}
for name, label in sorted(expected.items()):
    groups.setdefault(label, []).append(name)
json.dump(groups, sys.stdout)' "$scratch/expected.json" > "$scratch/groups.json"
hostlists "$scratch/groups.json" > "$scratch/hostlists.json"

# The thousand documents.
start=$(date +%s%N)
expect_status 2 "$CONDACUDA" fleet --from "$docs" --json > "$scratch/fleet.json"
end=$(date +%s%N)
note "fleet --from: $(find "$docs" -type f | wc -l) files, 1006 nodes in $(((end - start) / 1000000)) ms (wall, one run; $oracle's hostlists)"

# check_big FLEET.JSON REREAD: the classes of the thousand documents; REREAD
# (1: FLEET.JSON is fleet's reading of its own document) has no repeated node.
check_big() {
  python3 - "$1" "$scratch/groups.json" "$scratch/hostlists.json" "$docs" "$2" << 'PY'
import json, sys

f = json.load(open(sys.argv[1]))
groups, hostlists, docs, reread = json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4], sys.argv[5] == "1"
errors = []
def expect(what, got, want):
    if got != want:
        errors.append(f"{what}: expected {want!r}, got {got!r}")

assert f["schema"] == "condacuda.fleet/1", f["schema"]
expect("source", f["source"], "files")
by_hostlist = {c["hostlist"]: c for c in f["classes"]}
expect("distinct hostlists", len(by_hostlist), len(f["classes"]))
for c in f["classes"]:
    expect(f"{c['hostlist']}: count", c["count"], len(c["nodes"]))
    expect(f"{c['hostlist']}: nodes", c["nodes"], sorted(c["nodes"]))

# The answering classes, keyed on the verdict: the facts their nodes do not share are mixed.
want = {  # label: exit code, verdict, mixed facts, GPUs, driver versions
    "loads": (0, "loads", ["driver", "gpus"], ["A100 (sm_80)", "V100 (sm_70)"], ["535.104.05", "535.129.03", "550.54.15"]),
    "shadowed": (1, "fails: undefined-symbol, not-activated", ["ld_library_path"], ["A100 (sm_80)"], ["550.54.15"]),
    "old": (1, "fails: driver-too-old", [], ["H100 (sm_90)"], ["470.57.02"]),
}
for label, names in groups.items():
    c = by_hostlist.get(hostlists[label])
    if c is None:
        errors.append(f"{label}: no class {hostlists[label]} (classes: {sorted(by_hostlist)})")
        continue
    code, verdict, mixed, gpus, versions = want[label]
    expect(f"{label}: nodes", c["nodes"], names)
    expect(f"{label}: count", c["count"], len(names))
    expect(f"{label}: exit code", c["exit_code"], code)
    expect(f"{label}: verdict", c["verdict"], verdict)
    expect(f"{label}: no_answer", c["no_answer"], None)
    expect(f"{label}: mixed", c["mixed"], mixed)
    # The facts are its first node's; the driver versions, every node's.
    expect(f"{label}: the first node's GPUs", c["facts"]["gpus"], gpus[:1])
    expect(f"{label}: driver versions", c["facts"]["driver"]["versions"], versions)
    for fact in mixed:
        if not c["distinct"].get(fact, "").startswith("mixed: "):
            errors.append(f"{label}: {fact} not shown as mixed: {c['distinct']}")
    if label != "shadowed":
        expect(f"{label}: LD_LIBRARY_PATH", (c["facts"]["ld_library_path"], c["distinct"].get("ld_library_path")), (None, "unset"))
    gpu_text = c["distinct"].get("gpus", "")
    for g in gpus:
        if g not in gpu_text:
            errors.append(f"{label}: {g} not in its GPUs: {gpu_text!r}")
note = f.get("shared_repair_note") or ""
if f"(2 in {hostlists['shadowed']})" not in note:
    errors.append(f"shared_repair_note names not the two launches of {hostlists['shadowed']}: {note!r}")
expect("differing", f["differing"], ["driver", "gpus", "ld_library_path"])

# The malformed inputs: silent classes by reason (the same failure in several
# files is one class), each node named after its file (or NAME:LINE), its own
# part of the failure (the file, where the JSON broke) in its detail.
silent = {
    "gpu[1001-1002],rack10.jsonl:51": (["gpu1001", "gpu1002", "rack10.jsonl:51"], "bad-document", "not a JSON document", 5),
    "gpu1003": (["gpu1003"], "bad-document", "a condacuda.lock/2 document, not condacuda.doctor/1", 5),
    "gpu1004": (["gpu1004"], "error", "condacuda: no such directory (from --prefix)", 2),
    "gpu1005": (["gpu1005"], "no-document", "an empty file", 5),
}
details = {"gpu1001": f"{docs}/gpu1001.json: ", "gpu1002": f"{docs}/gpu1002.json: ", "gpu1005": f"{docs}/gpu1005.json"}
for n in f["nodes"]:
    if n["name"] in details and not (n["no_answer"] or {}).get("detail", "").startswith(details[n["name"]]):
        errors.append(f"{n['name']}: detail {n['no_answer']!r} does not start with {details[n['name']]!r}")
for name, (members, kind, reason, code) in silent.items():
    c = by_hostlist.get(name)
    if c is None:
        errors.append(f"no silent class {name}")
        continue
    expect(f"{name}: nodes", c["nodes"], members)
    expect(f"{name}: exit code", c["exit_code"], code)
    expect(f"{name}: verdict", c["verdict"], "no answer: " + kind)
    expect(f"{name}: kind", (c["no_answer"] or {}).get("kind"), kind)
    if not (c["no_answer"] or {}).get("reason", "").startswith(reason):
        errors.append(f"{name}: reason {c['no_answer']!r} does not start with {reason!r}")
    expect(f"{name}: facts", c["facts"], None)
expect("classes", sorted(by_hostlist), sorted([hostlists[label] for label in groups] + list(silent)))
expect("summary", f["summary"], {"nodes": 1006, "answered": 1000, "classes": len(want) + len(silent)})
expect("repeated", f["repeated"], [] if reread else ["gpu0007"])

# The nodes: each once, by name, in the class that holds it.
names = [n["name"] for n in f["nodes"]]
expect("node names", names, sorted(set(names)))
expect("node count", len(names), 1006)
for n in f["nodes"]:
    if n["name"] not in f["classes"][n["class"]]["nodes"]:
        errors.append(f"node {n['name']}: not in its class {n['class']}")
# gpu0007's documents: gpu0007.json (loads), then the JSON Lines file's (shadowed), the one kept.
g7 = next(n for n in f["nodes"] if n["name"] == "gpu0007")
expect("gpu0007's class", f["classes"][g7["class"]]["hostlist"], hostlists["shadowed"])
# The worst first: the error class (2), the failing ones (1), the silent ones (5), the healthy (0).
order = [c["exit_code"] for c in f["classes"]]
expect("class order by exit code", order, sorted(order, key=[0, 3, 5, 1, 4, 2, 70].index, reverse=True))
if errors:
    sys.exit("\n".join(errors))
PY
}
check_big "$scratch/fleet.json" 0 || fail "fleet --from $docs: the classes above differ"

# The text: one line a class, not a node; the thousand fit on a screen.
expect_status 2 "$CONDACUDA" fleet --from "$docs" --color never > "$scratch/fleet.txt"
lines=$(wc -l < "$scratch/fleet.txt")
[ "$lines" -lt 80 ] || { cat "$scratch/fleet.txt"; fail "fleet's text is $lines lines for 1006 nodes in 7 classes"; }
python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/text_rules.py" fleet "$scratch/fleet.txt" || fail "fleet's text breaks the layout rules"
grep -q '^1006 nodes, 1000 answered, 7 classes' "$scratch/fleet.txt" || { cat "$scratch/fleet.txt"; fail "no summary line"; }
grep -q 'came with more than one document (the last kept): gpu0007$' "$scratch/fleet.txt" || fail "gpu0007 not named as repeated"
note "the text: $lines lines"

# Its own condacuda.fleet/1 document read back: the same classes.
expect_status 2 "$CONDACUDA" fleet --from "$scratch/fleet.json" --json > "$scratch/reread.json"
check_big "$scratch/reread.json" 1 || fail "fleet --from its own document: the classes above differ"
python3 - "$scratch/fleet.json" "$scratch/reread.json" << 'PY' || fail "fleet --from its own document: other classes"
import json, sys
keys = ("hostlist", "nodes", "count", "exit_code", "verdict", "no_answer", "facts", "mixed", "distinct", "findings", "next")
a, b = ([{k: c[k] for k in keys} for c in json.load(open(p))["classes"]] for p in sys.argv[1:])
if a != b:
    sys.exit("first differing class:\n%s\n%s" % next((x, y) for x, y in zip(a, b) if x != y) if len(a) == len(b) else f"{len(a)} classes, then {len(b)}")
PY

# A folder and files at once, and the exit code of the worst class.
mkdir -p "$scratch/few"
cp "$docs"/gpu000[1-5].json "$docs"/gpu040[1-2].json "$scratch/few/"
expect_status 0 "$CONDACUDA" fleet --from "$scratch/few" --json > "$scratch/few0.json"
expect_status 5 "$CONDACUDA" fleet --from "$scratch/few" --from "$docs/gpu1002.json" --json > "$scratch/few5.json"
expect_status 1 "$CONDACUDA" fleet --from "$docs/gpu0050.json" --from "$scratch/few" --from "$docs/gpu1005.json" --json > "$scratch/few1.json"
python3 - "$scratch" "$docs" << 'PY' || fail "fleet --from a folder and files: the classes above differ"
import json, sys
scratch, docs = sys.argv[1:]
def classes(name):
    f = json.load(open(f"{scratch}/{name}.json"))
    return {c["hostlist"]: (c["count"], c["exit_code"]) for c in f["classes"]}, f["inputs"]
few = sorted(f"{scratch}/few/{n}" for n in ["gpu0001.json", "gpu0002.json", "gpu0003.json", "gpu0004.json", "gpu0005.json",
                                             "gpu0401.json", "gpu0402.json"])
want = {
    "few0": ({"gpu[0001-0005,0401-0402]": (7, 0)}, few),
    "few5": ({"gpu[0001-0005,0401-0402]": (7, 0), "gpu1002": (1, 5)}, few + [f"{docs}/gpu1002.json"]),
    "few1": ({"gpu0050": (1, 1), "gpu[0001-0005,0401-0402]": (7, 0), "gpu1005": (1, 5)},
             [f"{docs}/gpu0050.json"] + few + [f"{docs}/gpu1005.json"]),
}
errors = [f"{name}: expected {w}, got {classes(name)}" for name, w in want.items() if classes(name) != w]
sys.exit("\n".join(errors) if errors else 0)
PY
note "1000 documents in 3 classes by verdict, each malformed input its own; the same from fleet's own document"
# A folder holding no files (a loop of links only): named as a mistake, not an empty fleet.
mkdir "$scratch/nothing"
ln -s "$scratch/nothing" "$scratch/nothing/again"
expect_exit 2 "$scratch/nothing.out" "$scratch/nothing.err" "$CONDACUDA" fleet --from "$scratch/nothing" --from "$docs/gpu0050.json"
grep -qF "the folder holds no files of documents" "$scratch/nothing.err" || fail "fleet --from an empty folder: $(cat "$scratch/nothing.err")"
