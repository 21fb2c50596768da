# shellcheck shell=bash
# A real Slurm cluster on this one machine for the e2e tests of `condacuda
# fleet`: docs/slurm-test-cluster.md made a library. Sourced after lib.sh
# (it uses skip, fail, note and the prelude's cleanup):
#
#   source "$(dirname "$0")/lib.sh"
#   source "$(dirname "$0")/slurm_cluster.sh"
#   slurm_cluster_start "$scratch/slurm"      # or: ... "$scratch/slurm" 2
#   slurm_wait_jobs_done
#   timeout -k 5 60 srun -I -N3 --ntasks-per-node=1 -l CMD < /dev/null
#
# Functions
#   slurm_cluster_start DIR [NODES]  NODES (default 3) nodes node1..nodeN of one
#       partition `debug`, all state under DIR (made; chmod 755). Skips (exit
#       125) when not root or a program is missing (slurmctld slurmd srun
#       sbatch sinfo scontrol squeue scancel munged mungekey munge ss flock
#       setpriv).
#       Returns once every node is `idle`, or fails within
#       SLURM_START_TIMEOUT seconds (default 30) with the logs' tails.
#   slurm_cluster_stop  cancels the cluster's jobs, then stops every slurmd,
#       slurmctld and munged by pid (TERM, KILL after 10 s) and reaps each,
#       then SIGKILLs any slurmstepd or task of the cluster's jobs still there
#       (named on stderr; see _slurm_kill_orphans). Idempotent; tolerates
#       daemons already dead.
#   slurm_cluster_leftovers  prints "PID STATE COMMAND" of each live process
#       (not a zombie) of the cluster: its daemons (marked in their
#       environment), each slurmstepd (holds a file under DIR open) and task
#       (this SLURM_CONF in its environment, from srun's). Empty after
#       slurm_cluster_stop.
#   slurm_node_drain NODE REASON  scontrol update ... state=drain: sinfo's
#       `%N %T %E` gives "NODE drained REASON" at once.
#   slurm_node_resume NODE  state=resume, then waits until NODE is `idle`
#       again (it is `idle*` until the controller pings it, 0.5-1 s).
#   slurm_node_kill NODE     SIGKILL to NODE's slurmd by pid, reaped: a crash.
#       Until the controller notices (about 2 x SlurmdTimeout = 20 s) a job
#       may still be given NODE (see the doc).
#   slurm_node_restart NODE  starts NODE's slurmd again (after
#       slurm_node_kill) and waits until NODE is idle (ReturnToService=2).
#   slurm_wait_jobs_done  waits until squeue lists no job (at most 30 s, then
#       fails): a job stays `completing` a moment after its srun returned, and
#       an `srun -I` on its nodes then fails ("Requested nodes are busy"; seen
#       once with two clusters and a build running, not in 40 back-to-back
#       sruns on a quieter machine).
#   slurm_node_state NODE    NODE's state as sinfo's %T prints it (idle,
#       drained, down*, ...).
#   slurm_node_hide NODE PATH  (before slurm_cluster_start) NODE's slurmd, and
#       so every task on NODE, runs in a mount namespace of its own with an
#       empty tmpfs over PATH: a node that does not see that folder, as a node
#       without a site's shared file system mounted. Needs unshare(1) and
#       mount(8); skips without them.
#   slurm_node_prolog NODE LINES...  writes DIR/etc/taskprolog.d/NODE: the
#       TaskProlog sources it in each task started on NODE, so its `echo
#       "export NAME=value"` lines set that task's environment. The file is
#       read again for every task: rewrite or remove it at any time, no
#       `scontrol reconfigure`.
# Variables
#   SLURM_CONF (exported)  DIR/etc/slurm.conf: srun, sinfo, scontrol, squeue
#                          follow it
#   SLURM_DIR              DIR
#   SLURM_NODES            "node1 node2 node3" (NODES names)
#   SLURM_CTLD_PORT        slurmctld's port; node i's slurmd listens on
#                          SLURM_CTLD_PORT + i
#   SLURM_START_TIMEOUT    seconds to wait for idle nodes (read; default 30)
# Exported SLURM_*, SBATCH_*, SALLOC_*, SRUN_*, SQUEUE_* and SINFO_* variables
# of the caller (say the tests run inside a real Slurm job) are unset first
# (all but SLURM_START_TIMEOUT): srun would take them as its options or job.
#
# The EXIT trap. slurm_cluster_start turns the prelude's plain `cleanup` EXIT
# trap into `slurm_cluster_stop, then cleanup with the script's status`. A
# script with an EXIT trap of its own calls slurm_cluster_stop in it before
# `cleanup "$status"`:
#   trap 'status=$?; slurm_cluster_stop; umount ...; cleanup "$status"' EXIT
# and slurm_cluster_start fails when the trap has no slurm_cluster_stop.
# Call slurm_cluster_start in the script's own shell, not in a subshell, a
# pipe or $(...): the daemons are that shell's direct children (their pids are
# its to wait for) and get SIGKILL when it dies (setpriv --pdeathsig), so even
# a test killed by CTest's timeout (SIGKILL, no EXIT trap) leaves no daemon
# behind. The slurmstepd and tasks of a job running then do stay (a
# slurmstepd without its slurmd outlives its task too).
#
# srun in tests cannot be left to hang: `srun -N3` on a drained or dead node
# waits for it forever (`-t` is the job's time limit, not a wait), and srun
# waiting for resources may ignore SIGTERM once slurmctld is gone. So every
# srun is
#   slurm_wait_jobs_done; timeout -k 5 SECONDS srun -I ... < /dev/null
# -I (--immediate) fails at once, exit 1, when the nodes are not available
# (drained, down, or busy: hence slurm_wait_jobs_done first); timeout ends a
# stuck one (exit 124), -k follows with SIGKILL; stdin from /dev/null (srun
# forwards its stdin to task 0). `--immediate=N` is no fast failure: with a
# node drained it waits the N seconds, then says "Requested nodes are busy".
# timeout puts itself and srun in a process group of their own and signals
# that whole group (`timeout -s KILL` kills itself too: bash reports it
# "Killed"): never start the cluster under a `timeout` (the daemons would be
# in its group and die with it).
# No bare `wait` in a script with a cluster: the daemons are its background
# children, so `wait` without a pid waits for them, forever.

