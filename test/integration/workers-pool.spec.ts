// Rollout worker pools end to end (issue 34): the wizard's generated agent_roll.py on 2 local workers (the job
// runner) and 2 SSH workers on a real sshd of the test's own (the project copied over SFTP, started detached), all
// feeding the TEST DOUBLE fake swarm server; one SSH worker reaches it directly (checked with GET /health from
// the worker), the other through a reverse tunnel to this computer. The ajet TEST DOUBLE is the only AgentJet.
// The sshd is the test's own (WorkerHostSshd, logging in as the user running the tests): the shared test bed's
// sshd user may belong to another checkout's test bed, whose home the workers must not write into.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../electron/services/domain';
import type { Handlers } from '../../electron/services/ipc/handlers';
import { groupAlive } from '../../electron/services/jobs/process-tree';
import { registerJobs, type JobsModule } from '../../electron/services/jobs/register';
import { setUpProject, type ProjectLayout } from '../../electron/services/project/project-files';
import { generateTrainingCode } from '../../electron/services/project/training-code';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import type { SwarmModule } from '../../electron/services/swarm/register';
import { registerWorkers, type WorkersModule } from '../../electron/services/workers/register';
import { TUNNEL_NOTE } from '../../electron/services/workers/ssh-workers';
import type { AppNotification } from '../../electron/shared/schemas-profiles';
import { TrainingForm } from '../../electron/shared/schemas-wizard';
import { PoolStartRequest, type PoolViewData } from '../../electron/shared/schemas-workers';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../fixtures/fake-swarm/server.mjs';
import { poll } from '../support/helpers';
import { AJET_STUB_DIR, makeVenv, SAMPLE_AGENT_DIR } from '../support/python-env';
import { MemoryVault } from '../support/memory-vault';
import { WorkerHostSshd } from '../support/worker-host-sshd';

const RESOURCES = resolve(import.meta.dirname, '..', '..', 'resources');
const FORM = TrainingForm.parse({ experimentName: 'workers_it', modelPath: '/models/debug', grpoN: 2, epochs: 1000, batchSize: 4, gpusPerNode: 1, discardEpisodeTimeout: 60 });
/** Where the test puts a pip-installable copy of the ajet TEST DOUBLE: the source of "create a venv and install the AgentJet client". */
let stubPackage: string;
/** Whether the app's client venv was there before this test (then it is left in place). */
let venvExisted = false;
const SERVER_ID = 'testbed-worker-host';

let projectDir: string;
let python: string;
let layout: ProjectLayout;
let swarm: FakeSwarmHandle;
let connection: SshConnection;
const sshd = new WorkerHostSshd();
const notifications: AppNotification[] = [];
let app: { jobs: JobsModule; workers: WorkersModule } | null = null;

async function openApp(): Promise<{ jobs: JobsModule; workers: WorkersModule }> {
  const context = {
    dataDir: join(projectDir, '..', `${projectDir.split('/').pop()}-data`),
    events: { emit: () => undefined },
    vault: new MemoryVault(),
    logger: { warn: () => undefined, info: () => undefined },
    notifier: { notify: (n: AppNotification) => notifications.push(n) },
  } as unknown as ServiceContext;
  const status = { engineId: 'local', containerId: 'fake0swarm', url: swarm.url, connection: 'online' };
  const swarmModule = { monitor: { statuses: () => [status] } } as unknown as Pick<SwarmModule, 'monitor'>;
  const jobs = registerJobs(context, { swarm: swarmModule, tuning: { killTimeouts: { intMs: 2000, termMs: 1000 }, disposeKillTimeouts: { intMs: 1000, termMs: 500 }, logBatchMs: 50 } });
  const handlers = { ...jobs.handlers } as unknown as Handlers;
  const servers = { connectionOf: () => Promise.resolve(connection), labelOf: () => 'testbed' };
  const workers = registerWorkers(context, { jobs: jobs.api, swarm: swarmModule, servers, handlers: () => handlers, tuning: { pollMs: 300, progressEverySeconds: 1 } });
  await jobs.start?.();
  await workers.start?.();
  app = { jobs, workers };
  return app;
}

async function closeApp(): Promise<void> {
  if (!app) return;
  await app.workers.dispose?.();
  await app.jobs.dispose?.();
  app = null;
}

