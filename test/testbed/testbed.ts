// Typed view of <state>/testbed.json, written by `bash test/testbed/testbed.sh up`.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface Testbed {
  version: 1;
  stateDir: string;
  /** The default socket, /var/run/docker.sock (the app's "Local Docker" engine). */
  dockerSocket: string;
  /** host:port of the local registry, 127.0.0.1:5000. */
  registry: string;
  registryUrl: string;
  /** 127.0.0.1:5000/agentswarm-test/fake-swarm:1, a TEST DOUBLE of the AgentJet swarm image. */
  fakeSwarmImage: string;
  /** The same image under its local-only tag, agentswarm-test/fake-swarm:1. */
  fakeSwarmLocalImage: string;
  fakeSwarmFixtureHash: string;
  /**
   * false when `up` found the service already running, started by someone else, and reused it (then `down` leaves
   * it alone). The Podman services count as started by this test bed when their PID file is in its state dir;
   * Slurm (munged, slurmctld, slurmd: one per machine) when this test bed started it, else another test bed's is reused.
   */
  startedByTestbed: {
    dockerd: boolean;
    registry: boolean;
    sshd: boolean;
    jumpSshd: boolean;
    podmanRootful: boolean;
    podmanRootless: boolean;
    slurm: boolean;
  };
  ssh: {
    host: string;
    port: number;
    user: string;
    password: string;
    plainKeyPath: string;
    encryptedKeyPath: string;
    encryptedKeyPassphrase: string;
    hostPublicKeyPath: string;
    /** `SHA256:<base64 without padding>`, as `ssh-keygen -lf` prints it. */
    hostKeyFingerprint: string;
    /**
     * sshd's own log and PID file: under the state dir of the test bed that started this sshd (another checkout's,
     * when `up` found its sshd serving the port and reused it), not necessarily under `stateDir`.
     */
    logPath: string;
    pidFile: string;
  };
  /**
   * A second sshd on 127.0.0.1:2223 for ProxyJump: the same user, password and keys as `ssh`, its own
   * host key, TCP forwarding allowed (no streamlocal).
   */
  jump: {
    host: string;
    port: number;
    hostPublicKeyPath: string;
    hostKeyFingerprint: string;
    /** The jump sshd's own log and PID file (see `ssh.logPath`). */
    logPath: string;
    pidFile: string;
  };
  /**
   * Native mode: a TEST DOUBLE `ajet-swarm` (a node script that runs the fake swarm server), readable by
   * every user. The SSH test user has it at ~/.local/bin/ajet-swarm, which a non-login `sh -c` does not
   * have on PATH: `sshUserActivate` (the profile's activate line) puts it there, as a venv's activate does.
   */
  native: {
    ajetSwarmPath: string;
    /** The folder holding `ajet-swarm`, for an activate line on this computer (`export PATH=<binDir>:$PATH`). */
    binDir: string;
    sshUserAjetSwarmPath: string;
    sshUserActivate: string;
  };
  /**
   * Real Podman from Debian (test/testbed/podman.sh). Both services run `podman system service --time=0`; the
   * fake swarm image is in both storages under the same two names as in Docker (the same image id).
   */
  podman: TestbedPodman;
  /** Real Slurm from Debian (test/testbed/slurm.sh); absent from a testbed.json written before it: see loadTestbedWithSlurm. */
  slurm: TestbedSlurm;
}

/**
 * A Slurm 22.05 on loopback with two nodes, both this machine (munged, slurmctld, a slurmd per node, all root; cgroups
 * off), with the test bed's sshd (`ssh.host`/`ssh.port`) as its login node. Each node is this machine, so a job's
 * 127.0.0.1:<port> is the node's: the SSH connection's `forwardOut('127.0.0.1', port)` reaches a server a job started.
 * Jobs run as the login user.
 */
export interface TestbedSlurm {
  /** `sinfo --version` without the "slurm-wlm" prefix: "22.05.8". */
  version: string;
  /**
   * /etc/slurm/slurm.conf, a symlink to the test bed's slurm.conf: every Slurm command finds it without SLURM_CONF,
   * also in a non-interactive SSH exec session (sshd runs with UsePAM no and reads no profile).
   */
  conf: string;
  /** The node's name: this machine's `hostname -s` (NodeAddr 127.0.0.1), or the second node's (see `second`). */
  node: string;
  /** The node's partition: the default "debug", or the second node's "second". */
  partition: string;
  /**
   * Fake GPUs (gres gpu:fake:<n>, `mknod` character devices with /dev/null's numbers): `--gres=gpu:1` sets
   * CUDA_VISIBLE_DEVICES; more than this many is refused at submission ("Requested node configuration is not available").
   */
  gpusPerNode: number;
  /** slurmctld's port on 127.0.0.1 (SlurmctldPort, 6817). */
  ctldPort: number;
  /** slurmd's port on 127.0.0.1 (SlurmdPort, 6818). */
  slurmdPort: number;
  /** The user that logs in over SSH and submits: `ssh.user`. */
  loginUser: string;
  /**
   * The second node (`<hostname>-b`: this machine too, a slurmd of its own on `slurmdPort`), alone in partition
   * `second`. Absent from the Slurm of an older test bed. A file given AGENTSWARM_TEST_SLURM_NODE=second gets it as its
   * `node` and `partition` from loadTestbedWithSlurm, so two chains of files that each take a whole node run side by side.
   */
  second?: { node: string; partition: string; slurmdPort: number };
  /** The folder of sbatch, squeue, scancel, sinfo, scontrol: "/usr/bin", on the default PATH of an SSH session. */
  bin: string;
}

