#!/usr/bin/env bash
# condacuda fleet over the CUDA 13 wheels (an env laid out from
# /usr/local/cuda) on a real three-node Slurm cluster, the nodes told apart
# the way a site without /proc/driver/nvidia in its jobs (containers,
# gVisor) declares them: each node's TaskProlog exports CONDACUDA_GPU and
# CONDACUDA_DRIVER (README "Node facts"). node1 an H100 on driver 580, node2
# a V100 (CUDA 13 builds no sm_70: no-kernel-image), node3 an H100 on driver
# 535 (CUDA 13 needs branch 580: driver-too-old): three classes, named by
# hostlist, each with the fact that tells it apart. --check runs the GPU
# check on the node too: exit 3 where no driver loads, as check says.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_cluster.sh"

make_cuda13_env "$scratch/cu13" || skip "no /usr/local/cuda/dist-info on this machine"
unset LD_LIBRARY_PATH CONDACUDA_GPU CONDACUDA_DRIVER
slurm_cluster_start "$scratch/slurm" 3
slurm_node_prolog node1 "echo export CONDACUDA_GPU=H100" "echo export CONDACUDA_DRIVER=580.65.06"
slurm_node_prolog node2 "echo export CONDACUDA_GPU=V100" "echo export CONDACUDA_DRIVER=580.65.06"
slurm_node_prolog node3 "echo export CONDACUDA_GPU=H100" "echo export CONDACUDA_DRIVER=535.104.05"

fleet() {
  slurm_wait_jobs_done
  timeout -k 5 300 "$CONDACUDA" fleet -p "$scratch/cu13" "$@" < /dev/null
}

expect_status 1 fleet --json > "$scratch/fleet.json"
expect_eq "$(json "$scratch/fleet.json" '"\n".join("%s %d %s" % (c["hostlist"], c["exit_code"], c["verdict"]) for c in j["classes"])')" \
  "node2 1 fails: no-kernel-image
node3 1 fails: driver-too-old
node1 0 loads, 1 warning" "three classes"
expect_eq "$(json "$scratch/fleet.json" 'j["differing"]')" "['driver', 'gpus']" "what tells them apart"
expect_eq "$(json "$scratch/fleet.json" '[c["distinct"]["gpus"] for c in j["classes"]]')" \
  "['V100 (sm_70) (CONDACUDA_GPU)', 'H100 (sm_90) (CONDACUDA_GPU)', 'H100 (sm_90) (CONDACUDA_GPU)']" "the GPUs and where they came from"
expect_eq "$(json "$scratch/fleet.json" '[c["distinct"]["driver"] for c in j["classes"]]')" \
  "['580 (580.65.06, CONDACUDA_DRIVER)', '535 (535.104.05, CONDACUDA_DRIVER)', '580 (580.65.06, CONDACUDA_DRIVER)']" "the drivers"
expect_eq "$(json "$scratch/fleet.json" '[f["title"] for f in j["classes"][0]["findings"] if f["code"] == "no-kernel-image"][0]')" \
  "libcublas.so.13 has no kernel for V100 (sm_70)" "node2's first finding"
expect_eq "$(json "$scratch/fleet.json" '[f["title"] for f in j["classes"][1]["findings"] if f["severity"] == "error"]')" \
  "['NVIDIA driver 535.104.05 is older than CUDA 13.x needs (branch >= 580)']" "node3's finding"
expect_eq "$(json "$scratch/fleet.json" '[n["doctor"]["node"]["gpus_source"] for n in j["nodes"]]')" \
  "['CONDACUDA_GPU', 'CONDACUDA_GPU', 'CONDACUDA_GPU']" "each node's declaration, in its document"

note "the text names the classes, not the nodes"
expect_status 1 fleet --color never > "$scratch/fleet.txt"
layout_ok fleet "$scratch/fleet.txt"
grep -Eq "^  node2 +1 +fails: no-kernel-image +580 \(580.65.06, CONDACUDA_DRIVER\) +V100 \(sm_70\) \(CONDACUDA_GPU\)\$" "$scratch/fleet.txt" ||
  { cat "$scratch/fleet.txt"; fail "node2's row"; }
grep -q "\.\.\. 9 more (--json)" "$scratch/fleet.txt" || { cat "$scratch/fleet.txt"; fail "node2's findings are not cut"; }

note "--check: the GPU check runs there too; without a driver it says so (exit 3)"
if [ -e /proc/driver/nvidia/version ]; then
  note "this machine has an NVIDIA driver: the check's verdict is the GPU's, not asserted here"
else
  expect_status 3 fleet --nodes node1 --check --json > "$scratch/check.json"
  expect_eq "$(json "$scratch/check.json" '[(c["hostlist"], c["verdict"], c["check"]["outcome"]) for c in j["classes"]]')" \
    "[('node1', 'loads, 1 warning; check no-gpu', 'no-gpu')]" "the check's verdict on node1"
fi
note "CUDA 13 on a fleet of declared GPUs and drivers: a class each"