async function remotePidAlive(pid: number): Promise<boolean> {
  return (await connection.exec(`kill -0 ${pid} 2>/dev/null`)).code === 0;
}

/** The time scale before this file set its own: put back after (the integration files share one process). */
const timeScaleBefore = process.env.AJET_STUB_TIME_SCALE;

beforeAll(async () => {
  process.env.AJET_STUB_TIME_SCALE = '0.05';
  projectDir = await mkdtemp(join(tmpdir(), 'workers-it-'));
  await cp(SAMPLE_AGENT_DIR, projectDir, { recursive: true });
  python = await makeVenv(projectDir, { ajet: true });
  layout = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir, buildId: 'it_workers', rewardStyle: 'native', agentCommand: '{python} agent.py --item {item_id}' });
  await generateTrainingCode(RESOURCES, layout, { form: FORM, overwrite: [] }, python);
  swarm = await startFakeSwarmServer({ port: 0, bootDelayMs: 200, weightSyncDelayMs: 150, rollingPostMaxMs: 300, quiet: true });
  await sshd.start();
  connection = await sshd.connect();
  // The ajet TEST DOUBLE as a package pip can install without a network (setuptools is in Python 3.11's venvs).
  stubPackage = `${projectDir}-ajet-package`;
  await cp(join(AJET_STUB_DIR, 'ajet'), join(stubPackage, 'ajet'), { recursive: true });
  await writeFile(join(stubPackage, 'setup.py'), 'from setuptools import setup, find_packages\nsetup(name="agentjet", version="0.0.0+stub", packages=find_packages())\n');
  venvExisted = (await connection.exec('[ -d "$HOME/.agentswarm/venvs/agentjet-client" ]')).code === 0;
}, 60_000);

afterAll(async () => {
  if (timeScaleBefore === undefined) delete process.env.AJET_STUB_TIME_SCALE;
  else process.env.AJET_STUB_TIME_SCALE = timeScaleBefore;
  const pools = app?.workers.pool.list() ?? [];
  for (const pool of pools) await app?.workers.pool.stopAll(pool.poolId).catch(() => undefined);
  await closeApp();
  const ids = pools.map((p) => p.poolId);
  for (const id of ids) await connection?.exec(`rm -rf "$HOME/.agentswarm/workers/${id}"-*`).catch(() => undefined);
  await connection?.exec(`rm -rf "$HOME/.agentswarm/projects/${projectDir.split('/').pop()}"`).catch(() => undefined);
  if (!venvExisted) await connection?.exec('rm -rf "$HOME/.agentswarm/venvs/agentjet-client"').catch(() => undefined);
  await connection?.close();
  await sshd.dispose();
  await swarm?.close();
  if (projectDir) {
    await rm(projectDir, { recursive: true, force: true });
    await rm(`${projectDir}-data`, { recursive: true, force: true });
    await rm(stubPackage, { recursive: true, force: true });
  }
});

