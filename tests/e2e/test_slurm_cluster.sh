#!/usr/bin/env bash
# The Slurm test cluster of tests/e2e/slurm_cluster.sh, which the tests of
# `condacuda fleet` stand on: three nodes idle, one task per node, a TaskProlog
# file that sets node2's LD_LIBRARY_PATH only (read again for every task), a
# drained node refused at once, a killed slurmd restarted, a job still running
# cancelled by the stop, and no process left after it. It records what srun
# prints that fleet will parse: -l's labels, a failed exec's stderr, the exit
# statuses.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_cluster.sh"

# Every srun: no job left (its nodes may be still completing), -I (fail, not
# wait, when nodes are unavailable), a timeout, no stdin.
srun_() {
  slurm_wait_jobs_done
  timeout -k 5 30 srun -I "$@" < /dev/null
}
ms() { echo $(($(date +%s%N) / 1000000)); }

t0=$(ms)
slurm_cluster_start "$scratch/slurm"
note "cluster up in $(($(ms) - t0)) ms, slurmctld on port $SLURM_CTLD_PORT"
expect_eq "$SLURM_NODES" "node1 node2 node3" "SLURM_NODES"
expect_eq "$SLURM_DIR" "$(cd "$scratch/slurm" && pwd -P)" "SLURM_DIR"
expect_eq "$(printenv SLURM_CONF)" "$SLURM_DIR/etc/slurm.conf" "exported SLURM_CONF"
nodes_state() { sinfo -h -N -o '%N %T %E'; }
expect_eq "$(nodes_state)" $'node1 idle none\nnode2 idle none\nnode3 idle none' "sinfo after the start"

# One task per node; -l labels each line with its task id, "0: " (the width
# of the largest task id: " 0: " .. "11: " for 12 tasks, 4 per node with -O).
t=$(ms)
out=$(srun_ -N3 --ntasks-per-node=1 -l printenv SLURMD_NODENAME | sort)
note "srun -N3 in $(($(ms) - t)) ms"
expect_eq "$out" $'0: node1\n1: node2\n2: node3' "srun -N3 --ntasks-per-node=1 -l printenv SLURMD_NODENAME"
out=$(srun_ -N3 -n12 -O -l printenv SLURMD_NODENAME | sort -n)
expect_eq "$(head -n 1 <<< "$out"),$(sed -n 10p <<< "$out"),$(tail -n 1 <<< "$out")" " 0: node1, 9: node3,11: node3" \
  "labels of 12 tasks (srun -N3 -n12 -O -l)"

# The TaskProlog: DIR/etc/taskprolog.d/NODE, read for each task, no reconfigure.
ld_paths() { LD_LIBRARY_PATH=/caller/lib srun_ -N3 --ntasks-per-node=1 -l printenv LD_LIBRARY_PATH | sort; }
expect_eq "$(ld_paths)" $'0: /caller/lib\n1: /caller/lib\n2: /caller/lib' "LD_LIBRARY_PATH without a prolog file"
slurm_node_prolog node2 'echo "export LD_LIBRARY_PATH=/opt/site/cuda-12.1/lib64"'
expect_eq "$(ld_paths)" $'0: /caller/lib\n1: /opt/site/cuda-12.1/lib64\n2: /caller/lib' "LD_LIBRARY_PATH with node2's prolog file"
slurm_node_prolog node2 'echo "export LD_LIBRARY_PATH=/opt/site/cuda-12.4/lib64"'
expect_eq "$(ld_paths)" $'0: /caller/lib\n1: /opt/site/cuda-12.4/lib64\n2: /caller/lib' "LD_LIBRARY_PATH after node2's prolog file changed"
rm "$SLURM_DIR/etc/taskprolog.d/node2"
expect_eq "$(ld_paths)" $'0: /caller/lib\n1: /caller/lib\n2: /caller/lib' "LD_LIBRARY_PATH after node2's prolog file went"

# A failed exec: slurmstepd's error (labelled with -l, like the task's own
# lines), srun's line per task, and the exit status is the errno (ENOENT 2,
# EACCES 13), as a task that exits 2 or 13 would give.
status=0
srun_ -N1 -w node1 /nonexistent/condacuda > "$scratch/out" 2> "$scratch/err" || status=$?
expect_eq "$status" 2 "exit status of srun of a missing executable"
expect_eq "$(cat "$scratch/out")" "" "stdout of srun of a missing executable"
expect_eq "$(sort "$scratch/err")" "slurmstepd-node1: error: execve(): /nonexistent/condacuda: No such file or directory
srun: error: node1: task 0: Exited with exit code 2" "stderr of srun of a missing executable"
note "srun -N1 -w node1 /nonexistent/condacuda: exit $status, stderr:"
sed 's/^/#   /' "$scratch/err"
status=0
srun_ -N3 -l /nonexistent/condacuda > "$scratch/out" 2> "$scratch/err" || status=$?
expect_eq "$status" 2 "exit status of srun -N3 -l of a missing executable"
expect_eq "$(grep -c '^[0-2]: slurmstepd-node[1-3]: error: execve(): /nonexistent/condacuda: No such file or directory$' "$scratch/err")" 3 \
  "labelled execve errors of srun -N3 -l (stderr: $(cat "$scratch/err"))"
