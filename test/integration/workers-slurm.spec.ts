// Rollout workers as a Slurm job array (issue 34) on the test bed's REAL Slurm 22.05 (test/testbed/slurm.sh), its
// login node being the test bed's sshd as its login user: the project copied to that user's home over SFTP, the
// array script previewed, then submitted as ONE `sbatch --array=0-1` on the CPU partition; both tasks feed the
// TEST DOUBLE fake swarm server (in this process, on 127.0.0.1: the node is this machine) to step 3. One task
// stopped by hand, the app restarted (the other found again by its task id), stop all leaves no task in Slurm's
// queue and no env file. The ajet TEST DOUBLE is copied with the project. Other suites share the node: run it
// under `flock /tmp/agentswarm-slurm.lock`. The login node is also the app's Slurm engine (as when the server was added
// as "Slurm (login node)"), whose one queue poll runs as the Slurm module runs it: the workers learn their tasks'
// queue states from it, and every squeue the app runs over the login connection is counted (the poll budget).
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../electron/services/domain';
import { LABEL_MANAGED, LABEL_PORT, LABEL_PROFILE, LABEL_ROLE } from '../../electron/services/engines/container-engine';
import { EngineRegistry } from '../../electron/services/engines/engine-registry';
import type { EngineWording } from '../../electron/services/engines/engine-wording';
import { SshHost } from '../../electron/services/engines/engine-host';
import { SlurmEngine } from '../../electron/services/engines/slurm/slurm-engine';
import { registerSlurm, type SlurmModule } from '../../electron/services/slurm/register';
import type { Handlers } from '../../electron/services/ipc/handlers';
import { registerJobs, type JobsModule } from '../../electron/services/jobs/register';
import { setUpProject, type ProjectLayout } from '../../electron/services/project/project-files';
import { generateTrainingCode } from '../../electron/services/project/training-code';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import type { SwarmModule } from '../../electron/services/swarm/register';
import { registerWorkers, type WorkersModule } from '../../electron/services/workers/register';
import { TrainingForm } from '../../electron/shared/schemas-wizard';
import { engineIdOfServer } from '../../electron/shared/schemas-servers';
import { PoolStartRequest, type PoolViewData } from '../../electron/shared/schemas-workers';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../fixtures/fake-swarm/server.mjs';
import { poll } from '../support/helpers';
import { MemoryVault } from '../support/memory-vault';
import { AJET_STUB_DIR, makeVenv, SAMPLE_AGENT_DIR } from '../support/python-env';
import { TEST_CONTAINER_LABELS } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';
import { loadTestbed, loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const RESOURCES = resolve(import.meta.dirname, '..', '..', 'resources');
const FORM = TrainingForm.parse({ experimentName: 'workers_slurm_it', modelPath: '/models/debug', grpoN: 2, epochs: 1000, batchSize: 4, gpusPerNode: 1, discardEpisodeTimeout: 60 });
const SERVER_ID = 'testbed-slurm-login';
/** Where the swarm job of the "inside the cluster" check looks for a free port on the node (away from 10086 and other suites'). */
const PORT_BASE = 33_000 + (process.pid % 2000);

let projectDir: string;
let layout: ProjectLayout;
let python: string;
let swarm: FakeSwarmHandle;
let connection: SshConnection;
let app: { jobs: JobsModule; workers: WorkersModule; slurm: SlurmModule; engines: EngineRegistry } | null = null;
const poolIds: string[] = [];
/** Swarm jobs the app submitted through its Slurm engine (removed at the end). */
const serverJobs: string[] = [];
/** squeue commands the app ran over the login connection (the spec's own checks use `connection` directly). */
const squeues: number[] = [];

/** The login connection as the app uses it, counting every squeue in what it runs. */
function countingConnection(): SshConnection {
  return new Proxy(connection, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (key !== 'exec' && key !== 'execStream') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return (command: string, ...rest: unknown[]) => {
        if (command.includes('squeue')) squeues.push(Date.now());
        return (value as (...a: unknown[]) => unknown).call(target, command, ...rest);
      };
    },
  });
}

