#!/usr/bin/env bash
# condacuda fleet on a real Slurm cluster of five nodes on this machine
# (tests/e2e/slurm_cluster.sh), with the seed env shared by all of them:
#  - node2's TaskProlog puts a site module's older nvJitLink (the demo's
#    system CUDA 12.0) on LD_LIBRARY_PATH, as `module load cuda/12.0` in a
#    prolog does: fleet over node[1-3] gives two classes, node[1,3] loading
#    and node2 failing with __nvJitLinkAddData_12_1 and naming that entry;
#    the real import, run through srun on each node, agrees;
#  - after node2's next step as fleet words it (`repair --pin` in node2's
#    launch), one class, every node loads, the imports agree;
#  - node4 drained and node5 without condacuda's folder mounted (its own
#    mount namespace): each its own class with the reason; exit 5, the worst.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_cluster.sh"
shopt -s extglob

demo_env "$scratch/demo"
unset LD_LIBRARY_PATH
site=$scratch/site
mkdir -p "$site/bin"
cp "$CONDACUDA" "$site/bin/condacuda"
slurm_node_hide node5 "$site"
slurm_cluster_start "$scratch/slurm" 5
# node2's module path is long, as sites' are (2.3 KB: srun --label breaks a
# line longer than one slurmstepd message, 1 KB); node1's prolog prints a line
# to the task's stdout (TaskProlog's `print`), before the node script.
modules=$(seq -f "/opt/site/modules/tool-%04g/lib64" 1 70 | paste -sd:)
llp2=$system:$modules
slurm_node_prolog node2 "echo 'export LD_LIBRARY_PATH=$llp2'"
slurm_node_prolog node1 "echo 'print welcome to node1'"
# The env's repair without --pin: links and the hook. A launch without
# activation loads as long as nothing on LD_LIBRARY_PATH shadows the env.
expect_status 0 "$CONDACUDA" repair -p "$env" > /dev/null

# classes: "HOSTLIST EXIT VERDICT" per class, worst first
classes() {
  json "$1" '"\n".join("%s %d %s" % (c["hostlist"], c["exit_code"], c["verdict"]) for c in j["classes"])'
}
# real_imports NODES: "NODE: what the env's python printed last" per node, sorted
real_imports() {
  slurm_wait_jobs_done
  # shellcheck disable=SC2016 # expanded on the node
  timeout -k 5 60 srun -I -w "$1" -N "$2" --ntasks-per-node=1 sh -c \
    'printf "%s: %s\n" "$SLURMD_NODENAME" "$("$0" -c "$1" 2>&1 | tail -1)"' "$py" "$import" < /dev/null | grep '^node[0-9]*: ' | sort
}
fleet() {
  slurm_wait_jobs_done
  timeout -k 5 120 "$CONDACUDA" fleet -p "$env" "$@" < /dev/null
}

note "the seed: node2's prolog loads the site's older nvJitLink"
expect_status 1 fleet --nodes 'node[1-3]' --json > "$scratch/seed.json"
expect_eq "$(classes "$scratch/seed.json")" "node2 1 fails: undefined-symbol, not-activated
node[1,3] 0 loads" "the classes"
expect_eq "$(json "$scratch/seed.json" 'j["context"]')" "not-activated" "the launch judged (this shell is not activated)"
expect_eq "$(json "$scratch/seed.json" 'j["differing"]')" "['ld_library_path']" "what tells the classes apart"
expect_eq "$(json "$scratch/seed.json" 'j["classes"][0]["facts"]["ld_library_path"]')" "$llp2" "node2's LD_LIBRARY_PATH, from its prolog, whole"
expect_eq "$(json "$scratch/seed.json" 'j["classes"][0]["distinct"]["ld_library_path"]')" "+${llp2//:/ +}" "the entries node2 adds"
f='[f for f in j["classes"][0]["findings"] if f["code"] == "undefined-symbol"][0]'
expect_eq "$(json "$scratch/seed.json" "${f}['via_entry']")" "$system" "the finding names the entry"
case "$(json "$scratch/seed.json" "${f}['first_error']")" in
  *"libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12") ;;
  *) fail "node2's first error: $(json "$scratch/seed.json" "${f}['first_error']")" ;;
esac
expect_eq "$(json "$scratch/seed.json" 'j["shared_repair_note"]')" \
  "one repair of the shared env suits every launch its nodes have (2 LD_LIBRARY_PATH values, verified here with this machine's loader): \`condacuda repair -p '$env' --pin --launch unset --launch '$llp2'\`" \
  "one repair for the shared env, asked of a dry run"