# The programs slurm_cluster_start needs.
_slurm_programs=(slurmctld slurmd srun sbatch sinfo scontrol squeue scancel munged mungekey munge ss flock setpriv)
# Concurrent runs (two copies of a test, or two tests) pick their ports one at
# a time under this lock, and hold it until their daemons listen on them.
_slurm_lock_file=/tmp/condacuda-slurm-cluster.lock
_slurm_started=
_slurm_exit_status=0
_slurm_lock_fd=
_slurm_munged_pid=
_slurm_ctld_pid=
declare -gA _slurm_slurmd_pid=()

slurm_cluster_start() {
  local dir=${1:?slurm_cluster_start DIR [NODES]} count=${2:-3} program i node
  [ "$(id -u)" = 0 ] || skip "the Slurm test cluster runs its daemons as root (SlurmUser=root)"
  for program in "${_slurm_programs[@]}"; do
    command -v "$program" > /dev/null || skip "$program is not installed (tests/install-deps.sh installs slurmctld slurmd slurm-client munge)"
  done
  [ -z "$_slurm_started" ] || fail "slurm_cluster_start: a cluster is running already ($SLURM_DIR)"
  case $count in '' | *[!0-9]* | 0) fail "slurm_cluster_start: NODES must be a positive number, not [$count]" ;; esac
  _slurm_check_trap

  local var
  while read -r var; do
    case $var in
      SLURM_START_TIMEOUT) ;;
      SLURM_* | SBATCH_* | SALLOC_* | SRUN_* | SQUEUE_* | SINFO_*) unset "$var" ;;
    esac
  done < <(compgen -e)

  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  SLURM_DIR=$dir
  SLURM_NODES=
  _slurm_slurmd_pid=()
  for ((i = 1; i <= count; i++)); do
    SLURM_NODES="$SLURM_NODES${SLURM_NODES:+ }node$i"
  done
  # munged refuses a socket folder that not everyone may enter ("Socket is
  # inaccessible"), and any folder above it: --force below makes that a
  # warning for the folders above DIR ($scratch is mktemp -d's 700; the
  # clients are root).
  mkdir -p "$dir"/{etc/taskprolog.d,munge,state,run,log}
  for node in $SLURM_NODES; do mkdir -p "$dir/spool/$node"; done
  chmod 755 "$dir" "$dir/munge"
  _slurm_started=1

  exec {_slurm_lock_fd}> "$_slurm_lock_file"
  flock -w 120 "$_slurm_lock_fd" || fail "slurm_cluster_start: no lock on $_slurm_lock_file in 120 s"
  SLURM_CTLD_PORT=$(_slurm_free_ports $((count + 1)))

  mungekey -c -k "$dir/munge/munge.key"
  _slurm_spawn munged munged -F --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/log/munged.log" --pid-file="$dir/run/munged.pid" --seed-file="$dir/munge/munge.seed"
  _slurm_munged_pid=$!
  for ((i = 0; i < 100; i++)); do
    munge -S "$dir/munge/munge.sock" -n > /dev/null 2>&1 && break
    _slurm_alive "$_slurm_munged_pid" || _slurm_start_failed "munged died"
    sleep 0.1
  done
  [ "$i" -lt 100 ] || _slurm_start_failed "munged does not answer on $dir/munge/munge.sock after 10 s"

  _slurm_write_conf "$dir" "$SLURM_CTLD_PORT" "$count"
  export SLURM_CONF=$dir/etc/slurm.conf
  _slurm_spawn slurmctld slurmctld -D -f "$SLURM_CONF"
  _slurm_ctld_pid=$!
  for node in $SLURM_NODES; do _slurm_start_slurmd "$node"; done
  # shellcheck disable=SC2086 # one word per node
  _slurm_wait_idle $SLURM_NODES
  exec {_slurm_lock_fd}>&-
  _slurm_lock_fd=
}

