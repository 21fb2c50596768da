#!/usr/bin/env bash
# util/hostlist against Slurm's own scontrol, the oracle of
# docs/slurm-test-cluster.md ("Slurm's hostlist, the oracle for condacuda's"):
# `show hostlist`, `show hostlistsorted` and `show hostnames` of a few hundred
# lists, generated (prefixes with dashes, numbers with and without zero
# padding, repeats, shuffled, bracketed entries) and fuzzed (short strings of
# a-b, digits, brackets, commas, dashes, x, dots, spaces), and the doc's rows.
# condacuda answers through tests/tools/hostlist_cli.cpp, all lists in one run
# per mode; scontrol takes one list per call. An invalid list is "(invalid)"
# on both sides: scontrol's when it writes anything on stderr (it refuses the
# list, or logs a bad range and goes on: util/hostlist.hpp refuses those).
# Skipped without scontrol (tests/install-deps.sh installs slurm-client).
# With a Slurm other than 22.05 only the generated lists are compared: the
# fuzzed ones and the doc's rows reach 22.05's quirks ("node[1" is "node]").
# CONDACUDA_HOSTLIST_SEED and CONDACUDA_HOSTLIST_COUNT vary the lists.
# lib.sh wants the binary under test, which this test never runs: a default
# lets it run outside ctest with the source and build folders alone.
export CONDACUDA=${CONDACUDA:-${CONDACUDA_BUILD_DIR:-build}/src/condacuda}
source "$(dirname "$0")/lib.sh"
command -v scontrol > /dev/null || skip "no scontrol (Slurm's client, package slurm-client)"
cli=${CONDACUDA_HOSTLIST_CLI:-$CONDACUDA_BUILD_DIR/tests/condacuda_hostlist_cli}
[ -x "$cli" ] || fail "no $cli: build the target condacuda_hostlist_cli"
seed=${CONDACUDA_HOSTLIST_SEED:-20261202}
count=${CONDACUDA_HOSTLIST_COUNT:-250}

# These scontrol commands read slurm.conf and reach no daemon: a cluster name
# and a controller host are all they need (the doc).
mkdir -p "$scratch/etc"
printf 'ClusterName=condacuda-test\nSlurmctldHost=localhost\n' > "$scratch/etc/slurm.conf"
export SLURM_CONF=$scratch/etc/slurm.conf
version=$(scontrol --version) || fail "scontrol --version failed with SLURM_CONF=$SLURM_CONF"
note "$version, seed $seed"

# One list per line. None starts with '-' (scontrol would take it for an
# option) or '/' (the name of a file of names), none has a newline, and none
# has a number of 10 digits: condacuda parts from Slurm from 2^31 apart.
python3 - "$seed" "$count" > "$scratch/generated" << 'PY'
import random, sys

rng = random.Random(int(sys.argv[1]))
letters = "abcdefghijklmnopqrstuvwxyz"

def prefix():
    if rng.random() < 0.08:
        return ""
    p = "".join(rng.choice(letters) for _ in range(rng.randint(1, 4)))
    if rng.random() < 0.35:
        p += "-" + rng.choice(["", "n", "node", "gpu", f"{rng.randint(0, 12)}-n"])
    if rng.random() < 0.15:
        p = f"{rng.choice(['rack', 'r', 'cn'])}{rng.randint(0, 20)}-{p}"
    return p

def number(n, width):
    return str(n).zfill(width)

def bracket():
    width = rng.choice([0, 0, 1, 2, 3])
    parts = []
    for _ in range(rng.randint(1, 3)):
        lo = rng.randint(0, 120)
        hi = lo + rng.choice([0, 0, 1, 2, 5, 11])
        parts.append(number(lo, width) if lo == hi else f"{number(lo, width)}-{number(hi, width)}")
    return "[" + ",".join(parts) + "]"

def names():
    out = []
    for _ in range(rng.randint(1, 8)):
        kind = rng.random()
        p = prefix()
        if kind < 0.1:
            out.append(rng.choice(["login", "head-node", "host1.ex", "a1b", "gpu-a"]))
        elif kind < 0.2 and out:
            out.append(rng.choice(out))
        elif kind < 0.35:
            out.append(p + bracket() if p or rng.random() < 0.5 else "n" + bracket())
            if rng.random() < 0.3:
                out[-1] = prefix() + bracket() + "-" + out[-1]
        else:
            width = rng.choice([0, 0, 1, 2, 3, 4])
            first = rng.choice([rng.randint(0, 12), rng.randint(0, 1200), rng.choice([9, 99, 999])])
            for k in range(rng.randint(1, 6)):
                out.append(p + number(first + k, width))
    if rng.random() < 0.4:
        rng.shuffle(out)
    return out

for _ in range(int(sys.argv[2])):
    separator = rng.choice([",", ",", ",", " ", ", "])
    line = separator.join(names())
    if line[0] in "-/":
        line = "n" + line
    print(line)
