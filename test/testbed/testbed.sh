#!/usr/bin/env bash
# Real-service test bed for AgentSwarm Desktop: dockerd on the default socket, a registry on 127.0.0.1:5000,
# sshd on 127.0.0.1:2222 with a test user, a second sshd on 127.0.0.1:2223 as a ProxyJump host (same user,
# own host key), the fake swarm server image (a TEST DOUBLE of AgentJet), and Podman (test/testbed/podman.sh):
# a rootful service on a private socket and a rootless user reached over sshd, both with the same image; and a
# two-node Slurm (test/testbed/slurm.sh: munged, slurmctld, a slurmd per node, fake GPUs) with that sshd as its login node.
#   bash test/testbed/testbed.sh up|down|status
# State lives in $AGENTSWARM_TESTBED_DIR (default <repo>/.testbed). `up` is idempotent; `down` stops only
# the daemons this script started (tracked by PID files under <state>/run).
# Network rule: everything binds 127.0.0.1; dockerd has no bridge and touches no iptables; no image is
# ever pulled from a public registry (images are built with `docker import`).
# Recipes and gotchas: /work/shared/reference/toolchain-facts.md sections 2, 3, 4 and 7.
set -Eeuo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STATE=$(realpath -m "${AGENTSWARM_TESTBED_DIR:-$REPO/.testbed}")
RUN=$STATE/run
LOGS=$STATE/logs
LOG=$LOGS/testbed.log
SOCK=/var/run/docker.sock
REG=127.0.0.1:5000
SSH_HOST=127.0.0.1
SSH_PORT=2222
# The jump host (ProxyJump / ssh -J): a second sshd, like a bastion in front of the GPU server.
JUMP_PORT=2223
SSH_USER=swarmtest
# Fixed, non-secret test credentials: this user exists only for the loopback-only sshd below.
SSH_PASSWORD=swarmtest-password
KEY_PASSPHRASE=swarmtest-passphrase
FIXTURE_DIR=$REPO/test/fixtures/fake-swarm
IMAGE_LOCAL=agentswarm-test/fake-swarm:1
IMAGE=$REG/$IMAGE_LOCAL
# The docker CLI must talk to the default socket, whatever the caller's environment says.
unset DOCKER_HOST DOCKER_CONTEXT
DOCKERD_STATE='' REGISTRY_STATE='' SSHD_STATE='' JUMP_STATE='' IMAGE_STATE='' FIXTURE_HASH='' NATIVE_STATE=''
# Native mode (ajet-swarm without Docker): a TEST DOUBLE `ajet-swarm` that runs the fake swarm with the host's node,
# readable by every user, linked into the test user's ~/.local/bin (not on a non-login PATH: the profile's activate
# line `export PATH="$HOME/.local/bin:$PATH"` puts it there, as a venv's activate does).
NATIVE_DIR=$STATE/native
# SSH keys, the test user's home and the native stand-in: this test bed's own, unless another test bed's sshd already
# serves the port; then that one's (its state dir is OWNER), used read-only: this run changes neither user nor sshd.
OWNER=$STATE
SSH_DIR=$OWNER/ssh
SSH_HOME=$OWNER/home/$SSH_USER
NATIVE_ACTIVATE='export PATH="$HOME/.local/bin:$PATH"'
# chromium-headless-shell: the e2e files' browser (test/e2e/browser.ts), lighter than the full one, which the startup
# bench and the docs' screenshots use.
# fonts-wqy-microhei: a small CJK font, so zh-CN screenshots from the e2e suite are readable.
# python3 + python3-venv: the job runner and the wizard run real Python (the ajet stub in a venv per test project).
# podman: runc named so the runtime is the one measured (podman depends on crun | runc), catatonit for Init:true
# (a recommends, and skipped when tini is installed), uidmap/slirp4netns/fuse-overlayfs for the rootless user.
# iproute2 (ss) and procps (pgrep, pkill): finding who serves a port and which processes a test user still has.
PACKAGES=(docker.io openssh-server docker-registry chromium chromium-headless-shell curl ca-certificates fonts-wqy-microhei python3 python3-venv
  podman runc catatonit uidmap slirp4netns fuse-overlayfs iproute2 procps
  netcat-openbsd) # nc: the `ProxyCommand nc 127.0.0.1 %p` test

now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { awk -v ms="$1" 'BEGIN { printf "%.2fs", ms / 1000 }'; }
log() { echo "[$(date +%T)] $*" >>"$LOG"; }
die() {
  local tail_of=${2:-$LOG}
  echo "testbed: ERROR: $1" >&2
  if [[ -f $tail_of ]]; then
    echo "---- last lines of $tail_of ----" >&2
    tail -n 25 "$tail_of" >&2
  fi
  exit 1
}
trap 'die "command failed (line $LINENO): $BASH_COMMAND"' ERR

