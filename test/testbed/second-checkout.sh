#!/usr/bin/env bash
# The test bed from a second checkout (issue 28): the test users (swarmtest, swarmpod) and the rootless Podman
# service belong to the machine, so a checkout whose `up` follows another checkout's must make them its own.
#   bash test/testbed/second-checkout.sh
# Two sequences, each ending with this checkout's `up` and logins with this checkout's key:
#   1. the other checkout's `up` then `down` (the documented way);
#   2. the other checkout's `up`, then its sshd ends but its rootless Podman service lives on (a session stopped
#      with its test bed up: what a CI clone beside a working checkout met as SSH_AUTH_FAILED for swarmpod).
# Checks, as the app's tests use them: key logins as both users, rootless Podman's own service answering over the
# sshd, the fake swarm image in its storage, the users' homes under this state dir. About 90 s; it leaves this
# checkout's test bed up (run `testbed.sh down` after), and the other checkout (a temporary copy of the test bed's
# scripts and fixture) removed. Prints "N passed, N failed" and exits non-zero when a check fails.
set -Eeuo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TB=$REPO/test/testbed/testbed.sh
HERE_STATE=$(realpath -m "${AGENTSWARM_TESTBED_DIR:-$REPO/.testbed}")
[[ $(id -u) == 0 ]] || { echo "second-checkout.sh needs root (as testbed.sh up does)" >&2; exit 2; }

# The other checkout: the test bed's scripts and the fake swarm fixture are all `up` reads (the same fixture hash,
# so the image is the one this checkout builds). Not under /tmp: nothing of a test user's lives below a
# world-writable folder here. Its state dir is short: Podman refuses a runroot path over 50 characters.
OTHER=$(mktemp -d /var/tmp/as2.XXXXXX)
chmod 755 "$OTHER" # mktemp's 0700 would keep the test users out of their homes below it
export AGENTSWARM_TESTBED_DIR=$OTHER/s
mkdir -p "$OTHER/test/fixtures"
cp -a "$REPO/test/testbed" "$OTHER/test/"
cp -a "$REPO/test/fixtures/fake-swarm" "$OTHER/test/fixtures/"
OTHER_TB=$OTHER/test/testbed/testbed.sh
# testbed.sh reads AGENTSWARM_TESTBED_DIR: the other checkout's calls set it, this checkout's clear it.
here() { AGENTSWARM_TESTBED_DIR=$HERE_STATE bash "$TB" "$@"; }
there() { bash "$OTHER_TB" "$@"; }
cleanup() {
  there down >/dev/null 2>&1 || true
  rm -rf "$OTHER"
}
trap cleanup EXIT

passed=0 failed=0
check() { # check <what> <command…>
  local what=$1
  shift
  if "$@" >/tmp/agentswarm-second-checkout.out 2>&1; then
    passed=$((passed + 1))
    echo "ok   $what"
  else
    failed=$((failed + 1))
    echo "FAIL $what"
    sed 's/^/     /' /tmp/agentswarm-second-checkout.out | tail -n 8
  fi
}

json() { /usr/bin/node -e 'const j = require(process.argv[1]); console.log(process.argv[2].split(".").reduce((o, k) => o[k], j))' "$HERE_STATE/testbed.json" "$1"; }
ssh_as() { # ssh_as <user> <command>
  ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
    -o IdentitiesOnly=yes -i "$(json ssh.plainKeyPath)" -p "$(json ssh.port)" "$1@$(json ssh.host)" "$2"
}
home_here() { [[ $(getent passwd "$1" | cut -d: -f6) == "$HERE_STATE/home/$1" ]]; }
rootless_service() { ssh_as swarmpod "podman --remote info --format '{{.Host.ServiceIsRemote}} {{.Store.GraphRoot}}'" | grep -q "^true $HERE_STATE/home/swarmpod/"; }
rootless_image() { ssh_as swarmpod "podman --remote image exists $(json fakeSwarmImage)"; }

checks() { # checks <sequence>
  check "$1: swarmtest logs in with this checkout's key" ssh_as swarmtest true
  check "$1: swarmpod logs in with this checkout's key" ssh_as swarmpod true
  check "$1: swarmpod's rootless service answers, with storage in this checkout's home" rootless_service
  check "$1: the fake swarm image is in the rootless storage" rootless_image
  check "$1: both users' homes are under this checkout's state dir" eval 'home_here swarmtest && home_here swarmpod'
}

echo "[second-checkout] this checkout: $REPO; the other: $OTHER"
here down >/dev/null
there up
there down
here up
checks "up and down there, up here"

here down >/dev/null
there up
# A session that stopped with its test bed up: its sshd ended, its rootless service (run as the test user) did not.
kill -TERM "$(<"$OTHER/s/run/sshd.pid")" "$(<"$OTHER/s/run/sshd-jump.pid")"
sleep 0.5
here up
checks "up there, its sshd gone but its rootless service alive, up here"

# The other checkout's daemons that this `up` reused (dockerd, registry, Slurm) go with it: start ours after.
here down >/dev/null
there down >/dev/null
here up >/dev/null
check "this checkout's test bed is whole again" here status
echo "${passed} passed, ${failed} failed"
((failed == 0))