async function openApp(): Promise<{ jobs: JobsModule; workers: WorkersModule; engines: EngineRegistry }> {
  const login = countingConnection();
  const engines = new EngineRegistry();
  engines.add(
    new SlurmEngine({
      summary: { id: engineIdOfServer(SERVER_ID), kind: 'slurm', label: 'test bed Slurm', endpoint: `ssh://${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port}` },
      wording: { product: 'Slurm' } as EngineWording,
      host: new SshHost('testbed login', () => Promise.resolve(login)),
      openChannel: (address, port) => login.forwardOut(address, port),
      appVersion: '0.1.0-test',
      portBase: PORT_BASE,
    }),
  );
  const context = {
    dataDir: `${projectDir}-data`,
    events: { emit: () => undefined },
    vault: new MemoryVault(),
    logger: { warn: () => undefined, info: () => undefined },
    notifier: { notify: () => undefined },
    engines,
  } as unknown as ServiceContext;
  const swarmModule = { monitor: { statuses: () => [{ engineId: 'local', containerId: 'fake0swarm', url: swarm.url, connection: 'online' }] } } as unknown as Pick<SwarmModule, 'monitor'>;
  const jobs = registerJobs(context, { swarm: swarmModule });
  const handlers = { ...jobs.handlers } as unknown as Handlers;
  const servers = { connectionOf: () => Promise.resolve(login), labelOf: () => 'testbed login' };
  const slurm = registerSlurm(context);
  const workers = registerWorkers(context, { jobs: jobs.api, swarm: swarmModule, servers, handlers: () => handlers, tuning: { pollMs: 500, progressEverySeconds: 1 } });
  await jobs.start?.();
  await slurm.start?.();
  await workers.start?.();
  app = { jobs, workers, slurm, engines };
  return app;
}

async function closeApp(): Promise<void> {
  await app?.workers.dispose?.();
  await app?.slurm.dispose?.();
  for (const engine of app?.engines.all() ?? []) await engine.dispose();
  await app?.jobs.dispose?.();
  app = null;
}

async function queued(arrayId: string): Promise<string> {
  return (await connection.exec(`squeue -h -r -j ${arrayId} -o '%i %T'`)).stdout.trim();
}

beforeAll(async () => {
  projectDir = await mkdtemp(join(tmpdir(), 'workers-slurm-it-'));
  await cp(SAMPLE_AGENT_DIR, projectDir, { recursive: true });
  // The ajet TEST DOUBLE travels with the project (the login user cannot read this checkout).
  await cp(join(AJET_STUB_DIR, 'ajet'), join(projectDir, 'ajet_stub', 'ajet'), { recursive: true });
  python = await makeVenv(projectDir, { ajet: true });
  layout = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir, buildId: 'it_slurm_workers', rewardStyle: 'native', agentCommand: '{python} agent.py --item {item_id}' });
  await generateTrainingCode(RESOURCES, layout, { form: FORM, overwrite: [] }, python);
  swarm = await startFakeSwarmServer({ port: 0, bootDelayMs: 200, weightSyncDelayMs: 150, rollingPostMaxMs: 300, quiet: true });
  connection = await connectToTestbed({}, tb);
}, 60_000);

afterAll(async () => {
  for (const id of poolIds) await app?.workers.pool.stopAll(id).catch(() => undefined);
  for (const id of serverJobs) await app?.engines.get(engineIdOfServer(SERVER_ID)).removeContainer(id).catch(() => undefined);
  await closeApp();
  for (const id of poolIds) {
    await connection?.exec(`scancel -n agentswarm-workers-${id} 2>/dev/null; rm -rf "$HOME/.agentswarm/workers/${id}"-*`).catch(() => undefined);
  }
  await connection?.exec(`rm -rf "$HOME/.agentswarm/projects/${projectDir.split('/').pop()}"`).catch(() => undefined);
  await connection?.close();
  await swarm?.close();
  if (projectDir) {
    await rm(projectDir, { recursive: true, force: true });
    await rm(`${projectDir}-data`, { recursive: true, force: true });
  }
});