slurm_cluster_stop() {
  [ -n "$_slurm_started" ] || return 0
  local node ids end
  # Jobs still running (a test's srun ended by timeout): cancel them while the
  # controller is up, so that their slurmstepd and tasks end too (about 3 s;
  # slurmctld takes as long to stop while one is `completing`). At most 5 s:
  # a job on a node whose slurmd was killed stays `completing` until the
  # controller marks the node down (20 s); _slurm_kill_orphans ends its rest.
  if _slurm_alive "$_slurm_ctld_pid"; then
    ids=$(timeout -k 2 5 squeue -h -o %i 2> /dev/null) || ids=
    if [ -n "$ids" ]; then
      # shellcheck disable=SC2086 # one word per job
      timeout -k 2 5 scancel $ids 2> /dev/null || true
      end=$((SECONDS + 5))
      while [ "$SECONDS" -lt "$end" ]; do
        ids=$(timeout -k 2 5 squeue -h -o %i 2> /dev/null) || ids=
        [ -n "$ids" ] || break
        sleep 0.2
      done
    fi
  fi
  for node in "${!_slurm_slurmd_pid[@]}"; do
    _slurm_kill_wait TERM "${_slurm_slurmd_pid[$node]}"
  done
  _slurm_slurmd_pid=()
  _slurm_kill_wait TERM "$_slurm_ctld_pid"
  _slurm_ctld_pid=
  _slurm_kill_wait TERM "$_slurm_munged_pid"
  _slurm_munged_pid=
  _slurm_kill_orphans
  if [ -n "$_slurm_lock_fd" ]; then
    exec {_slurm_lock_fd}>&-
    _slurm_lock_fd=
  fi
  _slurm_started=
}

slurm_cluster_leftovers() {
  [ -n "${SLURM_DIR:-}" ] || return 0
  local pid line state
  # The daemons carry CONDACUDA_SLURM_CLUSTER=DIR, tasks SLURM_CONF (srun
  # passes its environment), and slurmstepd keeps its slurmd's log open (its
  # own environment is no proof: its process title overwrites most of it).
  # One grep and one find over all processes; their lists are made before
  # they start, so their own (which hold SLURM_CONF) are not in them.
  for pid in $( {
    grep -lszxF -e "CONDACUDA_SLURM_CLUSTER=$SLURM_DIR" -e "SLURM_CONF=$SLURM_DIR/etc/slurm.conf" /proc/[0-9]*/environ || true
    find /proc/[0-9]*/fd -maxdepth 1 -lname "$SLURM_DIR/*" 2> /dev/null || true
  } | cut -d/ -f3 | sort -un); do
    case $pid in "$$" | "$BASHPID") continue ;; esac
    { read -r line < "/proc/$pid/stat"; } 2> /dev/null || continue
    state=${line##*) }
    state=${state%% *}
    case $state in Z | X) continue ;; esac
    line=${line#* (}
    echo "$pid $state ${line%%) *}"
  done
}

