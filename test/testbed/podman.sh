# Podman part of the test bed, sourced by testbed.sh (uses its STATE, RUN, LOGS, log, die, pid_alive,
# no_inherited_fds, wait_for, IMAGE, IMAGE_LOCAL). Real Podman 4.3.1 from Debian, loopback only:
# - a rootful service on a private socket under the state dir, with its own root, runroot and tmpdir (so it
#   shares no state, lock file or event log with any other Podman on the machine);
# - the fake swarm image, loaded from the Docker build (`docker save | podman load`: the same image id and
#   labels under the same two names, so one image reference works on every engine).
# Facts and hazards: /work/shared/reference/podman-slurm-facts.md, Podman part.

PODMAN=/usr/bin/podman
POD_ROOTFUL=$STATE/podman/rootful
POD_SOCK=$POD_ROOTFUL/podman.sock
POD_CONF=$POD_ROOTFUL/containers.conf
# The podman CLI must reach only the services below, whatever the caller's environment says.
unset CONTAINER_HOST CONTAINER_CONNECTION CONTAINERS_CONF CONTAINERS_STORAGE_CONF CONTAINERS_REGISTRIES_CONF
PODMAN_ROOTFUL_STATE='' PODMAN_IMAGE_STATE='' PODMAN_VERSION=''

# `OK` alone is not enough: dockerd answers it too. Podman's ping carries `Server: Libpod/<version>`.
podman_ping_sock() {
  local headers
  headers=$(curl -sf --max-time 2 -D - -o /dev/null --unix-socket "$1" http://d/_ping 2>/dev/null) || return 1
  [[ ${headers,,} == *"server: libpod/"* ]]
}
podman_rootful_ping() { podman_ping_sock "$POD_SOCK"; }
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

# Current when both names resolve to the Docker build's image id (its fixture-hash label comes with it).
podman_image_current() { # podman_image_current <socket> <docker image id>
  local name
  for name in "$IMAGE" "$IMAGE_LOCAL"; do
    [[ $(podman_at "$1" image inspect -f '{{.Id}}' "$name" 2>/dev/null) == "${2#sha256:}" ]] || return 1
  done
}

# After ensure_image (the Docker build is current). Loads the image into the storage behind <socket> when
# missing or stale, then drops the image the names pointed at before, unless a container still uses it.
load_podman_image() { # load_podman_image <socket> <what>; prints cached|loaded
  local sock=$1 id old
  id=$(docker image inspect -f '{{.Id}}' "$IMAGE")
  if podman_image_current "$sock" "$id"; then
    echo cached
    return 0
  fi
  old=$(podman_at "$sock" image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
  log "loading $IMAGE into $2 podman"
  docker save "$IMAGE" "$IMAGE_LOCAL" | podman_at "$sock" load -q >>"$LOG" 2>&1 || die "podman load into $2 storage failed"
  podman_image_current "$sock" "$id" || die "podman load into $2 storage did not give image ${id#sha256:} both names"
  [[ -n $old && $old != "${id#sha256:}" ]] && { podman_at "$sock" rmi "$old" >>"$LOG" 2>&1 || true; }
  echo loaded
}

ensure_podman_images() {
  PODMAN_IMAGE_STATE="rootful $(load_podman_image "$POD_SOCK" rootful)"
  PODMAN_VERSION=$(podman_at "$POD_SOCK" version --format '{{.Server.Version}}')
}

# Before the services stop: test containers would otherwise wait out their stop timeout. Only in a service
# this test bed started (one it reused belongs to someone else's run).
remove_podman_test_containers() {
  if pid_alive "$RUN/podman-rootful.pid" "$PODMAN" && podman_rootful_ping; then
    podman_at "$POD_SOCK" ps -aq --filter label=io.agentswarm.app-version=0.0.0-test |
      xargs -r "$PODMAN" --remote --url "unix://$POD_SOCK" rm -f -t 0 >>"$LOG" 2>&1 || true
  fi
}

# After the rootful service stopped: conmon outlives it by design (it watches the container). Only those of our
# own root are killed: their command line names our storage paths.
kill_podman_leftovers() { # kill_podman_leftovers <dir>
  local pid args
  for pid in $(pgrep -x conmon || true); do
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
    [[ $args == *"$1/"* ]] && kill -KILL "$pid" 2>/dev/null && log "killed leftover conmon $pid of $1"
  done
  return 0
}

podman_status() {
  local ok=0 owner
  owner=$(pid_alive "$RUN/podman-rootful.pid" "$PODMAN" && echo "ours, pid $(<"$RUN/podman-rootful.pid")" || echo "not started by testbed")
  if podman_rootful_ping; then
    echo "podman   rootful up ($owner) on $POD_SOCK"
    if podman_at "$POD_SOCK" image exists "$IMAGE"; then echo "image    $IMAGE present in rootful podman"; else echo "image    $IMAGE MISSING in rootful podman"; ok=1; fi
  else
    echo "podman   rootful DOWN"
    ok=1
  fi
  return $ok
}
