// The wizard's generated Python scripts, run for real: a temp project (a copy of the sample agent) with a
// `.venv` in which the ajet TEST DOUBLE is importable, the scaffold written by setUpProject, the training code
// written and py_compiled by generateTrainingCode, then every script run by the venv's Python with the
// environment the job runner gives (LLM credentials only as env, never argv). The LLM is the TEST DOUBLE fake
// LLM; the swarm is the app's dry run (through startTestApp's handlers) and the TEST DOUBLE fake swarm server
// reached through an SSH tunnel over the test bed's sshd. Needs the test bed (sshd) for the last part.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../electron/services/ssh/ssh-connection';
import { SshTunnel } from '../../electron/services/ssh/tunnel';
import { setUpProject, type ProjectLayout } from '../../electron/services/project/project-files';
import { generateTrainingCode } from '../../electron/services/project/training-code';
import { datasetProbePath } from '../../electron/services/project/templates';
import { RESULT_LINE_PREFIX } from '../../electron/shared/schemas-jobs';
import { TrainingForm } from '../../electron/shared/schemas-wizard';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../fixtures/fake-swarm/server.mjs';
import { poll } from '../support/helpers';
import { makeVenv, SAMPLE_AGENT_DIR } from '../support/python-env';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectToTestbed } from '../support/testbed-ssh';

const RESOURCES = resolve(import.meta.dirname, '..', '..', 'resources');
const KEY = 'sk-generated-scripts-key-0123456789abcdef';
const MODEL = 'fake-debug-model';
const AGENT_COMMAND = '{python} agent.py --item {item_id}';
/** Small enough to finish: 4 tasks × 2 episodes per epoch, 2 tasks per step → two steps in one epoch. */
const FORM = TrainingForm.parse({ experimentName: 'generated_scripts_it', modelPath: '/models/debug', grpoN: 2, epochs: 1, batchSize: 2, gpusPerNode: 1, discardEpisodeTimeout: 60 });
const SCRIPT_TIMEOUT_MS = 90_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  result: Record<string, unknown> | null;
}

let projectDir: string;
let python: string;
let native: ProjectLayout;
let llm: FakeLlm;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  projectDir = await mkdtemp(join(tmpdir(), 'generated-scripts-'));
  await cp(SAMPLE_AGENT_DIR, projectDir, { recursive: true });
  python = await makeVenv(projectDir, { ajet: true });
  native = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir, buildId: 'it_native', rewardStyle: 'native', agentCommand: AGENT_COMMAND });
  await generateTrainingCode(RESOURCES, native, { form: FORM, overwrite: [] }, python);
  llm = await startFakeLlm({ requireKey: KEY, model: MODEL });
}, 60_000);

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => {
  await llm?.close();
  if (projectDir) await rm(projectDir, { recursive: true, force: true });
});

/** What the job runner gives a run (job-preflight.ts jobEnv): the LLM endpoint and the swarm as env. */
function runnerEnv(swarmUrl: string | null): Record<string, string> {
  const env: Record<string, string> = {
    PYTHONUNBUFFERED: '1',
    PYTHONIOENCODING: 'utf-8',
    PYTHONDONTWRITEBYTECODE: '1',
    AJET_STUB_TIME_SCALE: '0.05',
    OPENAI_API_KEY: KEY,
    API_KEY: KEY,
    OPENAI_BASE_URL: llm.url,
    BASE_URL: llm.url,
    OPENAI_MODEL: MODEL,
    AJET_DEBUG_MODEL: MODEL,
  };
  if (swarmUrl !== null) Object.assign(env, { AJET_SWARM_URL: swarmUrl, REMOTE_MODEL_PATH: FORM.modelPath });
  return env;
}