slurm_node_drain() {
  local node=${1:?slurm_node_drain NODE REASON} reason=${2:?slurm_node_drain NODE REASON}
  scontrol update nodename="$node" state=drain reason="$reason"
}

slurm_node_resume() {
  local node=${1:?slurm_node_resume NODE}
  scontrol update nodename="$node" state=resume
  # The node is `idle*` (not responding) until the controller's next ping of
  # its slurmd (0.5-1 s here); jobs are not given it before.
  _slurm_wait_idle "$node"
}

slurm_node_kill() {
  local node=${1:?slurm_node_kill NODE}
  [ -n "${_slurm_slurmd_pid[$node]:-}" ] || fail "slurm_node_kill: no slurmd of $node is running"
  # (stderr: bash's own notice of a background job killed, "... Killed  setpriv ...")
  { _slurm_kill_wait KILL "${_slurm_slurmd_pid[$node]}"; } 2> /dev/null
  unset "_slurm_slurmd_pid[$node]"
}

slurm_node_restart() {
  local node=${1:?slurm_node_restart NODE}
  [ -n "$_slurm_started" ] || fail "slurm_node_restart: no cluster is running"
  [ -z "${_slurm_slurmd_pid[$node]:-}" ] || fail "slurm_node_restart: $node's slurmd runs already"
  local started
  started=$(grep -c 'slurmd started on' "$SLURM_DIR/log/slurmd-$node.out") || true
  _slurm_start_slurmd "$node"
  _slurm_wait_idle "$node"
  # Until the controller notices the dead slurmd the node stays idle: wait for
  # the new slurmd's own word that it runs (it listens by then).
  local i
  for ((i = 0; i < 10 * ${SLURM_START_TIMEOUT:-30}; i++)); do
    [ "$(grep -c 'slurmd started on' "$SLURM_DIR/log/slurmd-$node.out")" -le "$started" ] || return 0
    _slurm_alive "${_slurm_slurmd_pid[$node]}" || _slurm_start_failed "slurmd of $node died"
    sleep 0.1
  done
  _slurm_start_failed "the slurmd of $node restarted does not run after ${SLURM_START_TIMEOUT:-30} s"
}

slurm_wait_jobs_done() {
  local limit=30 start=$SECONDS jobs
  while :; do
    jobs=$(squeue -h -o '%i %T' 2> /dev/null) || jobs="(squeue failed)"
    [ -n "$jobs" ] || return 0
    [ $((SECONDS - start)) -lt "$limit" ] || fail "slurm_wait_jobs_done: jobs left after $limit s: $(tr '\n' ',' <<< "$jobs")"
    sleep 0.05
  done
}

slurm_node_state() {
  sinfo -h -n "${1:?slurm_node_state NODE}" -o %T
}

slurm_node_prolog() {
  local node=${1:?slurm_node_prolog NODE LINES...}
  shift
  printf '%s\n' "$@" > "$SLURM_DIR/etc/taskprolog.d/$node.tmp"
  mv -f "$SLURM_DIR/etc/taskprolog.d/$node.tmp" "$SLURM_DIR/etc/taskprolog.d/$node"
}

# --- internals ---

# The prelude's `trap cleanup EXIT` becomes stop-then-cleanup; a script's own
# trap must call slurm_cluster_stop itself.
_slurm_check_trap() {
  local current
  current=$(trap -p EXIT)
  case $current in
    "trap -- 'cleanup' EXIT")
      trap '_slurm_exit_status=$?; slurm_cluster_stop; cleanup "$_slurm_exit_status"' EXIT ;;
    *slurm_cluster_stop*) ;;
    *) fail "slurm_cluster_start: the EXIT trap [$current] does not call slurm_cluster_stop (see tests/e2e/slurm_cluster.sh)" ;;
  esac
}

