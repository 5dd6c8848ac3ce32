# Slurm part of the test bed, sourced by testbed.sh (uses its STATE, RUN, LOGS, log, die, pid_alive, port_open,
# no_inherited_fds, wait_for, signal_ours, wait_gone, PACKAGES, SSH_USER, POD_USER). A real two-node Slurm from
# Debian (slurm-wlm 22.05 + munge), loopback only, with the test bed's sshd as its login node:
# - munged with its own key and socket, slurmctld and a slurmd per node, all root, all under <state>/slurm and <state>/run;
# - one node (this machine, `hostname -s`, NodeAddr 127.0.0.1) with 2 CPUs and two fake GPUs (`mknod` character
#   devices: gres needs device files, and /dev/null's numbers make them harmless), partition `debug`;
# - a second node on this machine too (`<hostname>-b`, a slurmd of its own on its own port), alone in partition `second`:
#   the Slurm files that take a whole node (both GPUs, both CPUs, the node DOWN) run on either node, so `npm test` runs
#   two such chains side by side (scripts/test-lanes.mjs; issue 35). Tests pick it with AGENTSWARM_TEST_SLURM_NODE=second;
# - /etc/slurm/slurm.conf, a symlink to our slurm.conf, so the login user's commands find it (see slurm_link_conf).
# Slurm is one per machine (fixed ports, /etc/slurm): a second test bed reuses the running one and never stops it.
# Facts, the working configuration and every fix it needs: /work/shared/reference/podman-slurm-facts.md, Slurm part.

PACKAGES+=(slurm-wlm munge)
SLURM_NODE=$(hostname -s)
SLURM_PARTITION=debug
# The second node: the same machine under another name (NodeAddr 127.0.0.1, so the name need not resolve).
SLURM_NODE2=$SLURM_NODE-b
SLURM_PARTITION2=second
SLURM_GPUS=2
# Slurm's registered defaults; `up` stops with a clear error when another process holds them.
SLURM_CTLD_PORT=6817
SLURM_D_PORT=6818
SLURM_D_PORT2=6819
# Debian's default path: every Slurm command reads it when SLURM_CONF is unset.
SLURM_SYSCONF=/etc/slurm/slurm.conf
# This test bed's Slurm folder, or the one of the test bed whose Slurm runs (then used read-only).
SLURM_DIR=$STATE/slurm
SLURM_STATE='' SLURM_VERSION=''
MUNGED=/usr/sbin/munged

slurm_conf() { echo "$SLURM_DIR/slurm.conf"; }
munge_socket() { echo "$SLURM_DIR/munge/munge.socket.2"; }
# The binaries behind Debian's alternatives links (/usr/sbin/slurmctld -> slurmctld-wlm): what /proc/<pid>/exe shows.
slurm_exe() { readlink -f "/usr/sbin/$1"; }
slurm_do() { SLURM_CONF=$(slurm_conf) timeout 10 "$@"; }