function runScript(script: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  expect([script, ...args].join(' ')).not.toContain(KEY);
  return new Promise((done) => {
    execFile(python, [script, ...args], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...env }, timeout: SCRIPT_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const line = stdout
        .split('\n')
        .filter((l) => l.startsWith(RESULT_LINE_PREFIX))
        .at(-1);
      done({
        code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
        stdout,
        stderr,
        result: line ? (JSON.parse(line.slice(RESULT_LINE_PREFIX.length)) as Record<string, unknown>) : null,
      });
    });
  });
}

const explain = (run: Run) => `exit ${run.code}\nstdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr.slice(-3000)}`;

describe('the scaffolded scripts', () => {
  it('the collector, through probe_dataset.py, finds the sample dataset: 4 items, q1 first', async () => {
    const run = await runScript(datasetProbePath(RESOURCES), [native.collectorFile], native.buildDir, {});
    expect(run.code, explain(run)).toBe(0);
    expect(run.result).toMatchObject({ reward: null, count: 4 });
    expect((run.result!.items as { id: string }[]).map((i) => i.id)).toEqual(['q1', 'q2', 'q3', 'q4']);
  });

  it('run_episode_once.py q1 runs the agent with the env credentials: reward 1 (native)', async () => {
    const before = llm.calls.length;
    const run = await runScript(native.episodeFile, ['q1'], native.buildDir, runnerEnv(null));
    expect(run.code, explain(run)).toBe(0);
    expect(run.result).toMatchObject({ reward: 1, item_id: 'q1', reward_style: 'native' });
    const calls = llm.calls.slice(before).filter((c) => c.path === '/v1/chat/completions');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(run.result)).not.toContain(KEY);
  });

  it('an agent that fails is a failed run naming why, not a reward', async () => {
    const run = await runScript(native.episodeFile, ['no-such-item'], native.buildDir, runnerEnv(null));
    expect(run.code).toBe(1);
    expect(run.result).toBeNull();
    expect(run.stderr).toContain("no item 'no-such-item' in dataset.jsonl");
  });

  it('the judge reward style asks the LLM to grade the answer and takes its number', async () => {
    const judge = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir, buildId: 'it_judge', rewardStyle: 'judge', agentCommand: AGENT_COMMAND });
    const before = llm.calls.length;
    llm.script([
      { kind: 'text', text: 'an apple' },
      { kind: 'text', text: 'The answer names the fruit.\n{"score": 0.7, "why": "close enough"}' },
    ]);
    const run = await runScript(judge.episodeFile, ['q1'], judge.buildDir, runnerEnv(null));
    expect(run.code, explain(run)).toBe(0);
    expect(run.result).toMatchObject({ reward: 0.7, item_id: 'q1', reward_style: 'judge' });
    const calls = llm.calls.slice(before).filter((c) => c.path === '/v1/chat/completions');
    expect(calls).toHaveLength(2);
    // The judge saw the task and the agent's answer.
    const prompt = JSON.stringify((calls[1]!.body as { messages: unknown[] }).messages);
    expect(prompt).toContain('Reply with the single word apple.');
    expect(prompt).toContain('an apple');
  });
});