export interface TestbedPodman {
  /** The server version, "4.3.1" (from the rootful service's /version). */
  version: string;
  /** The image reference to create containers from: the same as `fakeSwarmImage`. */
  image: string;
  /**
   * A rootful service on a private socket under the state dir (not /run/podman/podman.sock), with its own
   * storage, so it shares nothing with another Podman on the machine. Reach it as root with the socket path.
   */
  rootful: {
    socket: string;
    /** `--root`: images and containers. */
    root: string;
    /** `--runroot`: runtime state. */
    runroot: string;
    /** `--tmpdir`: libpod's lock files and event log (its own, not /run/libpod). */
    tmpdir: string;
    /**
     * The containers.conf the service was started with (CONTAINERS_CONF): only the sandbox's ulimits fix
     * (default_ulimits within the hard limits, since these machines lack CAP_SYS_RESOURCE).
     */
    containersConf: string;
  };
  /**
   * A rootless user, reached over the test bed's sshd (`ssh.host`/`ssh.port`) with the plain key
   * (`ssh.plainKeyPath`). Its service listens on `<runtimeDir>/podman/podman.sock`, the path the app finds
   * over SSH: there is no logind here, so XDG_RUNTIME_DIR is unset in SSH sessions and /run/user/<uid> is it.
   * One per machine: a second test bed reuses the running service (then `startedByTestbed.podmanRootless` is false).
   */
  rootless: {
    user: string;
    uid: number;
    home: string;
    /** /run/user/<uid>, made by hand (no systemd here). */
    runtimeDir: string;
    socket: string;
  };
}

export function testbedDir(): string {
  return process.env.AGENTSWARM_TESTBED_DIR ?? resolve(import.meta.dirname, '../../.testbed');
}

export function loadTestbed(): Testbed {
  const file = resolve(testbedDir(), 'testbed.json');
  if (!existsSync(file)) {
    throw new Error(`test bed not found (${file} is missing): run \`bash test/testbed/testbed.sh up\` first`);
  }
  const data = JSON.parse(readFileSync(file, 'utf8')) as Testbed;
  if (data.version !== 1 || typeof data.ssh?.port !== 'number' || typeof data.fakeSwarmImage !== 'string') {
    throw new Error(`${file} has an unexpected shape: re-run \`bash test/testbed/testbed.sh up\``);
  }
  return data;
}

/**
 * The test bed with its jump host. A testbed.json written by an older testbed.sh has none: say how to
 * fix that instead of failing later on `undefined`. (Not in loadTestbed: suites without jumps keep working.)
 */
export function loadTestbedWithJump(): Testbed {
  const data = loadTestbed();
  if (typeof data.jump?.port !== 'number') {
    throw new Error(`${resolve(testbedDir(), 'testbed.json')} has no jump host: re-run \`bash test/testbed/testbed.sh up\` from this checkout`);
  }
  return data;
}

/**
 * The test bed with its Podman services. A testbed.json written by an older testbed.sh has none: say how to
 * fix that instead of failing later on `undefined`.
 */
export function loadTestbedWithPodman(): Testbed {
  const data = loadTestbed();
  if (typeof data.podman?.rootful?.socket !== 'string' || typeof data.podman.rootless?.socket !== 'string') {
    throw new Error(`${resolve(testbedDir(), 'testbed.json')} has no Podman services: re-run \`bash test/testbed/testbed.sh up\` from this checkout`);
  }
  return data;
}

/** The test bed with its native `ajet-swarm` stand-in (a testbed.json from an older testbed.sh has none). */
export function loadTestbedWithNative(): Testbed {
  const data = loadTestbed();
  if (typeof data.native?.ajetSwarmPath !== 'string') {
    throw new Error(`${resolve(testbedDir(), 'testbed.json')} has no native ajet-swarm: re-run \`bash test/testbed/testbed.sh up\` from this checkout`);
  }
  return data;
}

/**
 * The test bed with its Slurm. A testbed.json written by an older testbed.sh has none: say how to fix that instead of
 * failing later on `undefined`.
 */
export function loadTestbedWithSlurm(): Testbed {
  const data = loadTestbed();
  if (typeof data.slurm?.conf !== 'string' || typeof data.slurm.ctldPort !== 'number') {
    throw new Error(`${resolve(testbedDir(), 'testbed.json')} has no Slurm: re-run \`bash test/testbed/testbed.sh up\` from this checkout`);
  }
  const which = process.env.AGENTSWARM_TEST_SLURM_NODE;
  if (!which) return data;
  if (which !== 'second') throw new Error(`AGENTSWARM_TEST_SLURM_NODE is "${which}": the test bed's nodes are the default one (unset) and "second"`);
  const second = data.slurm.second;
  if (!second) throw new Error(`${resolve(testbedDir(), 'testbed.json')}'s Slurm has no second node: re-run \`bash test/testbed/testbed.sh up\` from this checkout`);
  return { ...data, slurm: { ...data.slurm, node: second.node, partition: second.partition, slurmdPort: second.slurmdPort } };
}