# Many overlapping ranges: what hostlistsorted splits up (and condacuda faster).
for _ in range(5):
    width = rng.choice([0, 2])
    starts = [rng.randint(0, 40) for _ in range(rng.randint(20, 60))]
    print(",".join(f"n[{number(lo, width)}-{number(lo + rng.randint(0, 30), width)}]" for lo in starts))
PY

# Fuzzed: the tokenizer, unclosed and stray brackets, boxes ("x"), empty
# entries. Nine characters at most: no number past 2^31, no product of
# brackets scontrol would take minutes to expand.
python3 - "$seed" > "$scratch/fuzzed" << 'PY'
import random, sys

rng = random.Random(int(sys.argv[1]) + 1)
alphabet = "ab019-[],x. "
for _ in range(80):
    line = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
    if line[0] in "-/":
        line = "a" + line
    print(line)
PY

# The doc's rows, and what the doc's tables gained from this test.
cat > "$scratch/rows" << 'ROWS'
node1,node2,node3,gpu001,gpu002,gpu010
n9,n10
n09,n10
n99,n100
n099,n100
n1,n01
n01,n1,n001
n9,n010
n0,n1
n000,n001
node3,node1,node2
n10,n9
node1,node1,node2
node2,node1,node2
login,node1,node2
b1,a1,a2
a1,b1,a2
node1,node3,node5,node6,node7
node-1,node-2
rack1-node01,rack1-node02
a1b2,a1b3
host1.ex,host2.ex
node[1-3],node4
node[1-3],node[5-6]
n[1-2],n[2-3]
1,2,3
a,b,c
node1,,node2
x[0-2]y
n9,n10,n010
gpu[001-003]
n[098-101]
node[01-3]
rack[1-2]-node[01-02]
n[1-3]x[1-2]
node[1,3,5-6]
node1,node1
node1 node2
host[1-2].example.com
node[3-1]
node[]
a[1-2]b[1-2]c[1-2]
n[1-3],n[2-4]
n[01-3],n4
n[8-10],n11
A1,a1,B1
n1,n01,n1
rack10-n1,rack9-n1,rack9-n0
n[1, 2]
n[+1-3]
n[1a-3]
n[1a]
n[1-]
n[01-1]
node[1
[abc
n1]
a[[1],b]
n[1],[2]
a[1]x,y]
n[[1]]
n[1]]
a[x]b[1]c[1-2]
a[1,x]b[1]c[1],z1
a[0-70000]b[1]c[1]
n1,[
n[1--3]
n[1,]
,,,
n[0-65535]
n[0-65536]
ROWS

if [[ $version == *" 22.05."* ]]; then
  cat "$scratch/generated" "$scratch/fuzzed" "$scratch/rows" > "$scratch/lists"
else
  note "not Slurm 22.05: the generated lists only"
  cp "$scratch/generated" "$scratch/lists"
fi
mapfile -t lists < "$scratch/lists"

# scontrol's answer in the front end's format (see hostlist_cli.cpp).
oracle() { # MODE LIST
  scontrol show "$1" "$2" > "$scratch/out" 2> "$scratch/err" || true
  if [ -s "$scratch/err" ]; then echo "(invalid)"; else cat "$scratch/out"; fi
  if [ "$1" = hostnames ]; then echo; fi
}

mismatches=0
for mode in hostlist hostlistsorted hostnames; do
  for list in "${lists[@]}"; do oracle "$mode" "$list"; done > "$scratch/scontrol.$mode"
  status=0
  "$cli" "$mode" "${lists[@]}" > "$scratch/condacuda.$mode" 2> /dev/null || status=$?
  want=0 # 1 when a list is one scontrol rejects
  if grep -qx '(invalid)' "$scratch/scontrol.$mode"; then want=1; fi
  [ "$status" = "$want" ] || fail "$mode: the front end exited $status, scontrol's answers say $want"
  cmp -s "$scratch/scontrol.$mode" "$scratch/condacuda.$mode" && continue
  before=$mismatches
  # Hostnames may hold an empty name (from "["), so the answers are found
  # again one list at a time rather than cut apart.
  for list in "${lists[@]}"; do
    want=$(oracle "$mode" "$list" | od -An -c)
    got=$("$cli" "$mode" "$list" 2> /dev/null | od -An -c) || true
    [ "$want" = "$got" ] && continue
    mismatches=$((mismatches + 1))
    if [ "$mismatches" -le 10 ]; then
      printf 'show %s [%s]\n  scontrol: %s\n  condacuda: %s\n' "$mode" "$list" "$(oracle "$mode" "$list")" \
        "$("$cli" "$mode" "$list" 2>&1)" >&2
    fi
  done
  [ "$mismatches" != "$before" ] || fail "show $mode: one run for all lists differs from one run each"
done
[ "$mismatches" = 0 ] || fail "$mismatches answers differ from scontrol's"
note "${#lists[@]} lists, 3 answers each, as scontrol gives them"