describe('a worker pool of 2 local and 2 SSH workers', () => {
  it('trains to step 3, marks a killed worker while the run goes on, is found again after an app restart, and stop all leaves no process', async () => {
    const { workers } = await openApp();
    // "Create a venv and install the AgentJet client" on the host: the command shown is the one that runs.
    const plan = await workers.handlers['workers:client-venv-plan']({ serverId: SERVER_ID, source: stubPackage });
    expect(plan.command).toContain('python3 -m venv "$HOME"/.agentswarm/venvs/agentjet-client && ');
    expect(plan.command).toContain(`-m pip install --disable-pip-version-check --no-input '${stubPackage}'`);
    const venv = await workers.handlers['workers:client-venv-create']({ serverId: SERVER_ID, source: stubPackage });
    expect(venv.command).toBe(plan.command);
    expect(venv.output.join('\n')).toContain('ajet');
    const REMOTE_PYTHON = `AJET_STUB_TIME_SCALE=0.05 ${venv.python}`;
    const request = PoolStartRequest.parse({
      cwd: layout.buildDir,
      projectDir,
      python,
      swarm: { engineId: 'local', containerId: 'fake0swarm', profileId: null },
      batchSize: FORM.batchSize,
      grpoN: FORM.grpoN,
      placements: [
        { kind: 'local' },
        { kind: 'local' },
        { kind: 'ssh', serverId: SERVER_ID, python: REMOTE_PYTHON, reach: { kind: 'direct', url: swarm.url } },
        { kind: 'ssh', serverId: SERVER_ID, python: REMOTE_PYTHON, reach: { kind: 'tunnel' } },
      ],
      label: 'workers it',
    });
    const started = await workers.handlers['workers:start'](request);
    const id = started.poolId;
    const view = (): PoolViewData => workers.pool.get(id);
    // What a failed state assertion prints: each worker's state and why (official CI of stop 40 said only "exit 1").
    const why = (v: PoolViewData = view()): string => JSON.stringify(v.workers.map((w) => ({ state: w.state, lastError: w.lastError, note: w.note })));
    expect(started.workers.map((w) => w.state), JSON.stringify(started.workers.map((w) => w.lastError))).toEqual(['running', 'running', 'running', 'running']);
    expect(started.split.shares.map((s) => s.batchShare)).toEqual([1, 1, 1, 1]);
    expect(started.workers[3]!.note).toContain(TUNNEL_NOTE);
    expect(started.workers[2]!.note).toMatch(/project [0-9a-f]{16}: \d+ file\(s\) sent/);

    await poll('every worker to finish episodes', 90_000, async () => (view().workers.every((w) => w.episodes > 0 && w.clientUuid !== null) ? true : undefined), 300);
    // Each worker's client uuid is one the server's pool knows.
    const uuids = view().workers.map((w) => w.clientUuid!);
    expect(new Set(uuids).size).toBe(4);
    // The LLM-calls column: the workers' own counts (each episode of the sample agent makes one call).
    await poll('every worker to report its LLM calls', 30_000, async () => (view().workers.every((w) => (w.llmCalls ?? 0) > 0) ? true : undefined), 300);
    await poll('global step 1', 60_000, async () => ((swarm.state.globalStep ?? 0) >= 1 ? true : undefined), 200);

    // A worker killed on its host: marked failed, told once; training goes on.
    const victim = view().workers[2]!;
    await connection.exec(`kill -9 ${victim.pid}`);
    await poll('the killed worker to be marked', 20_000, async () => (view().workers[2]!.state === 'failed' ? true : undefined), 200);
    const stepAtKill = swarm.state.globalStep ?? 0;
    await poll('global step 3 and beyond the kill', 90_000, async () => ((swarm.state.globalStep ?? 0) >= Math.max(3, stepAtKill + 1) ? true : undefined), 200);
    expect(notifications.filter((n) => n.kind === 'worker-died'), `${JSON.stringify(notifications)} ${why()}`).toHaveLength(1);
    expect(view().workers.map((w) => w.state), why()).toEqual(['running', 'running', 'failed', 'running']);

    // An app restart: the SSH worker still runs and is found by its pid; the local ones start again.
    const sshPid = view().workers[3]!.pid!;
    await closeApp();
    expect(await remotePidAlive(sshPid)).toBe(true);
    const second = await openApp();
    const again = second.workers.pool.get(id);
    expect(again.workers.map((w) => w.state), why(again)).toEqual(['running', 'running', 'failed', 'running']);
    expect(again.workers[3]!.pid).toBe(sshPid);
    const stepBefore = swarm.state.globalStep ?? 0;
    await poll('training to go on after the restart', 90_000, async () => ((swarm.state.globalStep ?? 0) > stepBefore ? true : undefined), 200);

    const stopped = await second.workers.handlers['workers:stop-all']({ poolId: id });
    expect(stopped.workers.map((w) => w.state), why(stopped)).toEqual(['stopped', 'stopped', 'failed', 'stopped']);
    for (const w of stopped.workers.filter((w) => w.placement.kind === 'local')) expect(groupAlive(w.pid!)).toBe(false);
    for (const w of stopped.workers.filter((w) => w.placement.kind === 'ssh')) expect(await remotePidAlive(w.pid!)).toBe(false);
    // Nothing of the pool runs on the host (its run folders name every process it started).
    const leftovers = await connection.exec(`for d in "$HOME/.agentswarm/workers/${id}"-*; do p=$(cat "$d/pid" 2>/dev/null); [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"; done; true`);
    expect(leftovers.stdout.trim()).toBe('');
    // No secret file is left behind on the host.
    const envFiles = await connection.exec(`ls "$HOME/.agentswarm/workers/${id}"-*/env 2>/dev/null | wc -l`);
    expect(envFiles.stdout.trim()).toBe('0');
  }, 400_000);
});
