# Podman part of the test bed, sourced by testbed.sh (uses its STATE, RUN, LOGS, log, die, pid_alive,
# no_inherited_fds, wait_for, IMAGE, IMAGE_LOCAL). Real Podman 4.3.1 from Debian, loopback only:
# - a rootful service on a private socket under the state dir, with its own root, runroot and tmpdir (so it
#   shares no state, lock file or event log with any other Podman on the machine);
# - a rootless user, reached over the test bed's sshd with the plain key, whose own service listens on
#   /run/user/<uid>/podman/podman.sock (one per machine: a second test bed reuses it);
# - the fake swarm image, loaded from the Docker build (`docker save | podman load`: the same image id and
#   labels under the same two names, so one image reference works on every engine).
# Facts and hazards: /work/shared/reference/podman-slurm-facts.md, Podman part.

PODMAN=/usr/bin/podman
POD_ROOTFUL=$STATE/podman/rootful
POD_SOCK=$POD_ROOTFUL/podman.sock
POD_CONF=$POD_ROOTFUL/containers.conf
# The podman CLI must reach only the services below, whatever the caller's environment says.
unset CONTAINER_HOST CONTAINER_CONNECTION CONTAINERS_CONF CONTAINERS_STORAGE_CONF CONTAINERS_REGISTRIES_CONF
# The rootless user. Its home, storage and service belong to the machine, not to one state dir: `up` makes or
# changes the user only while no other test bed's service runs for it.
POD_USER=swarmpod
POD_UID='' POD_HOME='' POD_XDG=''
PODMAN_ROOTFUL_STATE='' PODMAN_ROOTLESS_STATE='' PODMAN_IMAGE_STATE='' PODMAN_VERSION=''

