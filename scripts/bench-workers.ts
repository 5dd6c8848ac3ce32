/**
 * `npm run bench -- workers [--seconds N]`: episodes per minute of a worker pool with 4 local workers
 * against 1, in the same run, on one swarm server (issue 34). The agent spends 200 ms per episode
 * (a sleep) and makes one call to a 20 ms fake LLM (the fake swarm server's chat route, TEST DOUBLE,
 * `llmDelayMs: 20`); each worker sleeps for ONE episode at a time (a lock per worker around the sleep, as a
 * single browser or sandbox per machine would be), which is what makes one process unable to fill a batch.
 * Workers are the app's own: the worker pool with local workers through the job runner, the wizard's
 * generated agent_roll.py, the ajet TEST DOUBLE in a venv (AJET_STUB_TIME_SCALE 0.2: upstream's waits and polls
 * five times faster). Each pool is measured over whole training steps: from a change of the global step to the
 * first change after N seconds (default 40). The last line is machine-readable:
 * `BENCH workers scale_4_vs_1=… epm_1=… epm_4=…` (goal: scale ≥ 3.0).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServiceContext } from '../electron/services/domain';
import type { Handlers } from '../electron/services/ipc/handlers';
import { registerJobs } from '../electron/services/jobs/register';
import { setUpProject } from '../electron/services/project/project-files';
import { generateTrainingCode } from '../electron/services/project/training-code';
import type { SwarmModule } from '../electron/services/swarm/register';
import { registerWorkers } from '../electron/services/workers/register';
import { TrainingForm } from '../electron/shared/schemas-wizard';
import { PoolStartRequest } from '../electron/shared/schemas-workers';
import { startFakeSwarmServer } from '../test/fixtures/fake-swarm/server.mjs';
import { MemoryVault } from '../test/support/memory-vault';
import { makeVenv, SAMPLE_AGENT_DIR } from '../test/support/python-env';

const RESOURCES = resolve(import.meta.dirname, '..', 'resources');
const SECONDS = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 40;
const TASKS = 16;
const FORM = TrainingForm.parse({ experimentName: 'bench_workers', modelPath: '/models/debug', grpoN: 2, epochs: 1000, batchSize: TASKS, gpusPerNode: 1, discardEpisodeTimeout: 120 });

/**
 * The sample agent after 200 ms of "work": the sleep is the worker's one agent slot (a lock per worker, from the
 * pool's env), the LLM call (the fake's 20 ms) and Python's own start are not, as a browser or sandbox per
 * machine would be the limit while the LLM serves everyone.
 */
const BENCH_AGENT = `import fcntl, os, sys, time
sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent.py")
import agent
with open(os.path.join(os.environ["BENCH_LOCK_DIR"], "worker-%s.lock" % os.environ.get("AGENTSWARM_WORKER_INDEX", "0")), "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    time.sleep(0.2)
agent.main()
`;

/** Clock ticks per second of /proc's CPU times (100 on Linux; asked once). */
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds (user + system) of one worker process (agent_roll.py) and of the children it has reaped (the agent
 * processes of its episodes: subprocess.run waits for each), from /proc/<pid>/stat; zeros where there is no /proc.
 */