describe('the roll scripts against the dry run', () => {
  let app: TestApp | null = null;
  afterEach(async () => {
    if (app) {
      // stop(), not dispose(): dispose removes every labelled test container of the shared dockerd; the dry run made none.
      await app.stop();
      await rm(app.dataDir, { recursive: true, force: true });
      app = null;
    }
  });

  it('the debug episode gets a reward and trains nothing; agent_roll.py advances the global step', async () => {
    app = await startTestApp({ monitorIntervalMs: 200 });
    const { handlers } = app;
    const view = await handlers['dryrun:start']({
      config: { port: null, llm: { baseUrl: llm.url, model: MODEL, secretId: null }, bootDelayMs: 300, trainingStepMs: 300, spend: { maxCallsPerEpisode: 50, maxCalls: 2000, maxTokens: 2_000_000 } },
      sessionKey: KEY,
    });
    const url = view.url!;

    const debug = await runScript(join(native.buildDir, 'agent_roll_one_episode_debug.py'), [], native.buildDir, runnerEnv(url));
    expect(debug.code, explain(debug)).toBe(0);
    expect(debug.result).toMatchObject({ reward: 1, task_id: 'q1', item_id: 'q1' });
    const afterDebug = await handlers['dryrun:traces']({ step: null, taskId: null, offset: 0, limit: 100 });
    const debugEpisode = afterDebug.episodes.find((e) => e.episodeUuid === debug.result!.episode_uuid);
    // Given back by design, and traced as what it was: a debug episode with the reward the script reported.
    expect(debugEpisode).toMatchObject({ state: 'aborted', debug: { reward: 1 }, taskId: 'q1', llmCalls: 1 });
    expect(debugEpisode?.detail).toContain('debug episode');
    expect(afterDebug.episodes.filter((e) => e.state === 'ended')).toEqual([]);

    const firstStep = (await handlers['dryrun:view']({})).globalStep ?? 0;
    const train = await runScript(join(native.buildDir, 'agent_roll.py'), [], native.buildDir, runnerEnv(url));
    expect(train.code, explain(train)).toBe(0);
    expect(train.result).toMatchObject({ episodes: 8, failed_episodes: 0, experiment_name: FORM.experimentName });
    expect(train.result!.reward).toBeCloseTo(0.5); // q1 and q3 are in the fake LLM's echo, q2 and q4 are not
    await poll('the dry run to finish a step', 15_000, async () => (((await handlers['dryrun:view']({})).globalStep ?? 0) > firstStep ? true : undefined));
    const traces = await handlers['dryrun:traces']({ step: null, taskId: null, offset: 0, limit: 100 });
    expect(traces.taskIds.sort()).toEqual(['q1', 'q2', 'q3', 'q4']);
    expect(traces.episodes.filter((e) => e.state === 'ended')).toHaveLength(8);
  }, 180_000);
});

describe('the roll scripts against the fake swarm through an SSH tunnel', () => {
  let connection: SshConnection | null = null;
  let swarm: FakeSwarmHandle | null = null;
  let tunnel: SshTunnel | null = null;
  beforeAll(async () => {
    swarm = await startFakeSwarmServer({ port: 0, bootDelayMs: 300, weightSyncDelayMs: 200, rollingPostMaxMs: 500, quiet: true });
    connection = await connectToTestbed({ readyTimeoutMs: 60_000 });
    const remotePort = swarm.port;
    tunnel = await SshTunnel.open({ openChannel: () => connection!.forwardOut('127.0.0.1', remotePort), remotePort, localPort: 0 });
  }, 30_000);
  afterAll(async () => {
    await tunnel?.close();
    await connection?.close();
    await swarm?.close();
  });

  it('the debug episode gets a reward and trains nothing; agent_roll.py advances the global step', async () => {
    const debug = await runScript(join(native.buildDir, 'agent_roll_one_episode_debug.py'), [], native.buildDir, runnerEnv(tunnel!.url));
    expect(debug.code, explain(debug)).toBe(0);
    expect(debug.result).toMatchObject({ task_id: 'q1', item_id: 'q1' });
    expect(typeof debug.result!.reward).toBe('number');
    expect(swarm!.state.finished.size).toBe(0);
    expect(swarm!.state.trainConfigYaml).toContain('experiment_name: generated_scripts_it');

    const firstStep = swarm!.state.globalStep ?? 0;
    const train = await runScript(join(native.buildDir, 'agent_roll.py'), [], native.buildDir, runnerEnv(tunnel!.url));
    expect(train.code, explain(train)).toBe(0);
    expect(train.result).toMatchObject({ episodes: 8, failed_episodes: 0 });
    await poll('the fake swarm to finish a step', 15_000, async () => ((swarm!.state.globalStep ?? 0) > firstStep ? true : undefined));
    expect(tunnel!.channelFailures).toBe(0);
  }, 180_000);

  it('training whose agent always fails gives every episode back and ends with exit 1 saying why', async () => {
    const broken = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir, buildId: 'it_broken', rewardStyle: 'native', agentCommand: '{python} agent.py --item missing-{item_id}' });
    await generateTrainingCode(RESOURCES, broken, { form: FORM, overwrite: [] }, python);
    // The previous run's last batch may still be weight-syncing (one step per batch): wait until the
    // step stays put for 1.5 s (3× the fake's rolling-post + weight-sync time) before taking it.
    let step = swarm!.state.globalStep;
    for (let stableSince = Date.now(); Date.now() - stableSince < 1500; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (swarm!.state.globalStep !== step) {
        step = swarm!.state.globalStep;
        stableSince = Date.now();
      }
    }
    const train = await runScript(join(broken.buildDir, 'agent_roll.py'), [], broken.buildDir, runnerEnv(tunnel!.url));
    expect(train.code, explain(train)).toBe(1);
    expect(train.result).toMatchObject({ episodes: 0, failed_episodes: 8, stopped: expect.stringContaining('none of the 8 episodes gave a reward') });
    expect(train.stderr).toContain("no item 'missing-q1' in dataset.jsonl");
    expect(swarm!.state.globalStep).toBe(step);
  }, 180_000);
});

