// The Slurm engine's container variant: the swarm server in rootless Podman INSIDE the batch job, against the
// test bed's REAL Slurm 22.05 and REAL Podman 4.3 (test/testbed/slurm.sh, podman.sh). The job user is the test bed's
// rootless Podman user (`swarmpod`), logged in to the login node (the test bed's sshd) with the plain key, as a
// cluster user with their own rootless Podman would be: its own storage, subuids, no logind session, so
// XDG_RUNTIME_DIR is unset in the job. The image is the fake swarm (TEST DOUBLE of AgentJet's image), loaded in the
// user's storage under the same reference as Docker's. The node is this machine (NodeAddr 127.0.0.1); the job's
// container uses host networking, so the server is at node:port, reached through the login node (forwardOut).
// What is checked after every stop: the job's state and exit code, the user's own `podman ps -a` (no container
// left behind: conmon escapes the job, only the script's TERM trap stops it) and the port closed.
// Run under `flock /tmp/agentswarm-slurm.lock flock /tmp/agentswarm-docker.lock` (the node must be idle; the
// Podman user is shared with the Podman suites).
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_MANAGED, LABEL_PORT, LABEL_PROFILE, LABEL_ROLE, type ContainerSpec } from '../../electron/services/engines/container-engine';
import { SshHost } from '../../electron/services/engines/engine-host';
import type { EngineWording } from '../../electron/services/engines/engine-wording';
import { slurmJobName, slurmJobScript } from '../../electron/services/engines/slurm/job-script';
import { SlurmClient } from '../../electron/services/engines/slurm/slurm-client';
import { SlurmEngine } from '../../electron/services/engines/slurm/slurm-engine';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { SlurmJobOptions, type SlurmJobOptionsInput } from '../../electron/shared/schemas-slurm';
import { poll } from '../support/helpers';
import { TEST_APP_VERSION, TEST_CONTAINER_FILTER, TEST_CONTAINER_LABELS } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';
import { slurmTestPorts } from '../support/slurm-test-ports';
import { loadTestbedWithPodman, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const podUser = loadTestbedWithPodman().podman.rootless.user;
const image = loadTestbedWithPodman().podman.image;
const run = `sp${process.pid.toString(36)}${Date.now().toString(36)}`;
const { labelPort, portBase } = slurmTestPorts();
let connection: SshConnection;
let host: SshHost;
let engine: SlurmEngine;
const created = new Set<string>();
/** Jobs submitted without the engine (no labels file): cancelled, their containers and folders removed after each test. */
const raw = new Map<string, string>();

/** One profile (job folder) per test: each test's job is alone in its folder. */
function labelsOf(profile: string): Record<string, string> {
  return { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: 'swarm-server', [LABEL_PROFILE]: `${run}-${profile}` };
}

/** `testLabels`: the test label every container a test makes carries (test-hygiene.spec.ts); the job's container gets it too. */
function spec(profile: string, testLabels: Record<string, string>, env: Record<string, string> = {}, batch: Partial<SlurmJobOptionsInput> = {}): ContainerSpec {
  return {
    name: `agentswarm-${run}-${profile}`,
    image,
    cmd: ['ajet-swarm', 'start', '--swarm-port', String(labelPort)],
    env: { NO_COLOR: '1', ...env },
    labels: { ...labelsOf(profile), ...testLabels, [LABEL_PORT]: String(labelPort) },
    network: { mode: 'host' },
    init: true,
    gpus: { mode: 'none' },
    shm: { mode: 'ipc-host' },
    binds: [],
    runtime: 'container',
    batch: SlurmJobOptions.parse({ timeLimit: '10', run: { mode: 'podman', image }, ...batch }),
  };
}

/** A command as the job user on the login node (= the node here); fails the test with its output when it fails. */
async function sh(script: string, timeoutMs = 30_000): Promise<string> {
  const result = await host.exec(script, { timeoutMs });
  if (result.code !== 0) throw new Error(`\`${script}\` as ${podUser} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}

/** The user's own containers of one job, any state: what `scancel` must leave empty. */
async function containersOfJob(jobId: string): Promise<string[]> {
  const out = await sh(`podman ps -a --filter label=io.agentswarm.slurm-job=${jobId} --format '{{.Names}} {{.Status}}'`);
  return out.split('\n').filter(Boolean);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(2000, () => { socket.destroy(); resolve(false); });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** The port the job chose on the node (its endpoint file, written before the container starts). */
async function endpointPort(profile: string): Promise<number> {
  const out = await sh(`sed -n 's/^port=//p' "$HOME/.agentswarm/slurm/${slurmJobName(`${run}-${profile}`)}/endpoint"`);
  const port = Number(out.trim());
  if (!Number.isInteger(port) || port <= 0) throw new Error(`no port in the endpoint file: "${out}"`);
  return port;
}

// Waits bound a hang, not speed: as the first Slurm file of a CI run beside two busy lanes, a job's first rootless
// `podman run` in a fresh clone's storage took over 60 s (9 s alone).
async function ended(id: string, timeoutMs = 150_000) {
  return poll(`job ${id} to end`, timeoutMs, async () => {
    const c = await engine.inspectContainer(id);
    return c.state === 'exited' ? c : undefined;
  }, 300);
}

beforeAll(async () => {
  connection = await connectToTestbed({ username: podUser }, tb);
  host = new SshHost(`testbed login (${podUser})`, () => Promise.resolve(connection));
  // Podman must work for the job user as the bed set it up; if not, fail here with what podman said (never a skip).
  const info = await host.exec(`podman info --format '{{.Host.Security.Rootless}} {{.Store.GraphDriverName}}' && podman image exists '${image}'`, { timeoutMs: 60_000 });
  if (info.code !== 0) throw new Error(`rootless Podman is not usable for ${podUser} on the test bed (podman info / image exists exited ${info.code}): ${info.stderr.trim() || info.stdout.trim()}`);
  expect(info.stdout.trim(), 'rootless Podman on overlay storage').toBe('true overlay');
  engine = new SlurmEngine({
    summary: { id: 'slurm-podman-test', kind: 'slurm', label: 'test bed Slurm (Podman user)', endpoint: `ssh://${podUser}@${tb.ssh.host}:${tb.ssh.port}` },
    wording: { product: 'Slurm' } as EngineWording,
    host,
    openChannel: (address, port) => connection.forwardOut(address, port),
    appVersion: '0.1.0-test',
    portBase,
    eventPollMs: 500,
    logPollMs: 300,
  });
}, 90_000);