# _slurm_free_ports COUNT: the first of COUNT consecutive ports, none of them
# a LISTEN socket now, from a random start in 17000..26999 (TIME-WAIT
# entries of an earlier run do not stop a bind).
_slurm_free_ports() {
  local count=$1 base port try listening
  listening=" $(ss -Hltn | awk '{ n = split($4, a, ":"); printf "%s ", a[n] }')"
  for ((try = 0; try < 100; try++)); do
    base=$((17000 + (RANDOM * 32768 + RANDOM) % (10000 - count)))
    for ((port = base; port < base + count; port++)); do
      case $listening in *" $port "*) continue 2 ;; esac
    done
    echo "$base"
    return 0
  done
  fail "no $count consecutive free ports in 17000..26999 after 100 tries"
}

# _slurm_spawn NAME COMMAND...: COMMAND in the background, a direct child of
# this shell (its pid is $!), stdout and stderr to DIR/log/NAME.out, SIGKILL
# when this shell dies, without the port lock's descriptor, marked in its
# environment (CONDACUDA_SLURM_CLUSTER=DIR) for slurm_cluster_leftovers.
_slurm_spawn() {
  local name=$1
  shift
  if [ -n "$_slurm_lock_fd" ]; then
    CONDACUDA_SLURM_CLUSTER=$SLURM_DIR setpriv --pdeathsig KILL "$@" \
      < /dev/null >> "$SLURM_DIR/log/$name.out" 2>&1 {_slurm_lock_fd}>&- &
  else
    CONDACUDA_SLURM_CLUSTER=$SLURM_DIR setpriv --pdeathsig KILL "$@" \
      < /dev/null >> "$SLURM_DIR/log/$name.out" 2>&1 &
  fi
}

declare -A _slurm_hidden=()
slurm_node_hide() {
  if ! command -v unshare > /dev/null || ! command -v mount > /dev/null; then skip "slurm_node_hide needs unshare and mount"; fi
  _slurm_hidden[${1:?slurm_node_hide NODE PATH}]=${2:?slurm_node_hide NODE PATH}
}

_slurm_start_slurmd() {
  local node=$1
  if [ -n "${_slurm_hidden[$node]:-}" ]; then
    # unshare execs in place (no --fork): $! stays slurmd's pid
    # shellcheck disable=SC2016 # expanded by that sh
    _slurm_spawn "slurmd-$node" unshare --mount --propagation private \
      sh -c 'mount -t tmpfs -o size=64k,mode=755 condacuda-hidden "$0" && exec "$@"' "${_slurm_hidden[$node]}" \
      slurmd -D -N "$node" -f "$SLURM_CONF"
  else
    _slurm_spawn "slurmd-$node" slurmd -D -N "$node" -f "$SLURM_CONF"
  fi
  _slurm_slurmd_pid[$node]=$!
}