describe('the roll script as one of many clients', () => {
  let swarm: FakeSwarmHandle | null = null;
  let proxy: Server | null = null;
  afterAll(async () => {
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    await swarm?.close();
  });

  // A worker pool starts its clients together: each may see OFFLINE, and all but the first then get the
  // server's 400 ("Engine is already started…"). That race is a few milliseconds wide on loopback, so this
  // test widens it: a proxy in front of the TEST DOUBLE fake swarm holds the first sync 3 s (the others see
  // OFFLINE meanwhile and sync too), and every later sync until the first client's start left OFFLINE.
  it('three clients started at once against an OFFLINE engine: one starts it, the others join it, all train', async () => {
    swarm = await startFakeSwarmServer({ port: 0, bootDelayMs: 300, weightSyncDelayMs: 200, rollingPostMaxMs: 500, quiet: true });
    const upstream = swarm;
    let syncs = 0;
    proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => void forward());
      const forward = async (): Promise<void> => {
        if (request.url === '/sync_train_config' && ++syncs === 1) {
          // The first sync waits until the others had time to see OFFLINE too (they start together).
          await new Promise((resolve) => setTimeout(resolve, 3_000));
        } else if (request.url === '/sync_train_config') {
          await poll('the first client to start the engine', 30_000, async () => (upstream.state.status !== 'ENGINE.OFFLINE' ? true : undefined));
        }
        const answer = await fetch(`${upstream.url}${request.url}`, {
          method: request.method,
          headers: Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)) as [string, string][]),
          ...(request.method === 'GET' ? {} : { body: Buffer.concat(chunks) }),
        });
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      };
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

    const runs = await Promise.all([0, 1, 2].map(() => runScript(join(native.buildDir, 'agent_roll.py'), [], native.buildDir, runnerEnv(url))));
    for (const run of runs) {
      expect(run.code, explain(run)).toBe(0);
      // Three clients share one engine's steps: an episode may be dropped by a weight sync (upstream's client
      // gives it back), so each ran its 8 but not always 8 with a reward.
      expect(run.result).toMatchObject({ episodes: expect.any(Number), failed_episodes: expect.any(Number) });
      expect((run.result!.episodes as number) + (run.result!.failed_episodes as number), explain(run)).toBe(8);
      expect(run.result!.episodes as number).toBeGreaterThan(0);
    }
    // At least one client lost the race (a third may already see BOOTING and just wait); each loser said so.
    expect(syncs).toBeGreaterThanOrEqual(2);
    expect(runs.filter((run) => run.stderr.includes('another client started the engine first'))).toHaveLength(syncs - 1);
    // Started once, never restarted: the clients that lost the race joined the winner's engine.
    expect(upstream.state.statusHistory.filter((status) => status === 'ENGINE.BOOTING')).toHaveLength(1);
  }, 180_000);
});