next=$(json "$scratch/seed.json" 'j["classes"][0]["next"].split("  (")[0]')
expect_eq "$next" "LD_LIBRARY_PATH='$llp2' condacuda repair -p '$env' --pin" "node2's next step: a pinning repair in its launch"
expect_eq "$(json "$scratch/seed.json" '[n["name"] for n in j["nodes"]]')" "['node1', 'node2', 'node3']" "each node's document"
expect_eq "$(json "$scratch/seed.json" '[n["doctor"]["node"]["slurm_node"] for n in j["nodes"]]')" "['node1', 'node2', 'node3']" \
  "each document from its own node"
expect_eq "$(real_imports 'node[1-3]' 3)" "node1: sparse 12100
node2: ImportError: $sp/demotorch/../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12
node3: sparse 12100" "the real imports on the three nodes"

note "the text: one row per class, the differing fact under it (its 70 module folders make it wider than 100 columns)"
expect_status 1 fleet --nodes 'node[1-3]' --color never > "$scratch/seed.txt"
# A class's row, then its LD_LIBRARY_PATH (what differs from the others) 4 further in, wrapped at spaces.
class_rows=$(python3 -c '
import re, sys
rows, at = {}, None
for line in open(sys.argv[1]).read().split("\n\n")[1].splitlines():
    m = re.match(r"  (\S+) +(\d+) +(.*)$", line)
    if m:
        at = m.group(1); rows[at] = [m.group(3)]
    elif at and line.startswith("      "):
        rows[at].append(line.strip())
for name, parts in rows.items():
    print("%s|%s|%s" % (name, parts[0], " ".join(parts[1:])))
' "$scratch/seed.txt")
grep -qF "node2|fails: undefined-symbol, not-activated|+$system +/opt/site/modules/tool-0001/lib64 +" <<< "$class_rows" ||
  { cat "$scratch/seed.txt"; fail "node2's row"; }
grep -qxF "node[1,3]|loads|unset" <<< "$class_rows" || { cat "$scratch/seed.txt"; fail "node[1,3]'s row"; }
python3 "$CONDACUDA_SOURCE_DIR/tests/e2e/frameworks/text_rules.py" fleet "$scratch/seed.txt" || fail "the text view breaks the layout rules"

note "after node2's next step, run as fleet wrote it: one class, and every import loads"
PATH=${CONDACUDA%/*}:$PATH expect_status 0 sh -c "$next" > /dev/null
expect_status 0 fleet --nodes 'node[1-3]' --json > "$scratch/pinned.json"
expect_eq "$(classes "$scratch/pinned.json")" "node[1-3] 0 loads" "one class"
expect_eq "$(real_imports 'node[1-3]' 3)" "node1: sparse 12100
node2: sparse 12100
node3: sparse 12100" "the real imports after the pin"

note "a drained node and a node that does not see condacuda's folder"
slurm_node_drain node4 "fan replaced"
expect_status 5 fleet --condacuda "$site/bin/condacuda" --json > "$scratch/silent.json"
expect_eq "$(classes "$scratch/silent.json")" "node4 5 no answer: unavailable
node5 5 no answer: not-started
node[1-3] 0 loads" "the classes, worst first"
expect_eq "$(json "$scratch/silent.json" 'j["outcome"], j["exit_code"], j["summary"]')" \
  "('no-answer', 5, {'nodes': 5, 'answered': 3, 'classes': 3})" "outcome and summary"
expect_eq "$(json "$scratch/silent.json" 'j["classes"][0]["no_answer"]["reason"]')" "drained: fan replaced" "node4's reason"
case "$(json "$scratch/silent.json" 'j["classes"][1]["no_answer"]["reason"]')" in
  # sh's "not found", or coreutils timeout's "No such file or directory"
  "$site/bin/condacuda could not be started there: "*"$site/bin/condacuda"*@(not found|No such file or directory)) ;;
  *) fail "node5's reason: $(json "$scratch/silent.json" 'j["classes"][1]["no_answer"]["reason"]')" ;;
esac
note "--exclude leaves them out; the verdict is the answering nodes' again"
expect_status 0 fleet --condacuda "$site/bin/condacuda" --exclude 'node[4-5]' --json > "$scratch/excluded.json"
expect_eq "$(classes "$scratch/excluded.json")" "node[1-3] 0 loads" "without node4 and node5"

note "what fleet needs from the site, said when it is missing"
PATH=/nonexistent expect_status 2 "$CONDACUDA" fleet -p "$env" 2> "$scratch/nosrun.err"
grep -q "srun is not on PATH" "$scratch/nosrun.err" || fail "no srun: $(cat "$scratch/nosrun.err")"
expect_status 2 fleet --partition nosuch 2> "$scratch/nopart.err"
grep -q "no node selected" "$scratch/nopart.err" || fail "an unknown partition: $(cat "$scratch/nopart.err")"
note "fleet over a real Slurm cluster: classes by hostlist, the imports agree"