touch "$scratch/not-executable"
status=0
srun_ -N1 -w node1 "$scratch/not-executable" 2> "$scratch/err" || status=$?
expect_eq "$status" 13 "exit status of srun of a file that is not executable"
expect_eq "$(sort "$scratch/err")" "slurmstepd-node1: error: execve(): $scratch/not-executable: Permission denied
srun: error: node1: task 0: Exited with exit code 13" "stderr of srun of a file that is not executable"
# Tasks' own exit statuses: srun exits with the largest, one line per failed task.
status=0
srun_ -N3 -l sh -c 'case $SLURMD_NODENAME in node2) exit 3 ;; node3) exit 1 ;; esac' 2> "$scratch/err" || status=$?
expect_eq "$status" 3 "exit status of srun with tasks exiting 0, 3 and 1"
expect_eq "$(sort "$scratch/err")" "srun: error: node2: task 1: Exited with exit code 3
srun: error: node3: task 2: Exited with exit code 1" "stderr of srun with tasks exiting 0, 3 and 1"
status=0
srun_ -N1 -w node1 sh -c 'kill -KILL $$' 2> "$scratch/err" || status=$?
expect_eq "$status" 137 "exit status of srun with a task killed by SIGKILL"
expect_eq "$(sed 's/StepId=[0-9]*\./StepId=J./' "$scratch/err" | sort)" "srun: Force Terminated StepId=J.0
srun: error: node1: task 0: Killed" "stderr of srun with a task killed by SIGKILL"

# A drained node: srun -I refuses a job that needs it at once; the others run.
slurm_node_drain node3 "condacuda test"
expect_eq "$(nodes_state)" $'node1 idle none\nnode2 idle none\nnode3 drained condacuda test' "sinfo after draining node3"
expect_eq "$(slurm_node_state node3)" drained "slurm_node_state node3"
t=$(ms)
status=0
srun_ -N3 true 2> "$scratch/err" || status=$?
elapsed=$(($(ms) - t))
expect_eq "$status" 1 "exit status of srun -N3 -I with node3 drained"
expect_eq "$(grep -c 'Required node not available (down, drained or reserved)' "$scratch/err")" 1 \
  "srun -N3 -I's stderr with node3 drained: $(cat "$scratch/err")"
[ "$elapsed" -lt 5000 ] || fail "srun -N3 -I took $elapsed ms to fail with node3 drained"
note "srun -N3 -I with node3 drained: exit $status in $elapsed ms, stderr:"
sed 's/^/#   /' "$scratch/err"
out=$(srun_ -N2 -w 'node[1-2]' -l printenv SLURMD_NODENAME | sort)
expect_eq "$out" $'0: node1\n1: node2' "srun -N2 -w node[1-2] with node3 drained"
slurm_node_resume node3
expect_eq "$(nodes_state)" $'node1 idle none\nnode2 idle none\nnode3 idle none' "sinfo after resuming node3"

# A killed slurmd, restarted: the node runs tasks again.
slurm_node_kill node3
[ -z "$(ss -Hltn "sport = :$((SLURM_CTLD_PORT + 3))")" ] || fail "node3's port still listens after slurm_node_kill"
slurm_node_restart node3
out=$(srun_ -N3 --ntasks-per-node=1 -l printenv SLURMD_NODENAME | sort)
expect_eq "$out" $'0: node1\n1: node2\n2: node3' "srun -N3 after node3's slurmd was restarted"

# A job still running (a batch job, no srun waits for it): the stop cancels it.
slurm_wait_jobs_done
sbatch -N3 -o /dev/null --wrap 'sleep 300' > /dev/null
for ((i = 0; i < 100; i++)); do
  [ "$(squeue -h -o %T)" != RUNNING ] || break
  sleep 0.1
done
expect_eq "$(squeue -h -o '%T %N')" "RUNNING node[1-3]" "squeue after sbatch"
for ((i = 0; i < 100; i++)); do # its slurmstepd and task, found by slurm_cluster_leftovers
  job=$(slurm_cluster_leftovers | awk '$3 ~ /^(slurmstepd|sleep)$/ { print $3 }' | sort -u | tr '\n' ' ')
  [ "$job" != "sleep slurmstepd " ] || break
  sleep 0.1
done
expect_eq "$job" "sleep slurmstepd " "the batch job's processes slurm_cluster_leftovers lists"

# The stop leaves no process of the cluster (zombies of slurmstepd under
# PID 1, gone within seconds, do not count) and no port listening; it had
# nothing to SIGKILL (it names what it does on stderr).
running=$(slurm_cluster_leftovers | awk '$3 ~ /^(munged|slurmctld|slurmd|slurmscriptd)$/ { print $3 }' | sort | tr '\n' ' ')
expect_eq "$running" "munged slurmctld slurmd slurmd slurmd slurmscriptd " "the daemons slurm_cluster_leftovers lists while the cluster runs"
t=$(ms)
slurm_cluster_stop 2> "$scratch/stop.err"
note "cluster stopped in $(($(ms) - t)) ms"
expect_eq "$(cat "$scratch/stop.err")" "" "slurm_cluster_stop's stderr"
slurm_cluster_stop
left=$(slurm_cluster_leftovers)
[ -z "$left" ] || fail "processes left after slurm_cluster_stop: $left"
for ((port = SLURM_CTLD_PORT; port <= SLURM_CTLD_PORT + 3; port++)); do
  [ -z "$(ss -Hltn "sport = :$port")" ] || fail "port $port still listens after slurm_cluster_stop"
done
note "whole test in $(($(ms) - t0)) ms"