afterEach(async () => {
  for (const id of created) {
    await engine.removeContainer(id).catch(() => undefined);
    // Whatever the job left: the user's containers of this job, removed (the assertions above say whether any were).
    await host.exec(`podman ps -aq --filter label=io.agentswarm.slurm-job=${id} | xargs -r podman rm -f -t 0`, { timeoutMs: 60_000 }).catch(() => undefined);
    created.delete(id);
  }
  for (const [id, key] of raw) {
    await host.exec(`scancel ${id}; podman ps -aq --filter label=io.agentswarm.slurm-job=${id} | xargs -r podman rm -f -t 0; rm -rf "$HOME/.agentswarm/slurm/${slurmJobName(key)}"`, { timeoutMs: 60_000 }).catch(() => undefined);
    raw.delete(id);
  }
}, 120_000);

afterAll(async () => {
  await engine?.dispose();
  await connection?.close();
});

describe('Slurm job running the swarm server in rootless Podman', () => {
  it('runs, serves through the login node, and scancel leaves no container and no open port', { timeout: 300_000 }, async () => {
    const id = await engine.createContainer(spec('ok', TEST_CONTAINER_LABELS));
    created.add(id);
    await engine.startContainer(id);
    expect((await engine.inspectContainer(id)).state).toBe('running');

    const status = await poll('the swarm server in the container, through the tunnel', 150_000, async () => {
      const url = await engine.urlForHostPort(labelPort);
      const response = await fetch(`${url}/get_engine_status`, { signal: AbortSignal.timeout(5000) });
      return response.ok ? ((await response.json()) as { engine_status: string }) : undefined;
    }, 300);
    expect(status.engine_status).toBe('ENGINE.OFFLINE');

    const port = await endpointPort('ok');
    const running = await containersOfJob(id);
    expect(running, 'one container of the job, running in the user\'s own Podman').toHaveLength(1);
    expect(running[0]).toMatch(new RegExp(`^${slurmJobName(`${run}-ok`)}-${id} Up`));
    // The job's container carries the app's labels, the test label among them: `testbed.sh down` finds a leftover.
    expect((await sh(`podman ps -q --filter label=${TEST_CONTAINER_FILTER} --filter label=io.agentswarm.slurm-job=${id}`)).trim()).not.toBe('');
    const log = (await engine.readLog(id, { tail: 50 })).join('\n');
    // No login session in a batch job: the script says so, and Podman still finds the user's runtime folder.
    expect(log).toMatch(/XDG_RUNTIME_DIR is unset \(no login session in a batch job\): Podman uses \/run\/user\/\d+/);
    expect(log).toMatch(/Interchange server is running/);

    await engine.stopContainer(id, 10);
    const stopped = await ended(id);
    expect(stopped.statusText).toContain('CANCELLED');
    expect(stopped.exitCode, 'the TERM trap stopped and removed the container, then exited 143').toBe(143);
    expect((await engine.readLog(id, { tail: 20 })).join('\n')).toMatch(/stop requested \(SIGTERM\)/);
    expect(await containersOfJob(id), 'no container left behind after scancel').toEqual([]);
    expect(await portOpen(port), `port ${port} closed on the node`).toBe(false);
  });

  it('a job cancelled while `podman run` starts the container leaves none behind', { timeout: 600_000 }, async () => {
    // The window (conmon started, `podman run -d` not returned) lasts a moment; on a loaded machine the watcher below
    // may not run inside it (loaded run L16: "run-already-returned"). Each attempt is checked the same way (a cancel
    // after the start must leave nothing behind either); one of them must have hit the window.
    const outcomes: string[] = [];
    for (let attempt = 1; attempt <= 4 && !outcomes.includes('cancelled-during-run'); attempt += 1) {
      outcomes.push(await cancelDuringStart(`early${attempt}`));
    }
    expect(outcomes, 'a cancel hit after conmon started, while podman run was still working').toContain('cancelled-during-run');
  });

  /** One job cancelled as soon as its container's conmon runs; what the watcher saw, after checking nothing is left. */
  async function cancelDuringStart(name: string): Promise<string> {
    const id = await engine.createContainer(spec(name, TEST_CONTAINER_LABELS));
    created.add(id);
    const container = `${slurmJobName(`${run}-${name}`)}-${id}`;
    // On the node, as the user, with no SSH round trip in between: wait until this job's `podman run -d` has started
    // the container's conmon but has not returned yet, and cancel the job right then. That is the window in which a
    // trap set after `podman run` left the container behind (created, or running and serving). `[a]`/`[c]` keep
    // pgrep from matching this watcher's own command line.
    const watcher = host.exec(
      [
        `run='podman run -d --name [a]${container.slice(1)} ' conmon='[c]onmon .* -n ${container} '`,
        'me=$(id -u)',
        'for i in $(seq 1 6000); do',
        '  if pgrep -u "$me" -f -- "$conmon" >/dev/null; then',
        `    if pgrep -u "$me" -f -- "$run" >/dev/null; then scancel ${id}; echo cancelled-during-run; else scancel ${id}; echo run-already-returned; fi`,
        '    exit 0',
        '  fi',
        '  sleep 0.005',
        'done',
        'echo conmon-never-seen; exit 1',
      ].join('\n'),
      { timeoutMs: 90_000 },
    );
    // startContainer returns once the job ends (kept, as an exited container) or runs with its endpoint.
    await engine.startContainer(id).catch(() => undefined);
    const watched = (await watcher).stdout.trim();
    expect(['cancelled-during-run', 'run-already-returned'], `the watcher saw conmon start (attempt ${name})`).toContain(watched);
    const stopped = await ended(id);
    expect(stopped.statusText).toContain('CANCELLED');
    expect(stopped.exitCode).toBe(143);
    // The trap waits for the killed `podman run`, then stops and removes what it left (created or running).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await containersOfJob(id), `no container left behind by a cancel during the start (${watched})`).toEqual([]);
    expect(await portOpen(await endpointPort(name).catch(() => portBase)), 'nothing listens on the job\'s port').toBe(false);
    return watched;
  }

  it('a container that exits by itself ends the job with its exit code, and the container is removed', { timeout: 300_000 }, async () => {
    // The fake swarm's test knob: fail at start with this exit code, like a broken install would.
    const id = await engine.createContainer(spec('exit', TEST_CONTAINER_LABELS, { AJET_FAKE_EXIT_ON_START: '3' }));
    created.add(id);
    await engine.startContainer(id);
    const done = await ended(id);
    expect(done.exitCode).toBe(3);
    expect(done.statusText).toContain('FAILED');
    const log = (await engine.readLog(id, { tail: 30 })).join('\n');
    expect(log).toMatch(/fake swarm server told to fail at start/);
    expect(log).toMatch(/the container exited with code 3/);
    expect(await containersOfJob(id)).toEqual([]);
  });

  it('a job given GPUs asks Podman for them as CDI devices; without a CDI spec (the bed\'s fake GPUs) it fails, saying why, and leaves no container', { timeout: 300_000 }, async () => {
    const id = await engine.createContainer(spec('gpu', TEST_CONTAINER_LABELS, {}, { gpus: { flag: 'gres', count: 1 } }));
    created.add(id);
    await engine.startContainer(id);
    const done = await ended(id);
    expect(done.statusText).toContain('FAILED');
    const log = (await engine.readLog(id, { tail: 30 })).join('\n');
    // Podman creates the container, then its start fails: 126 (measured), the job's exit code.
    expect(done.exitCode, `podman run's own exit code; the output:\n${log}`).toBe(126);
    expect(log).toMatch(/unresolvable CDI devices nvidia\.com\/gpu=\d/);
    expect(log).toMatch(/podman run failed \(exit 126\)/);
    expect(await containersOfJob(id)).toEqual([]);
  });

  it('at the time limit: the warning first, then TIMEOUT, and the container is stopped and removed', { timeout: 240_000 }, async () => {
    // --time=1 (Slurm's shortest) with the warning 50 s before it; Slurm checks limits every ~30 s, so up to 2 min.
    const id = await engine.createContainer(spec('limit', TEST_CONTAINER_LABELS, {}, { timeLimit: '1', warnBeforeLimitSeconds: 50 }));
    created.add(id);
    await engine.startContainer(id);
    await poll('the time-limit warning in the output', 60_000, async () => ((await engine.readLog(id, { tail: 50 })).some((l) => /time limit in 50 s/.test(l)) ? true : undefined), 1000);
    expect((await containersOfJob(id)).join('\n'), 'the warning does not stop the server').toMatch(/ Up /);
    const done = await ended(id, 180_000);
    expect(done.statusText).toContain('TIMEOUT');
    expect((await engine.readLog(id, { tail: 30 })).join('\n')).toMatch(/stop requested \(SIGTERM\)/);
    expect(await containersOfJob(id), 'no container left behind at the time limit').toEqual([]);
  });

  it('a server that ignores SIGTERM is still stopped and removed before Slurm kills the job script (KillWait)', { timeout: 300_000 }, async () => {
    // The job template is the user's to edit: here its server command is replaced by one that ignores SIGTERM (a
    // TEST DOUBLE of a server slow to stop). The bed's KillWait is 5 s: with `podman stop -t 10` the script was
    // SIGKILLed mid-stop and the container kept running after the job (measured); the script now fits the stop in.
    const client = new SlurmClient({ exec: (script, o) => host.exec(script, o), host: host.label });
    expect(await client.killWaitSeconds(), 'the bed\'s KillWait, shorter than podman stop\'s default grace time').toBeLessThan(13);
    const key = `${run}-stubborn`;
    const script = slurmJobScript({ profileId: key, appVersion: TEST_APP_VERSION, envNames: [] }, SlurmJobOptions.parse({ timeLimit: '10', run: { mode: 'podman', image } }), { portBase });
    const command = 'ajet-swarm start --swarm-port "$PORT"';
    expect(script).toContain(command);
    const edited = script.replace(command, `node -e 'process.on("SIGTERM", () => console.log("ignoring SIGTERM")); setInterval(() => {}, 1000)'`);
    const { jobId: id } = await client.submit(edited, { profileId: key });
    raw.set(id, key);
    await poll('the container to run', 60_000, async () => ((await containersOfJob(id)).some((c) => / Up /.test(c)) ? true : undefined), 300);
    const job = await client.cancel(id);
    expect(job?.state).toBe('CANCELLED');
    expect(job?.exitCode, 'the TERM trap finished (stop, rm, exit 143) before KillWait ran out; a SIGKILLed script shows 0:9').toBe(143);
    expect(await containersOfJob(id), 'no container left behind').toEqual([]);
  });
});