# _slurm_wait_idle NODE...: until sinfo shows each NODE exactly `idle` (not
# `idle*`, not responding), at most SLURM_START_TIMEOUT seconds.
_slurm_wait_idle() {
  local limit=${SLURM_START_TIMEOUT:-30} start=$SECONDS out node want got pid listening
  want=$(printf '%s idle\n' "$@" | sort)
  while :; do
    out=$(sinfo -h -N -o '%N %T' 2> /dev/null) || out=
    got=$(for node in "$@"; do grep -x "$node idle" <<< "$out" || true; done | sort)
    if [ "$got" = "$want" ]; then
      listening=1
      for node in "$@"; do # and each slurmd listens
        [ -n "$(ss -Hltn "sport = :$((SLURM_CTLD_PORT + ${node#node}))")" ] || listening=
      done
      [ -z "$listening" ] || return 0
    fi
    _slurm_alive "$_slurm_ctld_pid" || _slurm_start_failed "slurmctld died"
    for node in "$@"; do
      pid=${_slurm_slurmd_pid[$node]:-}
      [ -z "$pid" ] || _slurm_alive "$pid" || _slurm_start_failed "slurmd of $node died"
    done
    [ $((SECONDS - start)) -lt "$limit" ] ||
      _slurm_start_failed "nodes not idle after $limit s; sinfo: $(tr '\n' ',' <<< "$out")"
    sleep 0.1
  done
}

# _slurm_start_failed WHAT: the tails of the daemons' stderr (-D: what their
# log files hold, and what they print before opening them) on stderr, the
# cluster stopped, fail.
_slurm_start_failed() {
  local log
  for log in "$SLURM_DIR"/log/*.out; do
    [ -s "$log" ] || continue
    echo "--- tail of $log" >&2
    tail -n 12 "$log" >&2
  done
  slurm_cluster_stop
  fail "Slurm test cluster in $SLURM_DIR: $1"
}

# _slurm_alive PID: PID is a process that has not exited (a zombie has).
_slurm_alive() {
  local line state
  [ -n "$1" ] || return 1
  { read -r line < "/proc/$1/stat"; } 2> /dev/null || return 1
  state=${line##*) }
  state=${state%% *}
  [ "$state" != Z ] && [ "$state" != X ]
}

# _slurm_kill_wait SIGNAL PID: SIGNAL to PID, SIGKILL if it still runs after
# 10 s, then reaped. Nothing for an empty or gone PID.
_slurm_kill_wait() {
  local signal=$1 pid=$2 i
  [ -n "$pid" ] || return 0
  kill -"$signal" "$pid" 2> /dev/null || true
  for ((i = 0; i < 100; i++)); do
    _slurm_alive "$pid" || break
    sleep 0.1
  done
  if _slurm_alive "$pid"; then
    echo "slurm_cluster: pid $pid outlived SIG$signal by 10 s: SIGKILL" >&2
    kill -KILL "$pid" 2> /dev/null || true
  fi
  wait "$pid" 2> /dev/null || true
}

# _slurm_kill_orphans: SIGKILL to what the cluster's jobs left once the daemons
# are gone (a job whose cancel did not reach its node, a slurmd killed): a
# slurmstepd without its slurmd ignores SIGTERM and stays even after its task
# ended; the tasks (SLURMD_NODENAME in their environment). Only processes
# that slurm_cluster_leftovers names.
_slurm_kill_orphans() {
  local pid state comm pids=() i
  while read -r pid state comm; do
    if grep -qz '^SLURMD_NODENAME=' "/proc/$pid/environ" 2> /dev/null || [ "$comm" = slurmstepd ]; then
      echo "slurm_cluster_stop: SIGKILL to pid $pid ($comm, state $state), left by the cluster's jobs" >&2
      kill -KILL "$pid" 2> /dev/null || true
      pids+=("$pid")
    fi
  done < <(slurm_cluster_leftovers)
  for pid in "${pids[@]}"; do
    for ((i = 0; i < 50; i++)); do
      _slurm_alive "$pid" || break
      sleep 0.1
    done
  done
}

# _slurm_write_conf DIR BASE NODES: docs/slurm-test-cluster.md's slurm.conf,
# and the TaskProlog that sources DIR/etc/taskprolog.d/$SLURMD_NODENAME.
_slurm_write_conf() {
  local dir=$1 base=$2 count=$3 i
  {
    cat << EOF
ClusterName=condacuda-test
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdSpoolDir=$dir/spool/%n
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=10
MessageTimeout=5
KillWait=2
TaskProlog=$dir/etc/taskprolog.sh
EOF
    for ((i = 1; i <= count; i++)); do
      echo "NodeName=node$i NodeHostname=localhost Port=$((base + i)) CPUs=1 State=UNKNOWN"
    done
    echo "PartitionName=debug Nodes=node[1-$count] Default=YES MaxTime=INFINITE State=UP"
  } > "$dir/etc/slurm.conf"
  cat > "$dir/etc/taskprolog.sh" << EOF
#!/bin/sh
# TaskProlog of the condacuda test cluster, run by slurmstepd before each task:
# each "export NAME=value" line on stdout sets the task's environment.
# $dir/etc/taskprolog.d/NODE is sourced for the tasks on NODE.
f=$dir/etc/taskprolog.d/\$SLURMD_NODENAME
if [ -f "\$f" ]; then . "\$f"; fi
EOF
  chmod 755 "$dir/etc/taskprolog.sh"
}