describe('rollout workers as a Slurm job array', () => {
  // In CI's Slurm lanes this file follows others whose jobs may still be ending (KillWait) on its node, whose CPUs the
  // two tasks need at once. Only its node's partition: the test bed's other node runs another lane's jobs meanwhile
  // (idle CI-AS: waiting for the whole queue to empty took 107 s).
  it('shows the array script, submits 2 tasks that train to step 3, stops one by hand, is found again after an app restart, adds a worker as a new array shown first, and stop all leaves nothing in the queue', async () => {
    const queue = async () => (await connection.exec(`squeue -h -a -p ${tb.slurm.partition} -o '%i %u %T %R'`)).stdout.trim();
    // Earlier files' jobs have ended, so both tasks can run at once (a task left pending would never end episodes).
    await poll('the Slurm node free of earlier jobs', 120_000, async () => ((await queue()) === '' ? true : undefined), 1000).catch(async (error: Error) => {
      throw new Error(`${error.message}; the queue: ${await queue()}`);
    });
    const { workers } = await openApp();
    const stub = relative(layout.buildDir, join(projectDir, 'ajet_stub'));
    const request = PoolStartRequest.parse({
      cwd: layout.buildDir,
      projectDir,
      python,
      swarm: { engineId: 'local', containerId: 'fake0swarm', profileId: null },
      batchSize: FORM.batchSize,
      grpoN: FORM.grpoN,
      placements: [0, 1].map(() => ({
        kind: 'slurm',
        serverId: SERVER_ID,
        python: `AJET_STUB_TIME_SCALE=0.05 PYTHONPATH=${stub} /usr/bin/python3`,
        partition: tb.slurm.partition,
        timeLimit: '30',
        reach: { kind: 'direct', url: swarm.url },
      })),
      label: 'slurm workers it',
    });

    // Shown before submission: one array of 2 tasks on the CPU partition, each task's share, no env value in it.
    const preview = await workers.handlers['workers:slurm-preview'](request);
    expect(preview.arrays).toHaveLength(1);
    const [array] = preview.arrays;
    expect(array!.tasks).toBe(2);
    expect(array!.script).toContain('#SBATCH --array=0-1');
    expect(array!.script).toContain(`#SBATCH --partition=${tb.slurm.partition}`);
    expect(array!.script).toMatch(/0\) export AGENTSWARM_WORKER_INDEX='?0'?; export AGENTSWARM_WORKER_COUNT='?2'?; export AGENTSWARM_WORKER_BATCH_SHARE='?2'?/);
    expect(array!.script).not.toContain(swarm.url);
    expect(array!.command).toMatch(/sbatch --parsable job\.sh$/);

    const started = await workers.handlers['workers:start']({ ...request, poolId: preview.poolId });
    poolIds.push(started.poolId);
    expect(started.poolId).toBe(preview.poolId);
    expect(started.workers.map((w) => w.state), JSON.stringify(started.workers.map((w) => w.lastError))).toEqual(['running', 'running']);
    const arrayId = started.workers[0]!.jobId!.split('_')[0]!;
    expect(started.workers.map((w) => w.jobId)).toEqual([`${arrayId}_0`, `${arrayId}_1`]);
    // The submitted script is the one shown.
    const runDir = `"$HOME"/.agentswarm/workers/${preview.poolId}-slurm-0`;
    expect(started.workers[0]!.note).toContain(`Slurm array ${arrayId}, task 0`);
    expect((await connection.exec(`cat ${runDir}/job.sh`)).stdout).toBe(array!.script);

    const view = (): PoolViewData => workers.pool.get(started.poolId);
    const pollingFrom = Date.now();
    await poll('both array tasks to end episodes', 150_000, async () => (view().workers.every((w) => w.episodes > 0 && w.clientUuid !== null) ? true : undefined), 500).catch(
      async (error: Error) => {
        throw new Error(`${error.message}; the queue: ${await queue()}; the workers: ${JSON.stringify(view().workers.map((w) => [w.state, w.episodes, w.lastError]))}`);
      },
    );
    expect(view().workers.every((w) => (w.llmCalls ?? 0) > 0)).toBe(true);
    // Each task's env file is gone once it read it.
    expect((await connection.exec(`ls ${runDir}/env.* 2>/dev/null | wc -l`)).stdout.trim()).toBe('0');
    await poll('global step 3', 120_000, async () => ((swarm.state.globalStep ?? 0) >= 3 ? true : undefined), 300);
    // The poll budget: 2 tasks polled every 500 ms, yet squeue only at the shared poll's cadence (30 s while shown),
    // plus the first answer that names the new array. Before, each poll of each task ran one: 240 a minute here.
    const pollingMs = Date.now() - pollingFrom;
    const asked = squeues.filter((t) => t >= pollingFrom).length;
    console.info(`workers-slurm: ${asked} squeue in ${(pollingMs / 1000).toFixed(1)} s of polling 2 tasks every 500 ms (one per task per poll would be ${2 * Math.floor(pollingMs / 500)})`);
    expect(asked).toBeLessThanOrEqual(Math.ceil(pollingMs / 30_000) + 2);

    // One task stopped by hand: the other goes on.
    const one = await workers.handlers['workers:stop']({ poolId: started.poolId, index: 0 });
    expect(one.workers.map((w) => w.state)).toEqual(['stopped', 'running']);
    expect(await queued(arrayId)).not.toContain(`${arrayId}_0 `);

    // An app restart finds the running task by its task id.
    await closeApp();
    const second = await openApp();
    const again = second.workers.pool.get(started.poolId);
    expect(again.workers.map((w) => w.state)).toEqual(['stopped', 'running']);
    expect(again.workers[1]!.jobId).toBe(`${arrayId}_1`);
    const stepBefore = swarm.state.globalStep ?? 0;
    await poll('the remaining task to go on training', 120_000, async () => ((swarm.state.globalStep ?? 0) > stepBefore ? true : undefined), 300);

    // Add workers: one more like the running one, as an array of its own shown first with the split recomputed
    // (2 active workers: 2 + 2 tasks, so the running one keeps its share), submitted as shown.
    const like = again.workers[1]!.placement;
    const addPreview = await second.workers.handlers['workers:slurm-add-preview']({ poolId: started.poolId, placements: [like] });
    expect(addPreview.split.shares.map((s) => s.batchShare)).toEqual([2, 2]);
    expect(addPreview.arrays.map((a) => a.tasks)).toEqual([1]);
    const [added] = addPreview.arrays;
    expect(added!.script).toContain('#SBATCH --array=0-0');
    expect(added!.script).toMatch(/0\) export AGENTSWARM_WORKER_INDEX='?1'?; export AGENTSWARM_WORKER_COUNT='?2'?; export AGENTSWARM_WORKER_BATCH_SHARE='?2'?/);
    expect(added!.script).not.toContain(swarm.url);
    const grown = await second.workers.handlers['workers:add']({ poolId: started.poolId, placements: [like], shown: addPreview.shown });
    expect(grown.workers.map((w) => w.state), JSON.stringify(grown.workers.map((w) => w.lastError))).toEqual(['stopped', 'running', 'running']);
    const addedArray = grown.workers[2]!.jobId!.split('_')[0]!;
    expect(grown.workers[2]!.jobId).toBe(`${addedArray}_0`);
    expect(addedArray).not.toBe(arrayId);
    const addedDir = `"$HOME"/.agentswarm/workers/${started.poolId}-slurm-2-${addPreview.shown.tag}`;
    expect((await connection.exec(`cat ${addedDir}/job.sh`)).stdout).toBe(added!.script);
    await poll('the added worker to join the server', 90_000, async () => (second.workers.pool.get(started.poolId).workers[2]!.clientUuid !== null ? true : undefined), 500).catch(
      async (error: Error) => {
        throw new Error(`${error.message}; the queue: ${await queue()}; the workers: ${JSON.stringify(second.workers.pool.get(started.poolId).workers.map((w) => [w.state, w.episodes, w.lastError]))}`);
      },
    );
    expect((await connection.exec(`ls ${addedDir}/env.* 2>/dev/null | wc -l`)).stdout.trim()).toBe('0');

    const stopped = await second.workers.handlers['workers:stop-all']({ poolId: started.poolId });
    expect(stopped.workers.map((w) => w.state)).toEqual(['stopped', 'stopped', 'stopped']);
    expect(await queued(arrayId)).toBe('');
    expect(await queued(addedArray)).toBe('');
    expect((await connection.exec(`ls ${runDir}/env.* 2>/dev/null | wc -l`)).stdout.trim()).toBe('0');
  }, 480_000);

  // Next to a swarm server that is the app's own Slurm job on the same cluster, the array reaches it at its node's
  // address inside the cluster (NodeAddr and the port the job chose, from its endpoint file), not through this computer.
  // The server is the fake swarm (TEST DOUBLE of ajet-swarm) in a real job of the app's Slurm engine; the worker's
  // script asks it for its status at AJET_SWARM_URL and prints both.
  it('a Slurm array next to a Slurm swarm job reaches it at the job node\'s address inside the cluster', async () => {
    const { workers, engines } = app ?? (await openApp());
    const engine = engines.get(engineIdOfServer(SERVER_ID));
    const profile = `wsc${process.pid.toString(36)}${Date.now().toString(36)}`;
    const labelPort = 30_000 + (process.pid % 3000);
    const jobId = await engine.createContainer({
      name: `agentswarm-${profile}`,
      image: '',
      cmd: ['ajet-swarm', 'start', '--swarm-port', String(labelPort)],
      env: { NO_COLOR: '1' },
      labels: { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: 'swarm-server', [LABEL_PROFILE]: profile, ...TEST_CONTAINER_LABELS, [LABEL_PORT]: String(labelPort) },
      network: { mode: 'host' },
      init: true,
      gpus: { mode: 'none' },
      shm: { mode: 'ipc-host' },
      binds: [],
      runtime: 'native',
      nativeActivate: loadTestbed().native.sshUserActivate,
    });
    serverJobs.push(jobId);
    await engine.startContainer(jobId);
    const served = await poll('the swarm job to serve', 60_000, async () => {
      const url = await engine.urlForHostPort(labelPort).catch(() => null);
      return url && (await fetch(`${url}/get_engine_status`, { signal: AbortSignal.timeout(3000) }).catch(() => null))?.ok ? url : undefined;
    }, 300);
    expect(served).toMatch(/^http:\/\/127\.0\.0\.1:/);

    await writeFile(
      join(layout.buildDir, 'probe_url.py'),
      'import json, os, urllib.request\nurl = os.environ["AJET_SWARM_URL"]\nstatus = json.load(urllib.request.urlopen(url + "/get_engine_status", timeout=10))["engine_status"]\nprint("probe", url, status, flush=True)\n',
    );
    const request = PoolStartRequest.parse({
      cwd: layout.buildDir,
      projectDir,
      script: 'probe_url.py',
      python,
      swarm: { engineId: engineIdOfServer(SERVER_ID), containerId: jobId, profileId: null },
      batchSize: FORM.batchSize,
      grpoN: FORM.grpoN,
      placements: [{ kind: 'slurm', serverId: SERVER_ID, python: '/usr/bin/python3', partition: tb.slurm.partition, timeLimit: '5', reach: { kind: 'cluster' } }],
      label: 'slurm workers inside the cluster',
    });
    const preview = await workers.handlers['workers:slurm-preview'](request);
    const started = await workers.handlers['workers:start']({ ...request, poolId: preview.poolId });
    poolIds.push(started.poolId);
    expect(started.workers[0]!.state, started.workers[0]!.lastError ?? '').toBe('running');
    const ended = await poll('the probe to end', 60_000, async () => {
      const w = workers.pool.get(started.poolId).workers[0]!;
      return w.state === 'running' ? undefined : w;
    }, 300);
    const log = await workers.handlers['workers:log']({ poolId: started.poolId, index: 0, from: 0, limit: 500 });
    const probe = log.lines.map((l) => l.text).find((t) => t.startsWith('probe '));
    expect(ended.state, log.lines.map((l) => l.text).join('\n')).toBe('exited');
    // The job's node is this machine: NodeAddr 127.0.0.1, and the port the job chose on it (from PORT_BASE up).
    const port = Number(new URL(probe!.split(' ')[1]!).port);
    expect(probe).toBe(`probe http://127.0.0.1:${port} ENGINE.OFFLINE`);
    expect(port).toBeGreaterThanOrEqual(PORT_BASE);
    await engine.removeContainer(jobId);
    serverJobs.splice(serverJobs.indexOf(jobId), 1);
  }, 120_000);
});