munge_ping() { [[ -S $(munge_socket) ]] && munge -n -S "$(munge_socket)" 2>/dev/null | unmunge -S "$(munge_socket)" >/dev/null 2>&1; }
slurmctld_ping() { [[ $(slurm_do scontrol ping 2>/dev/null) == *'is UP'* ]]; }
# The nodes' states as sinfo prints them, one word a node ("idle idle"): idle, mix, alloc; a trailing `*` means that
# node's slurmd does not answer.
slurm_nodes() { echo "$SLURM_NODE${SLURM_NODE2:+,$SLURM_NODE2}"; }
slurm_node_state() { slurm_do sinfo -h -N -n "$(slurm_nodes)" -o '%t' 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
# Whether every node's state is one of the words given (a node sinfo does not list fails it).
slurm_nodes_in() { # slurm_nodes_in <state>...
  local states word
  states=$(slurm_node_state)
  [[ $(wc -w <<<"$states") == "$(slurm_nodes | tr ',' ' ' | wc -w)" ]] || return 1
  for word in $states; do [[ " $* " == *" $word "* ]] || return 1; done
}
slurm_node_idle() { slurm_nodes_in idle; }
# Up and usable, whatever the jobs on them: a reused Slurm may be running the tests' jobs.
slurm_ready() { slurmctld_ping && slurm_nodes_in idle mix alloc comp; }
# The slurmd of each node: its PID file's name under $RUN (SlurmdPidFile=$RUN/slurmd-%n.pid).
slurmd_pid_names() { echo "slurmd-$SLURM_NODE${SLURM_NODE2:+ slurmd-$SLURM_NODE2}"; }
slurmds_alive() {
  local name
  for name in $(slurmd_pid_names); do pid_alive "$RUN/$name.pid" "$(slurm_exe slurmd)" || return 1; done
}

write_slurm_conf() { # write_slurm_conf <file>
  local d=$SLURM_DIR
  cat >"$1" <<EOF
# Written by test/testbed/testbed.sh (slurm.sh): a two-node Slurm on loopback for the tests (both nodes this machine).
ClusterName=testbed
SlurmctldHost=$SLURM_NODE(127.0.0.1)
SlurmctldPort=$SLURM_CTLD_PORT
SlurmdPort=$SLURM_D_PORT
# Bind 127.0.0.1 (what the node name resolves to), not every interface: the test bed's network rule.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$d/state
# %n: each node's slurmd (two on this machine) its own spool, PID file and log.
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
GresTypes=gpu
KillWait=5
MinJobAge=60
NodeName=$SLURM_NODE NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 Gres=gpu:fake:$SLURM_GPUS State=UNKNOWN
NodeName=$SLURM_NODE2 NodeHostname=$SLURM_NODE NodeAddr=127.0.0.1 Port=$SLURM_D_PORT2 CPUs=2 RealMemory=2000 Gres=gpu:fake:$SLURM_GPUS State=UNKNOWN
PartitionName=$SLURM_PARTITION Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP
PartitionName=$SLURM_PARTITION2 Nodes=$SLURM_NODE2 MaxTime=INFINITE State=UP
EOF
}

# Two fake GPUs a node: Slurm's gres wants device files (plain files are rejected, a count-only gres makes the node INVAL);
# c 1 3 is /dev/null's device number, so a job that opens one reads nothing and writes nowhere.
make_fake_gpus() {
  local i dev node
  : >"$SLURM_DIR/gres.conf.new"
  for node in "$SLURM_NODE" "$SLURM_NODE2"; do
    mkdir -p "$SLURM_DIR/fakegpu/$node"
    for ((i = 0; i < SLURM_GPUS; i++)); do
      dev=$SLURM_DIR/fakegpu/$node/nvidia$i
      [[ -c $dev ]] || { rm -f "$dev"; mknod -m 666 "$dev" c 1 3; }
    done
    echo "NodeName=$node Name=gpu Type=fake File=$SLURM_DIR/fakegpu/$node/nvidia[0-$((SLURM_GPUS - 1))]" >>"$SLURM_DIR/gres.conf.new"
  done
  mv "$SLURM_DIR/gres.conf.new" "$SLURM_DIR/gres.conf"
}

start_munged() {
  local m=$SLURM_DIR/munge
  if pid_alive "$RUN/munged.pid" "$MUNGED" && munge_ping; then return 0; fi
  pid_alive "$RUN/munged.pid" "$MUNGED" && die "our munged (pid $(<"$RUN/munged.pid")) runs but does not answer" "$LOGS/munged.log"
  mkdir -p "$m"
  # Clients (every job's user) connect to the socket: munged refuses a folder others cannot enter.
  chmod 755 "$m"
  [[ -s $m/munge.key ]] || mungekey --create --keyfile="$m/munge.key" >>"$LOG" 2>&1
  # munged insists on a key only its own user (root: SlurmUser=root) can read.
  chown root:root "$m/munge.key"
  chmod 400 "$m/munge.key"
  rm -f "$m/munge.socket.2" "$m/munge.socket.2.lock"
  log "starting munged on $m/munge.socket.2"
  no_inherited_fds setsid "$MUNGED" --foreground --key-file="$m/munge.key" --socket="$m/munge.socket.2" \
    --pid-file="$m/munged.pid" --log-file="$LOGS/munged.log" --seed-file="$m/munged.seed" \
    >>"$LOGS/munged.log" 2>&1 </dev/null 9>&- &
  echo $! >"$RUN/munged.pid"
  wait_for 15 munge_ping "munged on $m/munge.socket.2" "$LOGS/munged.log"
}

start_slurm_daemon() { # start_slurm_daemon slurmctld|slurmd <its PID file's name under $RUN> <port> <args…>
  local name=$1 pid_name=$2 port=$3 exe
  shift 3
  exe=$(slurm_exe "$name")
  pid_alive "$RUN/$pid_name.pid" "$exe" && return 0
  port_open "$port" && die "127.0.0.1:$port ($pid_name's port) is already taken by a process this script did not start"
  log "starting $pid_name"
  rm -f "$RUN/$pid_name.pid"
  # By its own name, /usr/sbin/<name>, not the alternative it links to: Slurm decides from argv[0] which daemon it
  # is, and as `slurmctld-wlm` the controller dropped the node's Gres (the node showed Gres=(null)).
  # Not in the foreground (-D copies every line of the LogFile to stderr): the daemon forks, writes its PID file
  # ($RUN/<pid_name>.pid, from slurm.conf) and logs to its LogFile; stderr catches what fails before it forks.
  no_inherited_fds setsid env SLURM_CONF="$(slurm_conf)" "/usr/sbin/$name" -f "$(slurm_conf)" "$@" \
    >>"$LOGS/$pid_name.log" 2>&1 </dev/null 9>&- &
  slurm_pid_ok() { pid_alive "$RUN/$pid_name.pid" "$exe"; }
  wait_for 30 slurm_pid_ok "$pid_name (its PID file)" "$LOGS/$pid_name.log"
}

# The login user's commands need the configuration too, in NON-interactive SSH sessions (`ssh host sbatch …`, the
# app's exec channels), where sshd (UsePAM no) reads no profile. /etc/slurm/slurm.conf is where Debian's commands look
# when SLURM_CONF is unset, as on a real login node: no environment is needed, for every user and every session
# kind. (PermitUserEnvironment + ~/.ssh/environment would work only for the users and sshd we configure, and hide
# from the tests what a real cluster does.) Debian ships no slurm.conf and nothing else here reads the file: `up`
# refuses to replace a real file; it only (re)points its own symlink, and `down` removes it.
slurm_link_conf() {
  local target
  if [[ -e $SLURM_SYSCONF && ! -L $SLURM_SYSCONF ]]; then
    die "$SLURM_SYSCONF exists and is not the test bed's symlink: this machine has its own Slurm configuration"
  fi
  target=$(readlink "$SLURM_SYSCONF" 2>/dev/null || true)
  [[ $target == "$(slurm_conf)" ]] && return 0
  mkdir -p "$(dirname "$SLURM_SYSCONF")"
  ln -sfn "$(slurm_conf)" "$SLURM_SYSCONF"
  log "linked $SLURM_SYSCONF -> $(slurm_conf)${target:+ (was -> $target)}"
}

# The test bed whose Slurm answers through /etc/slurm/slurm.conf: <its state>/slurm/slurm.conf is the link's target.
slurm_owner() {
  local target dir
  target=$(readlink "$SLURM_SYSCONF" 2>/dev/null) || return 1
  [[ $target == */slurm/slurm.conf && -f $target ]] || return 1
  dir=$(dirname "$(dirname "$target")")
  [[ -f $dir/testbed.json ]] && echo "$dir"
}

# Values of a test bed's slurm.conf (ours, or the owner's when reused): `slurm_conf_value SlurmdPort`.
slurm_conf_value() { awk -F= -v k="$1" '$1 == k { sub(/^[^=]*=/, ""); print; exit }' "$(slurm_conf)"; }

start_slurm() { # after start_sshd (the login user)
  local owner ctld d_exe started=0
  ctld=$(slurm_exe slurmctld) d_exe=$(slurm_exe slurmd)
  # Another test bed's Slurm: use it as it is (its conf, ports, node), change nothing.
  if ! pid_alive "$RUN/slurmctld.pid" "$ctld" && owner=$(slurm_owner) && [[ $owner != "$STATE" ]]; then
    SLURM_DIR=$owner/slurm
    if slurm_ready; then
      SLURM_CTLD_PORT=$(slurm_conf_value SlurmctldPort) SLURM_D_PORT=$(slurm_conf_value SlurmdPort)
      SLURM_NODE=$(slurm_do sinfo -h -p "$SLURM_PARTITION" -o '%N')
      # An older test bed's Slurm has no second node: the files that would use it say so (testbed.ts).
      SLURM_NODE2=$(slurm_do sinfo -h -p "$SLURM_PARTITION2" -o '%N' 2>/dev/null)
      SLURM_GPUS=$(sed -n 's/^NodeName=.* Gres=gpu:fake:\([0-9]*\).*/\1/p' "$(slurm_conf)")
      log "Slurm answers with the configuration of the test bed in $owner: reusing it"
      SLURM_STATE=foreign
      slurm_version
      return 0
    fi
    log "$SLURM_SYSCONF points to the test bed in $owner, whose Slurm does not answer: starting our own"
    SLURM_DIR=$STATE/slurm
  fi
  mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool/$SLURM_NODE" "$SLURM_DIR/spool/$SLURM_NODE2"
  chmod 755 "$SLURM_DIR"
  make_fake_gpus
  write_slurm_conf "$(slurm_conf).new"
  if [[ -f $(slurm_conf) ]] && ! cmp -s "$(slurm_conf).new" "$(slurm_conf)"; then
    # A changed configuration (a newer slurm.sh): our daemons restart with it; their state (jobs) is kept.
    log "slurm.conf changed: restarting our slurmd and slurmctld"
    stop_slurm_daemons
  fi
  mv "$(slurm_conf).new" "$(slurm_conf)"
  chmod 644 "$(slurm_conf)" "$SLURM_DIR/gres.conf"
  pid_alive "$RUN/munged.pid" "$MUNGED" && pid_alive "$RUN/slurmctld.pid" "$ctld" && slurmds_alive || started=1
  start_munged
  start_slurm_daemon slurmctld slurmctld "$SLURM_CTLD_PORT" -i
  wait_for 30 slurmctld_ping "slurmctld on 127.0.0.1:$SLURM_CTLD_PORT" "$LOGS/slurmctld.log"
  start_slurm_daemon slurmd "slurmd-$SLURM_NODE" "$SLURM_D_PORT" -N "$SLURM_NODE"
  start_slurm_daemon slurmd "slurmd-$SLURM_NODE2" "$SLURM_D_PORT2" -N "$SLURM_NODE2"
  slurm_link_conf
  if ((started)); then
    wait_for 60 slurm_node_idle "Slurm nodes $(slurm_nodes) (idle in sinfo)" "$LOGS/slurmd-$SLURM_NODE2.log"
    SLURM_STATE=started
  else
    wait_for 30 slurm_ready "Slurm nodes $(slurm_nodes)" "$LOGS/slurmd-$SLURM_NODE.log"
    SLURM_STATE=reused
  fi
  slurm_version
}

slurm_version() {
  SLURM_VERSION=$(slurm_do sinfo --version | awk '{ print $2 }')
  [[ $SLURM_VERSION =~ ^[0-9]+\.[0-9]+ ]] || die "sinfo --version said '$SLURM_VERSION'"
}

# testbed.json's `slurm` object (values without quotes or backslashes, so printf is enough).
slurm_json() {
  local bin
  bin=$(dirname "$(command -v sbatch)")
  local second=''
  [[ -n $SLURM_NODE2 ]] && printf -v second ',"second":{"node":"%s","partition":"%s","slurmdPort":%d}' "$SLURM_NODE2" "$SLURM_PARTITION2" "$SLURM_D_PORT2"
  printf '{"version":"%s","conf":"%s","node":"%s","partition":"%s","gpusPerNode":%d,"ctldPort":%d,"slurmdPort":%d,"loginUser":"%s","bin":"%s"%s}' \
    "$SLURM_VERSION" "$SLURM_SYSCONF" "$SLURM_NODE" "$SLURM_PARTITION" "$SLURM_GPUS" "$SLURM_CTLD_PORT" "$SLURM_D_PORT" "$SSH_USER" "$bin" "$second"
}

stop_slurm_daemons() { # the slurmds first: they report their jobs' ends to slurmctld
  local pid name
  # slurmd.pid: a test bed from before the second node (SlurmdPidFile=$RUN/slurmd.pid).
  for name in slurmd $(slurmd_pid_names); do
    pid=$(signal_ours "$name" "$(slurm_exe slurmd)")
    [[ -n $pid ]] && wait_gone "$name" "$pid" 15
  done
  pid=$(signal_ours slurmctld "$(slurm_exe slurmctld)")
  [[ -n $pid ]] && wait_gone slurmctld "$pid" 15
  return 0
}

# down: only a Slurm this test bed started. Every job of the test users is cancelled first (TERM, then KILL after
# KillWait), so no job process outlives its slurmstepd; then slurmd, slurmctld, munged, and our /etc/slurm link.
SLURM_STOPPED=()
stop_slurm() { # the daemons it stopped go to SLURM_STOPPED
  local u users=() pid i d_pid ctld_pid name d_pids=()
  pid_alive "$RUN/slurmctld.pid" "$(slurm_exe slurmctld)" || pid_alive "$RUN/slurmd.pid" "$(slurm_exe slurmd)" ||
    pid_alive "$RUN/slurmd-$SLURM_NODE.pid" "$(slurm_exe slurmd)" || pid_alive "$RUN/slurmd-$SLURM_NODE2.pid" "$(slurm_exe slurmd)" ||
    pid_alive "$RUN/munged.pid" "$MUNGED" || { slurm_unlink_conf; return 0; }
  if slurmctld_ping; then
    for u in "$SSH_USER" "$POD_USER"; do
      id "$u" >/dev/null 2>&1 || continue
      users+=("$u")
      slurm_do scancel -u "$u" >>"$LOG" 2>&1 || true # one user per call (squeue takes a list, scancel does not)
    done
    u=$(IFS=,; echo "${users[*]}")
    if [[ -n $u ]]; then
      # KillWait=5: a job ignoring TERM is killed 5 s later; COMPLETING jobs still count.
      for ((i = 0; i < 200; i++)); do
        [[ -z $(slurm_do squeue -h -u "$u" -o '%i' 2>>"$LOG") ]] && break
        sleep 0.05
      done
    fi
    [[ -n $(slurm_do squeue -h -o '%i' 2>/dev/null) ]] && log "jobs left in squeue at down: $(slurm_do squeue -h -o '%i %T %u' | tr '\n' ';')"
  fi
  # With no job left, slurmd has nothing to report: both stop at once (slurmctld takes ~2 s to save its state).
  for name in slurmd $(slurmd_pid_names); do
    d_pid=$(signal_ours "$name" "$(slurm_exe slurmd)")
    [[ -n $d_pid ]] && d_pids+=("$name:$d_pid")
  done
  ctld_pid=$(signal_ours slurmctld "$(slurm_exe slurmctld)")
  for d_pid in "${d_pids[@]}"; do wait_gone "${d_pid%%:*}" "${d_pid#*:}" 15 && SLURM_STOPPED+=("${d_pid%%:*}"); done
  [[ -n $ctld_pid ]] && wait_gone slurmctld "$ctld_pid" 15 && SLURM_STOPPED+=(slurmctld)
  kill_slurm_leftovers
  pid=$(signal_ours munged "$MUNGED") && [[ -n $pid ]] && wait_gone munged "$pid" 10 && SLURM_STOPPED+=(munged)
  slurm_unlink_conf
}

# slurmstepd outlives slurmd by design (a slurmd restart keeps jobs running); with every job cancelled none should be
# left. Any still here, and any job process that escaped its step, carries our slurm.conf in SLURM_CONF (slurmd passes
# its own on to slurmstepd, and slurmstepd to the job): killed by that mark, never by name.
kill_slurm_leftovers() {
  local environ pid vars=() joined args mark=$'\n'"SLURM_CONF=$STATE/slurm/slurm.conf"$'\n'
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/} pid=${pid%/environ}
    mapfile -d '' -t vars 2>/dev/null <"$environ" || continue # a builtin: no process per process
    ((${#vars[@]})) || continue
    printf -v joined '\n%s' "${vars[@]}"
    [[ $joined$'\n' == *"$mark"* ]] || continue
    args=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || true
    kill -KILL "$pid" 2>/dev/null && log "killed leftover Slurm process $pid (${args:0:80})"
  done
  return 0
}

slurm_unlink_conf() {
  [[ -L $SLURM_SYSCONF && $(readlink "$SLURM_SYSCONF") == "$STATE/slurm/slurm.conf" ]] || return 0
  rm -f "$SLURM_SYSCONF"
  log "removed $SLURM_SYSCONF"
}

slurm_status() {
  local owner who
  owner=$(slurm_owner) && SLURM_DIR=$owner/slurm
  if pid_alive "$RUN/slurmctld.pid" "$(slurm_exe slurmctld 2>/dev/null)"; then
    who="ours, pids munged $(cat "$RUN/munged.pid" 2>/dev/null) slurmctld $(<"$RUN/slurmctld.pid") slurmd $(cat "$RUN/slurmd-$SLURM_NODE.pid" "$RUN/slurmd-$SLURM_NODE2.pid" 2>/dev/null | tr '\n' ' ')"
  else
    who="not started by testbed${owner:+: the test bed in $owner}"
  fi
  if slurmctld_ping; then
    echo "slurm    up ($who) nodes $(slurm_nodes) $(slurm_node_state), $(slurm_do squeue -h -o '%i' 2>/dev/null | wc -l) jobs, $SLURM_SYSCONF -> $(readlink "$SLURM_SYSCONF")"
  else
    echo "slurm    DOWN"
    return 1
  fi
}