function workerCpu(pid: number | null): { self: number; agents: number } {
  if (pid === null) return { self: 0, agents: 0 };
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name's ")": state is field 3, utime/stime/cutime/cstime are fields 14-17.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ').map(Number);
    return { self: (f[11]! + f[12]!) / TICKS, agents: (f[13]! + f[14]!) / TICKS };
  } catch {
    return { self: 0, agents: 0 };
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-workers-'));
  const projectDir = join(root, 'project');
  await cp(SAMPLE_AGENT_DIR, projectDir, { recursive: true });
  const questions = (await readFile(join(projectDir, 'dataset.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { question: string; answer: string });
  const rows = Array.from({ length: TASKS }, (_u, i) => JSON.stringify({ ...questions[i % questions.length], id: `b${i + 1}` }));
  await writeFile(join(projectDir, 'dataset.jsonl'), `${rows.join('\n')}\n`);
  await writeFile(join(projectDir, 'bench_agent.py'), BENCH_AGENT);
  process.env.AJET_STUB_TIME_SCALE = process.env.AJET_STUB_TIME_SCALE ?? '0.2';
  process.env.BENCH_LOCK_DIR = root;
  const python = await makeVenv(projectDir, { ajet: true });
  const layout = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir, buildId: 'bench_workers', rewardStyle: 'native', agentCommand: '{python} bench_agent.py --item {item_id}' });
  await generateTrainingCode(RESOURCES, layout, { form: FORM, overwrite: [] }, python);
  const swarm = await startFakeSwarmServer({ port: 0, bootDelayMs: 200, weightSyncDelayMs: 100, rollingPostMaxMs: 200, llmDelayMs: 20, quiet: true });

  const context = {
    dataDir: join(root, 'data'),
    events: { emit: () => undefined },
    vault: new MemoryVault(),
    logger: { warn: () => undefined, info: () => undefined },
    notifier: { notify: () => undefined },
  } as unknown as ServiceContext;
  const swarmModule = { monitor: { statuses: () => [{ engineId: 'local', containerId: 'bench0swarm', url: swarm.url, connection: 'online' }] } } as unknown as Pick<SwarmModule, 'monitor'>;
  const jobs = registerJobs(context, { swarm: swarmModule, tuning: { logBatchMs: 50 } });
  const handlers = { ...jobs.handlers } as unknown as Handlers;
  const workers = registerWorkers(context, { jobs: jobs.api, swarm: swarmModule, handlers: () => handlers, tuning: { pollMs: 250, progressEverySeconds: 1 } });
  await jobs.start?.();
  await workers.start?.();

  const measure = async (count: number): Promise<number> => {
    const request = PoolStartRequest.parse({
      cwd: layout.buildDir,
      python,
      swarm: { engineId: 'local', containerId: 'bench0swarm', profileId: null },
      batchSize: FORM.batchSize,
      grpoN: FORM.grpoN,
      placements: Array.from({ length: count }, () => ({ kind: 'local' })),
      label: `bench ${count}`,
    });
    const pool = await workers.handlers['workers:start'](request);
    const episodes = (): number => workers.pool.get(pool.poolId).episodes;
    const warmDeadline = Date.now() + 120_000;
    while (workers.pool.get(pool.poolId).workers.some((w) => w.episodes === 0)) {
      const failed = workers.pool.get(pool.poolId).workers.find((w) => w.state === 'failed');
      if (failed) throw new Error(`worker ${failed.index + 1} failed: ${failed.lastError}`);
      if (Date.now() > warmDeadline) throw new Error(`the ${count}-worker pool ended no episode in 120 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // Whole training steps only: a window from one step change to another (after at least N seconds), so each
    // pool's rate includes its share of the weight syncs, and no window ends mid-batch.
    const stepChange = async (): Promise<void> => {
      const step = swarm.state.globalStep ?? 0;
      while ((swarm.state.globalStep ?? 0) === step) await new Promise((r) => setTimeout(r, 50));
    };
    await stepChange();
    // Where the window's CPU goes (measurement only): the worker processes, their agents, this process (the app's job
    // runner and worker pool, and the fake swarm server with its fake LLM, TEST DOUBLE, which run in it).
    const cpu = (): { self: number; agents: number; node: number } => {
      const sums = workers.pool.get(pool.poolId).workers.map((w) => workerCpu(w.pid)).reduce((a, b) => ({ self: a.self + b.self, agents: a.agents + b.agents }), { self: 0, agents: 0 });
      const usage = process.cpuUsage();
      return { ...sums, node: (usage.user + usage.system) / 1e6 };
    };
    const [cpuFrom, loadFrom] = [cpu(), loadavg()[0]!];
    const [from, started, firstStep] = [episodes(), Date.now(), swarm.state.globalStep ?? 0];
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    await stepChange();
    // The progress line of the batch's last episodes comes within a second (AGENTSWARM_PROGRESS_EVERY_S=1).
    await new Promise((r) => setTimeout(r, 1500));
    const steps = (swarm.state.globalStep ?? 0) - firstStep;
    const [cpuTo, loadTo] = [cpu(), loadavg()[0]!];
    const ended = episodes() - from;
    const perMinute = (ended / (Date.now() - 1500 - started)) * 60_000;
    const calls = workers.pool.get(pool.poolId).workers.map((w) => w.llmCalls ?? 0).reduce((a, b) => a + b, 0);
    if (process.env.BENCH_DEBUG) {
      const log = workers.handlers['workers:log']({ poolId: pool.poolId, index: 0, from: 0, limit: 5000 });
      console.log((await log).lines.slice(-40).map((l) => l.text).join('\n'));
    }
    await workers.handlers['workers:stop-all']({ poolId: pool.poolId });
    console.log(`${count} worker(s): ${perMinute.toFixed(1)} episodes/min over ${steps} training steps (${calls} LLM calls reported by the workers)`);
    const ms = (seconds: number): string => ((seconds * 1000) / Math.max(1, ended)).toFixed(1);
    const [agents, rolls, node] = [cpuTo.agents - cpuFrom.agents, cpuTo.self - cpuFrom.self, cpuTo.node - cpuFrom.node];
    console.log(
      `${count} worker(s) CPU per episode: agent processes ${ms(agents)} ms, agent_roll.py ${ms(rolls)} ms, ` +
        `bench process (job runner + worker pool + fake swarm server and LLM, TEST DOUBLE) ${ms(node)} ms, total ${ms(agents + rolls + node)} ms ` +
        `(${ended} episodes; load average ${loadFrom.toFixed(1)} → ${loadTo.toFixed(1)})`,
    );
    return perMinute;
  };

  try {
    const one = await measure(1);
    const four = process.env.BENCH_ONLY_ONE ? one : await measure(4);
    console.log(`BENCH workers scale_4_vs_1=${(four / one).toFixed(2)} epm_1=${one.toFixed(1)} epm_4=${four.toFixed(1)}`);
  } finally {
    await workers.dispose?.();
    await jobs.dispose?.();
    await swarm.close();
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