# `OK` alone is not enough: dockerd answers it too. Podman's ping carries `Server: Libpod/<version>`.
podman_ping_sock() {
  local headers
  headers=$(curl -sf --max-time 2 -D - -o /dev/null --unix-socket "$1" http://d/_ping 2>/dev/null) || return 1
  [[ ${headers,,} == *"server: libpod/"* ]]
}
podman_rootful_ping() { podman_ping_sock "$POD_SOCK"; }
podman_rootless_ping() { podman_ping_sock "$POD_XDG/podman/podman.sock"; }
# The podman CLI as a client of one of our services (`--remote`): no second process opens the storage.
podman_at() { # podman_at <socket> <podman args…>
  local sock=$1
  shift
  "$PODMAN" --remote --url "unix://$sock" "$@"
}

# Sandbox-only: these machines lack CAP_SYS_RESOURCE and cap open files at the hard limit (20000 here), and
# Podman raises nofile/nproc past it by default, so every rootful container failed with exit 126
# (`error setting rlimit type 7: operation not permitted`). Cap both at what this machine grants.
# Nothing else is set: all other behaviour is Debian's default.
write_podman_conf() {
  local nofile nproc
  nofile=$(ulimit -Hn) nproc=$(ulimit -Hu)
  [[ $nofile == unlimited ]] && nofile=1048576
  if [[ $nproc == unlimited ]] || ((nproc > 32768)); then nproc=32768; fi
  cat >"$1" <<EOF
# Written by test/testbed/testbed.sh (podman.sh). Sandbox-only fix: without CAP_SYS_RESOURCE, Podman's default
# ulimits exceed the hard limits and containers fail with exit 126 ("error setting rlimit type 7").
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
EOF
}

# Podman keeps container state in its runroot and tmpdir and notices a reboot only when tmpdir/alive is gone;
# ours live in the state dir, which survives reboots. With no conmon of ours left (so no container of ours can be
# running), removing `alive` makes the next service refresh every container's state, as after a reboot.
podman_forget_dead_containers() { # podman_forget_dead_containers <dir> <tmpdir>
  local pid args
  for pid in $(pgrep -x conmon || true); do
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
    [[ $args == *"$1/"* ]] && return 0
  done
  rm -f "$2/alive"
}

start_podman_rootful() {
  if podman_rootful_ping; then
    pid_alive "$RUN/podman-rootful.pid" "$PODMAN" && PODMAN_ROOTFUL_STATE=reused || PODMAN_ROOTFUL_STATE=foreign
    return 0
  fi
  pid_alive "$RUN/podman-rootful.pid" "$PODMAN" &&
    die "our rootful podman (pid $(<"$RUN/podman-rootful.pid")) runs but does not answer" "$LOGS/podman-rootful.log"
  mkdir -p "$POD_ROOTFUL/root" "$POD_ROOTFUL/runroot" "$POD_ROOTFUL/tmp"
  rm -f "$POD_SOCK" # stale socket of a dead service
  write_podman_conf "$POD_CONF"
  podman_forget_dead_containers "$POD_ROOTFUL" "$POD_ROOTFUL/tmp"
  log "starting rootful podman service on $POD_SOCK"
  # The service reads CONTAINERS_CONF once, at start: the app needs nothing to get the ulimits above.
  no_inherited_fds setsid env CONTAINERS_CONF="$POD_CONF" "$PODMAN" \
    --root "$POD_ROOTFUL/root" --runroot "$POD_ROOTFUL/runroot" --tmpdir "$POD_ROOTFUL/tmp" \
    system service --time=0 "unix://$POD_SOCK" >>"$LOGS/podman-rootful.log" 2>&1 </dev/null 9>&- &
  echo $! >"$RUN/podman-rootful.pid"
  wait_for 60 podman_rootful_ping "rootful podman service on $POD_SOCK" "$LOGS/podman-rootful.log"
  PODMAN_ROOTFUL_STATE=started
}

# The user's paths, once it exists. XDG_RUNTIME_DIR is /run/user/<uid>: over SSH (no logind here) it is unset, and
# both podman and the app's discovery fall back to exactly this path.
podman_user_paths() {
  POD_UID=$(id -u "$POD_USER")
  POD_HOME=$(getent passwd "$POD_USER" | cut -d: -f6)
  POD_XDG=/run/user/$POD_UID
}

# useradd gives the subuid/subgid ranges rootless Podman maps; `-p '*'` because sshd refuses a locked account
# (useradd's `!`) even for key logins. Only the test bed's plain key may log in; sshd's AllowUsers names the user.
setup_podman_user() { # after setup_ssh_user (the plain key)
  local home=$STATE/home/$POD_USER
  ensure_test_user "$POD_USER" "$home"
  usermod -p '*' "$POD_USER" >>"$LOG" 2>&1
  # A user made before (or by a useradd without SUB_UID_* defaults) may have none: give it a range of its own.
  grep -q "^$POD_USER:" /etc/subuid || usermod --add-subuids 500000000-500065535 "$POD_USER" >>"$LOG" 2>&1
  grep -q "^$POD_USER:" /etc/subgid || usermod --add-subgids 500000000-500065535 "$POD_USER" >>"$LOG" 2>&1
  podman_user_paths
  mkdir -p "$home/.ssh" "$home/.config/containers"
  chmod 755 "$STATE/home" "$home" # StrictModes
  cp "$SSH_DIR/id_ed25519.pub" "$home/.ssh/authorized_keys"
  # Overlay, not the default vfs (a full copy of the 100 MB image per container). Native overlay: the kernel allows
  # it in a user namespace (5.13+), so no fuse-overlayfs mount_program is needed.
  printf '[storage]\ndriver = "overlay"\n' >"$home/.config/containers/storage.conf"
  # Not chown -R: the storage below holds files owned by the user's subordinate ids.
  chown "$POD_USER:" "$home" "$home/.ssh" "$home/.ssh/authorized_keys" "$home/.config" "$home/.config/containers" \
    "$home/.config/containers/storage.conf"
  chmod 700 "$home/.ssh"
  chmod 600 "$home/.ssh/authorized_keys"
  runuser -u "$POD_USER" -- test -r "$home/.config/containers/storage.conf" ||
    die "$POD_USER cannot reach its home $home: a folder above it is closed to other users (chmod o+x each of them, or set AGENTSWARM_TESTBED_DIR to a state dir under an open folder)"
  # No systemd/logind here: the runtime dir is made by hand, as pam_systemd would.
  mkdir -p "$POD_XDG"
  chown "$POD_USER:" "$POD_XDG"
  chmod 700 "$POD_XDG"
}

# Leftovers that make the next rootless start fail (podman-slurm-facts.md): the pause process (`catatonit -P`)
# holding an old user namespace, and the network namespaces a failed publish left ($XDG_RUNTIME_DIR/netns,
# libpod/tmp/rootless-netns). Cleared only while no conmon of the user runs, that is while no container of the
# user can be running: then the whole runtime dir goes, as logind empties it at logout and a reboot does (Podman
# then refreshes every container's state, and runtime state left by an older home's storage is gone too).
clear_rootless_leftovers() {
  local pid
  pgrep -u "$POD_UID" -x conmon >/dev/null && return 0
  for pid in $(pgrep -u "$POD_UID" -x catatonit || true); do
    kill -KILL "$pid" 2>/dev/null && log "killed leftover catatonit $pid of $POD_USER"
  done
  find "$POD_XDG" -mindepth 1 -maxdepth 1 -exec rm -rf {} + 2>>"$LOG" || true
}

start_podman_rootless() { # after setup_ssh_user
  if id "$POD_USER" >/dev/null 2>&1; then
    podman_user_paths
    if podman_rootless_ping; then
      if pid_alive "$RUN/podman-rootless.pid" "$PODMAN"; then
        # Our own service: keep the user in step (keys).
        PODMAN_ROOTLESS_STATE=reused
        setup_podman_user
        return 0
      fi
      if [[ $SSHD_STATE == foreign ]]; then
        # The test bed whose sshd serves the port owns the users: its service and user are used as they are.
        [[ $POD_HOME == "$OWNER/home/$POD_USER" ]] ||
          die "the rootless podman service of $POD_USER (home $POD_HOME) belongs to neither this test bed nor the one serving sshd ($OWNER): run 'testbed.sh down' in that checkout"
        PODMAN_ROOTLESS_STATE=foreign
        return 0
      fi
      # This test bed serves the sshd, so the service is an earlier checkout's that outlived its sshd: nothing but
      # us reaches it now, and its user's keys and storage are that checkout's (every login with ours was refused).
      # End it with everything the user runs; setup_podman_user below moves the user here.
      log "rootless podman service of $POD_USER (home $POD_HOME) belongs to an earlier test bed: stopping it"
      kill_user_processes "$POD_USER"
    fi
  fi
  pid_alive "$RUN/podman-rootless.pid" "$PODMAN" &&
    die "our rootless podman (pid $(<"$RUN/podman-rootless.pid")) runs but does not answer" "$LOGS/podman-rootless.log"
  setup_podman_user
  clear_rootless_leftovers
  runuser -u "$POD_USER" -- mkdir -p "$POD_XDG/podman"
  rm -f "$POD_XDG/podman/podman.sock"
  log "starting rootless podman service for $POD_USER on $POD_XDG/podman/podman.sock"
  # As the user, in a clean environment with XDG_RUNTIME_DIR set (as a login would) and no containers.conf:
  # rootless Podman caps ulimits at the user's own hard limits, so the rootful fix is not needed (measured:
  # Init:true containers start without it). setpriv execs in place, so $! is podman's pid.
  no_inherited_fds setsid env -i -C "$POD_HOME" HOME="$POD_HOME" USER="$POD_USER" LOGNAME="$POD_USER" SHELL=/bin/bash \
    PATH=/usr/local/bin:/usr/bin:/bin XDG_RUNTIME_DIR="$POD_XDG" \
    setpriv --reuid="$POD_USER" --regid="$POD_USER" --init-groups \
    "$PODMAN" system service --time=0 "unix://$POD_XDG/podman/podman.sock" >>"$LOGS/podman-rootless.log" 2>&1 </dev/null 9>&- &
  echo $! >"$RUN/podman-rootless.pid"
  wait_for 60 podman_rootless_ping "rootless podman service of $POD_USER" "$LOGS/podman-rootless.log"
  PODMAN_ROOTLESS_STATE=started
}

# Current when both names resolve to the Docker build's image id (its fixture-hash label comes with it). Asked with
# curl: each `podman --remote` call costs ~0.3 s.
podman_image_current() { # podman_image_current <socket> <docker image id>
  local name
  for name in "$IMAGE" "$IMAGE_LOCAL"; do
    [[ $(curl -sf --max-time 10 --unix-socket "$1" "http://d/v1.41/images/$name/json" 2>/dev/null) == "{\"Id\":\"$2\""* ]] || return 1
  done
}

# After ensure_image (the Docker build is current). Loads the image into the storage behind <socket> when missing
# or stale, from one `docker save` shared by both storages, then drops the image the names pointed at before,
# unless a container still uses it.
load_podman_image() { # load_podman_image <socket> <what> <docker image id> <archive>; prints cached|loaded
  local sock=$1 id=$3 archive=$4 old
  if podman_image_current "$sock" "$id"; then
    echo cached
    return 0
  fi
  old=$(podman_at "$sock" image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
  log "loading $IMAGE into $2 podman"
  # One name in the archive, then a tag: podman load copies the image once per name it finds.
  [[ -s $archive ]] || docker save -o "$archive" "$IMAGE" >>"$LOG" 2>&1 || die "docker save $IMAGE failed"
  podman_at "$sock" load -q -i "$archive" >>"$LOG" 2>&1 || die "podman load into $2 storage failed"
  podman_at "$sock" tag "$IMAGE" "$IMAGE_LOCAL" >>"$LOG" 2>&1
  podman_image_current "$sock" "$id" || die "podman load into $2 storage did not give image ${id#sha256:} both names"
  [[ -n $old && $old != "${id#sha256:}" ]] && { podman_at "$sock" rmi "$old" >>"$LOG" 2>&1 || true; }
  echo loaded
}

ensure_podman_images() {
  local id archive=$STATE/image/podman-load.tar rootful rootless
  id=$(docker image inspect -f '{{.Id}}' "$IMAGE")
  rm -f "$archive"
  rootful=$(load_podman_image "$POD_SOCK" rootful "$id" "$archive")
  rootless=$(load_podman_image "$POD_XDG/podman/podman.sock" rootless "$id" "$archive")
  rm -f "$archive"
  PODMAN_IMAGE_STATE="rootful $rootful, rootless $rootless"
  # The server's version, from its ping header (`Libpod-Api-Version: 4.3.1`).
  PODMAN_VERSION=$(curl -sf --max-time 5 -D - -o /dev/null --unix-socket "$POD_SOCK" http://d/_ping |
    awk -F': *' 'tolower($1) == "libpod-api-version" { gsub(/\r/, "", $2); print $2 }')
  [[ -n $PODMAN_VERSION ]] || die "the rootful podman service did not say its version"
}

# Before the services stop: test containers would otherwise wait out their stop timeout. Only in a service this test
# bed started (one it reused belongs to someone else's run); there every other running container is the test bed's
# too (the rootful storage is private, the rootless user exists for the tests) and is killed, so that no container
# process outlives its conmon.
remove_podman_test_containers() {
  local kind sock
  for kind in rootful rootless; do
    [[ $kind == rootless ]] && { id "$POD_USER" >/dev/null 2>&1 || continue; podman_user_paths; }
    sock=$POD_SOCK
    [[ $kind == rootless ]] && sock=$POD_XDG/podman/podman.sock
    pid_alive "$RUN/podman-$kind.pid" "$PODMAN" && podman_ping_sock "$sock" || continue
    podman_at "$sock" ps -a --filter label=io.agentswarm.app-version --format '{{.ID}} {{index .Labels "io.agentswarm.app-version"}}' |
      awk '$2 ~ /^0\.0\.0-test/ { print $1 }' | xargs -r "$PODMAN" --remote --url "unix://$sock" rm -f -t 0 >>"$LOG" 2>&1 || true
    podman_at "$sock" kill -a >>"$LOG" 2>&1 || true
  done
}

# After the services stopped: conmon outlives its service by design (it watches the container). Only ours are
# killed: the rootful ones name our storage paths; the rootless ones (and the user's pause process) run as the
# user, whose service this test bed started.
kill_podman_leftovers() { # kill_podman_leftovers rootful|rootless
  local pid args
  if [[ $1 == rootful ]]; then
    for pid in $(pgrep -x conmon || true); do
      args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
      [[ $args == *"$POD_ROOTFUL/"* ]] && kill -KILL "$pid" 2>/dev/null && log "killed leftover conmon $pid of $POD_ROOTFUL"
    done
  else
    for pid in $(pgrep -u "$POD_UID" -x conmon || true) $(pgrep -u "$POD_UID" -x catatonit || true); do
      kill -KILL "$pid" 2>/dev/null && log "killed leftover conmon/catatonit $pid of $POD_USER"
    done
  fi
  return 0
}

podman_status() {
  local ok=0 kind sock owner
  id "$POD_USER" >/dev/null 2>&1 && podman_user_paths
  for kind in rootful rootless; do
    sock=$POD_SOCK
    [[ $kind == rootless ]] && sock=${POD_XDG:-/run/user/?}/podman/podman.sock
    owner=$(pid_alive "$RUN/podman-$kind.pid" "$PODMAN" && echo "ours, pid $(<"$RUN/podman-$kind.pid")" || echo "not started by testbed")
    if podman_ping_sock "$sock"; then
      echo "podman   $kind up ($owner) on $sock"
      if podman_at "$sock" image exists "$IMAGE"; then echo "image    $IMAGE present in $kind podman"; else echo "image    $IMAGE MISSING in $kind podman"; ok=1; fi
    else
      echo "podman   $kind DOWN"
      ok=1
    fi
  done
  return $ok
}