# A PID file counts only while its process is alive and runs the expected binary, so a reused PID
# never makes `down` kill an unrelated process.
pid_alive() {
  local file=$1 exe=$2 pid
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && [[ -d /proc/$pid ]] || return 1
  [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$exe" ]]
}
# Runs a daemon without the file descriptors this script inherited. `flock <lockfile> testbed.sh up` passes
# its lock fd on: a daemon that keeps it holds the lock for its whole life, and every later `flock` waits
# forever (dockerd and the registry did; sshd closes them itself). Use it as the command of a `&` job.
no_inherited_fds() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
  done
  exec "$@"
}
docker_ping() { curl -sf --max-time 2 --unix-socket "$SOCK" http://localhost/_ping >/dev/null 2>&1; }
registry_ping() { curl -sf --max-time 2 "http://$REG/v2/" >/dev/null 2>&1; }
port_open() { timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
ssh_ping_port() { timeout 2 bash -c "exec 3<>/dev/tcp/$SSH_HOST/$1 && head -c 4 <&3" 2>/dev/null | grep -q '^SSH-'; }
ssh_ping() { ssh_ping_port "$SSH_PORT"; }
jump_ping() { ssh_ping_port "$JUMP_PORT"; }
wait_for() { # wait_for <seconds> <check> <what> <log>
  local deadline=$(($(date +%s) + $1))
  until $2; do
    (($(date +%s) < deadline)) || die "$3 did not come up within $1 s" "$4"
    sleep 0.05
  done
}

# shellcheck source=podman.sh
source "$REPO/test/testbed/podman.sh"
# shellcheck source=slurm.sh
source "$REPO/test/testbed/slurm.sh"

ensure_packages() {
  local missing=() p installed
  # One dpkg-query for all packages, not one per package (the other dpkg-query calls a CI makes are Podman's own). It
  # exits 1 when any package is unknown to dpkg, which is every bare machine: that is an answer here, not an error.
  installed=$({ dpkg-query -W -f='${Package}\t${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true; } | awk -F'\t' '$2 ~ /install ok installed/ { print $1 }')
  for p in "${PACKAGES[@]}"; do
    grep -qxF "$p" <<<"$installed" || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  [[ $(id -u) == 0 ]] || die "missing Debian packages (${missing[*]}); run as root so the script can install them"
  log "apt-get install ${missing[*]}"
  # policy-rc.d stops the packages' init scripts from starting a default dockerd (with its 172.17 bridge)
  # or an sshd on 0.0.0.0:22 during installation.
  local made_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && made_policy=1
  fi
  local rc=0
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >>"$LOG" 2>&1 || rc=$?
  ((made_policy)) && rm -f /usr/sbin/policy-rc.d
  ((rc == 0)) || die "apt-get install ${missing[*]} failed"
}

start_dockerd() {
  if docker_ping; then
    pid_alive "$RUN/dockerd.pid" /usr/sbin/dockerd && DOCKERD_STATE=reused || DOCKERD_STATE=foreign
    return 0
  fi
  pid_alive "$RUN/dockerd.pid" /usr/sbin/dockerd && die "our dockerd (pid $(<"$RUN/dockerd.pid")) runs but does not answer" "$LOGS/dockerd.log"
  [[ -S $SOCK ]] && rm -f "$SOCK" # stale socket of a dead daemon
  mkdir -p "$STATE/docker/data" "$STATE/docker/exec"
  log "starting dockerd"
  no_inherited_fds setsid /usr/sbin/dockerd --host "unix://$SOCK" --group docker \
    --data-root "$STATE/docker/data" --exec-root "$STATE/docker/exec" --pidfile "$RUN/dockerd.pid" \
    --bridge=none --iptables=false --ip-masq=false --ip6tables=false \
    >>"$LOGS/dockerd.log" 2>&1 </dev/null 9>&- &
  wait_for 60 docker_ping dockerd "$LOGS/dockerd.log"
  DOCKERD_STATE=started
}

start_registry() {
  if registry_ping; then
    pid_alive "$RUN/registry.pid" /usr/bin/docker-registry && REGISTRY_STATE=reused || REGISTRY_STATE=foreign
    return 0
  fi
  port_open 5000 && die "$REG answers but is not a docker registry (port taken by another process)"
  mkdir -p "$STATE/registry/data"
  # Debian's shipped config enables htpasswd auth and listens on all interfaces; this one does neither.
  cat >"$STATE/registry/config.yml" <<EOF
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $STATE/registry/data}, delete: {enabled: true}}
http: {addr: $REG, secret: agentswarm-testbed-not-secret}
EOF
  log "starting registry"
  no_inherited_fds setsid /usr/bin/docker-registry serve "$STATE/registry/config.yml" >>"$LOGS/registry.log" 2>&1 </dev/null 9>&- &
  echo $! >"$RUN/registry.pid"
  wait_for 30 registry_ping "registry on $REG" "$LOGS/registry.log"
  REGISTRY_STATE=started
}

# Ends every process of a test user and waits until they are gone (5 s at most). Only for a user whose processes
# can belong to no live test bed: one being moved to this state dir while this test bed serves the sshd.
kill_user_processes() { # kill_user_processes <user>
  local i
  pkill -KILL -u "$1" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    pgrep -u "$1" >/dev/null || return 0
    sleep 0.05
  done
  die "processes of $1 survived SIGKILL: $(pgrep -u "$1" -a | head -n 5 | tr '\n' ';')"
}

# Makes a test user (or moves one an earlier checkout's test bed made) to <home>: the users belong to the machine,
# their homes, keys and services to the test bed that serves the sshd. usermod refuses to change a home while the
# user has a process, and what the user still runs then came from an earlier test bed (its pause process, its native
# servers, its rootless service): it is ended first.
ensure_test_user() { # ensure_test_user <user> <home> [useradd args…]
  local user=$1 home=$2
  shift 2
  if ! id "$user" >/dev/null 2>&1; then
    useradd -M -d "$home" -s /bin/bash "$@" "$user" >>"$LOG" 2>&1
    return 0
  fi
  [[ $(getent passwd "$user" | cut -d: -f6) == "$home" ]] && return 0
  log "moving $user's home from $(getent passwd "$user" | cut -d: -f6) to $home"
  kill_user_processes "$user"
  usermod -d "$home" -s /bin/bash "$user" >>"$LOG" 2>&1
}

setup_ssh_user() {
  local home=$STATE/home/$SSH_USER s=$STATE/ssh
  getent group docker >/dev/null || groupadd -r docker
  ensure_test_user "$SSH_USER" "$home" -G docker
  usermod -aG docker "$SSH_USER" >>"$LOG" 2>&1
  echo "$SSH_USER:$SSH_PASSWORD" | chpasswd
  mkdir -p "$s" "$home/.ssh"
  chmod 755 "$STATE" "$STATE/home" "$home" # StrictModes: no group/world-writable dir above authorized_keys
  # Keys are generated here, never committed: git does not keep the 600 mode sshd insists on.
  [[ -f $s/host_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C agentswarm-testbed-host -f "$s/host_ed25519"
  [[ -f $s/jump_host_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C agentswarm-testbed-jump-host -f "$s/jump_host_ed25519"
  [[ -f $s/id_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C swarmtest-plain -f "$s/id_ed25519"
  [[ -f $s/id_ed25519_enc ]] || ssh-keygen -q -t ed25519 -N "$KEY_PASSPHRASE" -C swarmtest-encrypted -f "$s/id_ed25519_enc"
  chmod 600 "$s/host_ed25519" "$s/jump_host_ed25519" "$s/id_ed25519" "$s/id_ed25519_enc"
  cat "$s/id_ed25519.pub" "$s/id_ed25519_enc.pub" >"$home/.ssh/authorized_keys"
  chown -R "$SSH_USER:" "$home"
  chmod 700 "$home/.ssh"
  chmod 600 "$home/.ssh/authorized_keys"
}

# One sshd config for both test sshds: file, port, host key, PID file, whether unix-socket forwarding
# (Docker over streamlocal) is allowed, and who may log in. Loopback only; only the test users.
write_sshd_config() {
  cat >"$1" <<EOF
Port $2
ListenAddress $SSH_HOST
HostKey $3
PidFile $4
AllowUsers $6
PubkeyAuthentication yes
PasswordAuthentication yes
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin no
StrictModes yes
AllowTcpForwarding yes
AllowStreamLocalForwarding $5
X11Forwarding no
MaxStartups 200:30:400
MaxSessions 100
EOF
}

# The main sshd lets in the Docker test user and the rootless Podman user (podman.sh).
write_main_sshd_config() {
  write_sshd_config "$1" "$SSH_PORT" "$STATE/ssh/host_ed25519" "$RUN/sshd.pid" yes "$SSH_USER $POD_USER"
  echo "Subsystem sftp /usr/lib/openssh/sftp-server" >>"$1"
}

# The state dir of the test bed whose sshd listens on 127.0.0.1:<port>, from that sshd's `-f <state>/ssh/<config>`
# (sshd rewrites its command line, but keeps its arguments in it). Fails for an sshd no test bed started.
sshd_owner_on_port() {
  local pid dir
  pid=$(ss -Hltnp "sport = :$1" 2>/dev/null | awk 'match($0, /pid=[0-9]+/) { print substr($0, RSTART + 4, RLENGTH - 4); exit }')
  [[ -n $pid ]] || return 1
  dir=$(tr '\0' ' ' <"/proc/$pid/cmdline" | awk '{ for (i = 1; i < NF; i++) if ($i == "-f") { print $(i + 1); exit } }')
  dir=$(dirname "$(dirname "$dir")")
  [[ -f $dir/ssh/id_ed25519 && -f $dir/ssh/host_ed25519.pub && -f $dir/testbed.json ]] && echo "$dir"
}

start_sshd() {
  local owner
  if pid_alive "$RUN/sshd.pid" /usr/sbin/sshd && ssh_ping; then
    setup_ssh_user
    refresh_sshd_config
    SSHD_STATE=reused
    return 0
  fi
  if ssh_ping && owner=$(sshd_owner_on_port "$SSH_PORT") && [[ $owner != "$STATE" ]]; then
    OWNER=$owner SSH_DIR=$owner/ssh SSH_HOME=$owner/home/$SSH_USER NATIVE_DIR=$owner/native
    log "sshd on $SSH_HOST:$SSH_PORT belongs to the test bed in $owner: reusing it with its user, keys and native stand-in"
    SSHD_STATE=foreign
    return 0
  fi
  port_open "$SSH_PORT" && die "127.0.0.1:$SSH_PORT is already taken by a process this script did not start"
  setup_ssh_user
  write_main_sshd_config "$STATE/ssh/sshd_config"
  mkdir -p /run/sshd && chmod 755 /run/sshd # sshd exits 255 without its privilege separation dir
  /usr/sbin/sshd -t -f "$STATE/ssh/sshd_config" >>"$LOGS/sshd.log" 2>&1 || die "sshd_config rejected" "$LOGS/sshd.log"
  log "starting sshd"
  /usr/sbin/sshd -f "$STATE/ssh/sshd_config" -E "$LOGS/sshd.log" 9>&- || die "sshd failed to start" "$LOGS/sshd.log"
  wait_for 15 ssh_ping "sshd on $SSH_HOST:$SSH_PORT" "$LOGS/sshd.log"
  SSHD_STATE=started
}

# Our running sshd keeps the config it started with: when this script's config differs (a test bed from before the
# Podman user), check the new one and SIGHUP sshd, which re-executes itself with it (same PID, sessions kept).
refresh_sshd_config() {
  local conf=$STATE/ssh/sshd_config
  write_main_sshd_config "$conf.new"
  if cmp -s "$conf.new" "$conf"; then
    rm -f "$conf.new"
    return 0
  fi
  /usr/sbin/sshd -t -f "$conf.new" >>"$LOGS/sshd.log" 2>&1 || die "new sshd_config rejected" "$LOGS/sshd.log"
  mv "$conf.new" "$conf"
  log "sshd config changed: reloading sshd (pid $(<"$RUN/sshd.pid"))"
  kill -HUP "$(<"$RUN/sshd.pid")"
  sleep 0.2 # the old listener closes before the re-executed one listens again
  wait_for 15 ssh_ping "sshd on $SSH_HOST:$SSH_PORT after reload" "$LOGS/sshd.log"
}

# The ProxyJump host: a second sshd with its own config, host key and PID file, started like the one
# above. The same user may log in, so a chain can also hop 2223 -> 2223 -> 2222.
start_jump_sshd() { # after start_sshd: setup_ssh_user made the user, its keys and the jump host key
  if pid_alive "$RUN/sshd-jump.pid" /usr/sbin/sshd && jump_ping; then
    JUMP_STATE=reused
    return 0
  fi
  if [[ $SSHD_STATE == foreign ]] && jump_ping && [[ $(sshd_owner_on_port "$JUMP_PORT") == "$OWNER" ]]; then
    JUMP_STATE=foreign
    return 0
  fi
  port_open "$JUMP_PORT" && die "127.0.0.1:$JUMP_PORT is already taken by a process this script did not start"
  [[ $SSHD_STATE == foreign ]] && die "the jump sshd cannot start here: the sshd on $SSH_PORT (and its keys) belong to the test bed in $OWNER"
  write_sshd_config "$STATE/ssh/jump_sshd_config" "$JUMP_PORT" "$STATE/ssh/jump_host_ed25519" "$RUN/sshd-jump.pid" no "$SSH_USER"
  mkdir -p /run/sshd && chmod 755 /run/sshd # sshd exits 255 without its privilege separation dir
  /usr/sbin/sshd -t -f "$STATE/ssh/jump_sshd_config" >>"$LOGS/sshd-jump.log" 2>&1 || die "jump sshd_config rejected" "$LOGS/sshd-jump.log"
  log "starting jump sshd"
  /usr/sbin/sshd -f "$STATE/ssh/jump_sshd_config" -E "$LOGS/sshd-jump.log" 9>&- || die "jump sshd failed to start" "$LOGS/sshd-jump.log"
  wait_for 15 jump_ping "jump sshd on $SSH_HOST:$JUMP_PORT" "$LOGS/sshd-jump.log"
  JUMP_STATE=started
}

fixture_hash() {
  # Everything that ends up in the image: the fake's sources, node itself and this build recipe.
  { cat "$FIXTURE_DIR"/*.mjs; /usr/bin/node --version; sed -n '/^build_image()/,/^}/p' "${BASH_SOURCE[0]}"; } |
    sha256sum | cut -c1-16
}

image_current() {
  local hash=$1
  [[ $(docker image inspect -f '{{index .Config.Labels "io.agentswarm.fixture-hash"}}' "$IMAGE" 2>/dev/null) == "$hash" ]] &&
    [[ $(docker image inspect -f '{{.Id}}' "$IMAGE_LOCAL" 2>/dev/null) == $(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null) ]] &&
    curl -sf -o /dev/null -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
      "http://$REG/v2/agentswarm-test/fake-swarm/manifests/1" &&
    [[ $(cat "$STATE/image/pushed-hash" 2>/dev/null) == "$hash" ]]
}

build_image() {
  local hash=$1 root=$STATE/image/rootfs lib old new
  old=$(docker image inspect -f '{{.Id}}' "$IMAGE_LOCAL" 2>/dev/null || true)
  rm -rf "$root"
  mkdir -p "$root"/{usr/bin,usr/local/bin,etc,sbin,opt/fake-swarm,workspace,root,proc,sys,dev}
  # Self-contained: node plus exactly the libraries and loader it links against, so the app can create
  # the container without bind mounts. /sbin is a real directory: Init:true bind-mounts /sbin/docker-init.
  cp /usr/bin/node "$root/usr/bin/node"
  for lib in $(ldd /usr/bin/node | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    cp -L --parents "$lib" "$root/"
  done
  install -d -m 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  cp "$FIXTURE_DIR"/*.mjs "$root/opt/fake-swarm/"
  cat >"$root/usr/local/bin/ajet-swarm" <<'EOF'
#!/usr/bin/node
// TEST DOUBLE launcher: `ajet-swarm start --swarm-port N` runs the fake AgentJet swarm server.
import('/opt/fake-swarm/cli.mjs').then((m) => m.main()).then(
  (code) => { if (code !== undefined) process.exit(code); },
  (e) => { console.error(e); process.exit(1); },
);
EOF
  chmod 755 "$root/usr/local/bin/ajet-swarm"
  tar --numeric-owner --owner=0 --group=0 -C "$root" -c . |
    docker import \
      -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin' \
      -c 'ENV NO_COLOR=1' -c 'ENV LOGURU_COLORIZE=NO' \
      -c 'WORKDIR /workspace' \
      -c 'CMD ["ajet-swarm","start"]' \
      -c "LABEL io.agentswarm.fixture-hash=$hash io.agentswarm.test-double=fake-swarm" \
      - "$IMAGE_LOCAL" >>"$LOG" 2>&1
  docker tag "$IMAGE_LOCAL" "$IMAGE"
  docker push -q "$IMAGE" >>"$LOG" 2>&1
  new=$(docker image inspect -f '{{.Id}}' "$IMAGE_LOCAL")
  # Each import makes a new 100 MB image; drop the previous one unless a container still uses it.
  [[ -n $old && $old != "$new" ]] && { docker rmi "$old" >>"$LOG" 2>&1 || true; }
  rm -rf "$root"
  echo "$hash" >"$STATE/image/pushed-hash"
}

ensure_image() {
  FIXTURE_HASH=$(fixture_hash)
  mkdir -p "$STATE/image"
  if image_current "$FIXTURE_HASH"; then
    IMAGE_STATE=cached
  else
    log "building $IMAGE (fixture hash $FIXTURE_HASH)"
    build_image "$FIXTURE_HASH"
    IMAGE_STATE=built
  fi
}

native_hash() {
  { cat "$FIXTURE_DIR"/*.mjs; sed -n '/^install_native()/,/^}/p' "${BASH_SOURCE[0]}"; } | sha256sum | cut -c1-16
}

# The stand-in is a node script named ajet-swarm (like a venv's console script: `python .../bin/ajet-swarm`), so
# the server's command line mentions ajet-swarm, which the app checks before it reports or signals a pid.
install_native() { # after setup_ssh_user
  local hash home=$STATE/home/$SSH_USER
  hash=$(native_hash)
  if [[ $(cat "$NATIVE_DIR/hash" 2>/dev/null) == "$hash" && -x $NATIVE_DIR/bin/ajet-swarm && -L $home/.local/bin/ajet-swarm ]]; then
    NATIVE_STATE=cached
    return 0
  fi
  rm -rf "$NATIVE_DIR"
  mkdir -p "$NATIVE_DIR/fake-swarm" "$NATIVE_DIR/bin"
  cp "$FIXTURE_DIR"/*.mjs "$NATIVE_DIR/fake-swarm/"
  cat >"$NATIVE_DIR/bin/ajet-swarm" <<LAUNCHER
#!/usr/bin/node
// TEST DOUBLE of AgentJet's ajet-swarm console script: runs the fake swarm server (test/fixtures/fake-swarm).
import('$NATIVE_DIR/fake-swarm/cli.mjs').then((m) => m.main()).then(
  (code) => { if (code !== undefined) process.exit(code); },
  (e) => { console.error(e); process.exit(1); },
);
LAUNCHER
  chmod 755 "$NATIVE_DIR" "$NATIVE_DIR/fake-swarm" "$NATIVE_DIR/bin" "$NATIVE_DIR/bin/ajet-swarm"
  chmod 644 "$NATIVE_DIR"/fake-swarm/*.mjs
  mkdir -p "$home/.local/bin"
  ln -sfn "$NATIVE_DIR/bin/ajet-swarm" "$home/.local/bin/ajet-swarm"
  chown -R "$SSH_USER:" "$home/.local"
  echo "$hash" >"$NATIVE_DIR/hash"
  NATIVE_STATE=installed
}

# Native servers the tests left running (run dirs under the test user's and root's ~/.agentswarm/run, marked with the
# test app version): stop each only while its pid still runs ajet-swarm (a reused pid is left alone).
stop_native_servers() {
  local d pid args
  for d in "$STATE/home/$SSH_USER/.agentswarm/run"/*/ /root/.agentswarm/run/*/; do
    [[ -s $d/pid && -f $d/spec.json ]] || continue
    grep -q '"io.agentswarm.app-version":"0.0.0-test' "$d/spec.json" || continue # 0.0.0-test or 0.0.0-test.<run>
    pid=$(<"$d/pid")
    [[ $pid =~ ^[0-9]+$ ]] || continue
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue # not `| grep -q`: pipefail + SIGPIPE
    [[ $args == *ajet-swarm* ]] || continue
    kill -KILL "$pid" 2>/dev/null && log "stopped native test server $d (pid $pid)"
  done
  return 0
}

write_outputs() {
  local s=$SSH_DIR fp jfp
  fp=$(ssh-keygen -lf "$s/host_ed25519.pub" | awk '{ print $2 }')
  jfp=$(ssh-keygen -lf "$s/jump_host_ed25519.pub" | awk '{ print $2 }')
  cat >"$STATE/env" <<EOF
# Generated by test/testbed/testbed.sh up; source it to reach the test bed.
export AGENTSWARM_TESTBED_DIR='$STATE'
export AGENTSWARM_TESTBED_JSON='$STATE/testbed.json'
export AGENTSWARM_TEST_DOCKER_SOCKET='$SOCK'
export AGENTSWARM_TEST_REGISTRY='$REG'
export AGENTSWARM_TEST_SSH_HOST='$SSH_HOST'
export AGENTSWARM_TEST_SSH_PORT='$SSH_PORT'
export AGENTSWARM_TEST_SSH_USER='$SSH_USER'
export AGENTSWARM_TEST_SSH_PASSWORD='$SSH_PASSWORD'
export AGENTSWARM_TEST_SSH_KEY='$s/id_ed25519'
export AGENTSWARM_TEST_SSH_KEY_ENCRYPTED='$s/id_ed25519_enc'
export AGENTSWARM_TEST_SSH_KEY_PASSPHRASE='$KEY_PASSPHRASE'
export AGENTSWARM_TEST_SSH_HOST_PUBKEY='$s/host_ed25519.pub'
export AGENTSWARM_TEST_SSH_HOST_FINGERPRINT='$fp'
export AGENTSWARM_TEST_JUMP_HOST='$SSH_HOST'
export AGENTSWARM_TEST_JUMP_PORT='$JUMP_PORT'
export AGENTSWARM_TEST_JUMP_HOST_PUBKEY='$s/jump_host_ed25519.pub'
export AGENTSWARM_TEST_JUMP_HOST_FINGERPRINT='$jfp'
export AGENTSWARM_TEST_FAKE_SWARM_IMAGE='$IMAGE'
export AGENTSWARM_TEST_NATIVE_AJET_SWARM='$NATIVE_DIR/bin/ajet-swarm'
export AGENTSWARM_TEST_PODMAN_SOCKET='$POD_SOCK'
export AGENTSWARM_TEST_PODMAN_ROOTLESS_USER='$POD_USER'
export AGENTSWARM_TEST_PODMAN_ROOTLESS_SOCKET='$POD_XDG/podman/podman.sock'
export AGENTSWARM_TEST_SLURM_CONF='$SLURM_SYSCONF'
EOF
  STATE=$STATE SOCK=$SOCK REG=$REG SSH_HOST=$SSH_HOST SSH_PORT=$SSH_PORT SSH_USER=$SSH_USER \
    SSH_PASSWORD=$SSH_PASSWORD KEY_PASSPHRASE=$KEY_PASSPHRASE FP=$fp JUMP_PORT=$JUMP_PORT JFP=$jfp IMAGE=$IMAGE IMAGE_LOCAL=$IMAGE_LOCAL \
    SSH_DIR=$SSH_DIR SSH_HOME=$SSH_HOME OWNER=$OWNER FIXTURE_HASH=$FIXTURE_HASH NATIVE_DIR=$NATIVE_DIR NATIVE_ACTIVATE=$NATIVE_ACTIVATE \
    STARTED="$DOCKERD_STATE $REGISTRY_STATE $SSHD_STATE $JUMP_STATE $PODMAN_ROOTFUL_STATE $PODMAN_ROOTLESS_STATE" \
    PODMAN_VERSION=$PODMAN_VERSION POD_ROOTFUL=$POD_ROOTFUL POD_SOCK=$POD_SOCK POD_CONF=$POD_CONF \
    POD_USER=$POD_USER POD_UID=$POD_UID POD_HOME=$POD_HOME POD_XDG=$POD_XDG \
    SLURM_JSON="$(slurm_json)" SLURM_STARTED=$SLURM_STATE /usr/bin/node -e '
      const e = process.env, s = e.SSH_DIR;
      const [dockerd, registry, sshd, jump, podmanRootful, podmanRootless] = e.STARTED.split(" ");
      const out = {
        version: 1, stateDir: e.STATE,
        dockerSocket: e.SOCK, registry: e.REG, registryUrl: "http://" + e.REG,
        fakeSwarmImage: e.IMAGE, fakeSwarmLocalImage: e.IMAGE_LOCAL, fakeSwarmFixtureHash: e.FIXTURE_HASH,
        startedByTestbed: { dockerd: dockerd !== "foreign", registry: registry !== "foreign", sshd: sshd !== "foreign",
                            jumpSshd: jump !== "foreign", podmanRootful: podmanRootful !== "foreign",
                            podmanRootless: podmanRootless !== "foreign", slurm: e.SLURM_STARTED !== "foreign" },
        ssh: { host: e.SSH_HOST, port: Number(e.SSH_PORT), user: e.SSH_USER, password: e.SSH_PASSWORD,
               plainKeyPath: s + "/id_ed25519", encryptedKeyPath: s + "/id_ed25519_enc",
               encryptedKeyPassphrase: e.KEY_PASSPHRASE, hostPublicKeyPath: s + "/host_ed25519.pub",
               hostKeyFingerprint: e.FP, logPath: e.OWNER + "/logs/sshd.log", pidFile: e.OWNER + "/run/sshd.pid" },
        jump: { host: e.SSH_HOST, port: Number(e.JUMP_PORT), hostPublicKeyPath: s + "/jump_host_ed25519.pub",
                hostKeyFingerprint: e.JFP, logPath: e.OWNER + "/logs/sshd-jump.log", pidFile: e.OWNER + "/run/sshd-jump.pid" },
        native: { ajetSwarmPath: e.NATIVE_DIR + "/bin/ajet-swarm", binDir: e.NATIVE_DIR + "/bin",
                  sshUserAjetSwarmPath: e.SSH_HOME + "/.local/bin/ajet-swarm",
                  sshUserActivate: e.NATIVE_ACTIVATE },
        podman: { version: e.PODMAN_VERSION, image: e.IMAGE,
                  rootful: { socket: e.POD_SOCK, root: e.POD_ROOTFUL + "/root", runroot: e.POD_ROOTFUL + "/runroot",
                             tmpdir: e.POD_ROOTFUL + "/tmp", containersConf: e.POD_CONF },
                  rootless: { user: e.POD_USER, uid: Number(e.POD_UID), home: e.POD_HOME, runtimeDir: e.POD_XDG,
                              socket: e.POD_XDG + "/podman/podman.sock" } },
        slurm: JSON.parse(e.SLURM_JSON),
      };
      require("fs").writeFileSync(e.STATE + "/testbed.json", JSON.stringify(out, null, 2) + "\n");'
}

cmd_up() {
  [[ $(id -u) == 0 ]] || die "testbed.sh up needs root (dockerd, sshd and useradd)"
  local t0 t d_docker d_reg d_ssh d_jump d_img d_pkg d_pod d_podless d_podimg d_slurm
  t0=$(now_ms)
  t=$t0; ensure_packages; d_pkg=$(($(now_ms) - t))
  t=$(now_ms); start_dockerd; d_docker=$(($(now_ms) - t))
  t=$(now_ms); start_registry; d_reg=$(($(now_ms) - t))
  t=$(now_ms); start_sshd; d_ssh=$(($(now_ms) - t))
  t=$(now_ms); start_jump_sshd; d_jump=$(($(now_ms) - t))
  # Another test bed's sshd: its user's ~/.local/bin links to its own stand-in, which this run uses as it is.
  if [[ $SSHD_STATE == foreign ]]; then NATIVE_STATE=foreign; else install_native; fi
  t=$(now_ms); ensure_image; d_img=$(($(now_ms) - t))
  t=$(now_ms); start_podman_rootful; d_pod=$(($(now_ms) - t))
  t=$(now_ms); start_podman_rootless; d_podless=$(($(now_ms) - t))
  t=$(now_ms); ensure_podman_images; d_podimg=$(($(now_ms) - t))
  t=$(now_ms); start_slurm; d_slurm=$(($(now_ms) - t))
  write_outputs
  echo "testbed up in $(secs $(($(now_ms) - t0))): packages $(secs "$d_pkg"), dockerd $DOCKERD_STATE $(secs "$d_docker")," \
    "registry $REGISTRY_STATE $(secs "$d_reg"), sshd $SSHD_STATE $(secs "$d_ssh"), jump sshd $JUMP_STATE $(secs "$d_jump"), native ajet-swarm $NATIVE_STATE, image $IMAGE_STATE $(secs "$d_img")," \
    "podman rootful $PODMAN_ROOTFUL_STATE $(secs "$d_pod"), rootless $PODMAN_ROOTLESS_STATE $(secs "$d_podless"), podman images $PODMAN_IMAGE_STATE $(secs "$d_podimg")," \
    "slurm $SLURM_STATE $(secs "$d_slurm") -> $STATE/testbed.json"
}

# Sends SIGTERM to a daemon this script started; prints its PID (nothing when it is not ours or not running).
signal_ours() { # signal_ours <name> <exe>
  local file=$RUN/$1.pid pid
  if pid_alive "$file" "$2"; then
    pid=$(<"$file") # read first: sshd and dockerd delete their PID file as soon as they get the signal
    kill -TERM "$pid" && echo "$pid"
  else
    rm -f "$file"
  fi
}

wait_gone() { # wait_gone <name> <pid> <timeout s>
  local i
  for ((i = 0; i < $3 * 20; i++)); do
    [[ -d /proc/$2 ]] || break
    sleep 0.05
  done
  if [[ -d /proc/$2 ]]; then
    kill -KILL "$2" && log "$1 (pid $2) needed SIGKILL"
  fi
  rm -f "$RUN/$1.pid"
}

unmount_under() { # unmount_under <dir/>: deepest first
  awk -v p="$1" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount "$m" >>"$LOG" 2>&1 || umount -l "$m" >>"$LOG" 2>&1 || true
  done
}

cmd_down() {
  local t0 sshd_pid jump_pid reg_pid docker_pid pod_pid podless_pid stopped=()
  t0=$(now_ms)
  stop_slurm # first: its jobs run the test users' processes (native swarm servers among them)
  stopped+=("${SLURM_STOPPED[@]}")
  remove_podman_test_containers
  if pid_alive "$RUN/dockerd.pid" /usr/sbin/dockerd && docker_ping; then
    # Test containers would otherwise wait out their stop timeout during daemon shutdown. One label marks
    # them all: the app version the tests pass (TEST_CONTAINER_FILTER in test/support/test-app.ts), 0.0.0-test or, for
    # a named run (AGENTSWARM_TEST_RUN), 0.0.0-test.<run>.
    docker ps -a --filter label=io.agentswarm.app-version --format '{{.ID}} {{.Label "io.agentswarm.app-version"}}' |
      awk '$2 ~ /^0\.0\.0-test/ { print $1 }' | xargs -r docker rm -f >>"$LOG" 2>&1 || true
  fi
  # Only with the sshd (and so the test user) of this test bed: another bed's tests may still be running.
  if pid_alive "$RUN/sshd.pid" /usr/sbin/sshd; then stop_native_servers; fi
  # Signal them all first, then wait: the registry and dockerd each take 1-2 s to shut down.
  pod_pid=$(signal_ours podman-rootful "$PODMAN")
  podless_pid=$(signal_ours podman-rootless "$PODMAN")
  sshd_pid=$(signal_ours sshd /usr/sbin/sshd)
  jump_pid=$(signal_ours sshd-jump /usr/sbin/sshd)
  reg_pid=$(signal_ours registry /usr/bin/docker-registry)
  docker_pid=$(signal_ours dockerd /usr/sbin/dockerd)
  [[ -n $sshd_pid ]] && wait_gone sshd "$sshd_pid" 10 && stopped+=(sshd)
  [[ -n $jump_pid ]] && wait_gone sshd-jump "$jump_pid" 10 && stopped+=(sshd-jump)
  [[ -n $reg_pid ]] && wait_gone registry "$reg_pid" 10 && stopped+=(registry)
  if [[ -n $pod_pid ]]; then
    wait_gone podman-rootful "$pod_pid" 10 && stopped+=(podman-rootful)
    kill_podman_leftovers rootful
  fi
  if [[ -n $podless_pid ]]; then
    wait_gone podman-rootless "$podless_pid" 10 && stopped+=(podman-rootless)
    kill_podman_leftovers rootless
  fi
  if [[ -n $docker_pid ]]; then
    wait_gone dockerd "$docker_pid" 30 && stopped+=(dockerd)
    # dockerd leaves its default network namespace (nsfs) mounted under the exec root after shutdown,
    # which makes the state dir impossible to delete. Only mounts under our own state dir are touched.
    unmount_under "$STATE/docker/"
  fi
  # Podman's storage keeps its overlay mounts (shm, a container's rootfs) after the service stops.
  [[ -n $pod_pid ]] && unmount_under "$STATE/podman/"
  echo "testbed down in $(secs $(($(now_ms) - t0))): stopped ${stopped[*]:-nothing} (only daemons started by testbed.sh up are stopped)"
}

cmd_status() {
  trap - ERR # a down service is a result here, not a script failure
  local ok=0
  owner() { pid_alive "$RUN/$1.pid" "$2" && echo "ours, pid $(<"$RUN/$1.pid")" || echo "not started by testbed"; }
  if docker_ping; then echo "dockerd  up ($(owner dockerd /usr/sbin/dockerd)) on $SOCK"; else echo "dockerd  DOWN"; ok=1; fi
  if registry_ping; then echo "registry up ($(owner registry /usr/bin/docker-registry)) on $REG"; else echo "registry DOWN"; ok=1; fi
  if ssh_ping; then echo "sshd     up ($(owner sshd /usr/sbin/sshd)) on $SSH_HOST:$SSH_PORT"; else echo "sshd     DOWN"; ok=1; fi
  if jump_ping; then echo "jump     up ($(owner sshd-jump /usr/sbin/sshd)) on $SSH_HOST:$JUMP_PORT"; else echo "jump     DOWN"; ok=1; fi
  if docker_ping && docker image inspect "$IMAGE" >/dev/null 2>&1; then echo "image    $IMAGE present"; else echo "image    $IMAGE MISSING"; ok=1; fi
  podman_status || ok=1
  slurm_status || ok=1
  [[ -f $STATE/testbed.json ]] && echo "config   $STATE/testbed.json" || { echo "config   MISSING"; ok=1; }
  return $ok
}

mkdir -p "$RUN" "$LOGS"
exec 9>"$STATE/.lock"
flock 9 # two concurrent `up`s (parallel test runners) must not race on the same daemons
case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) echo "usage: $0 up|down|status   (state: $STATE)" >&2; exit 2 ;;
esac
