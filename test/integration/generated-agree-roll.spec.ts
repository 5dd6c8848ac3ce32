// The wizard's generated agent_roll.py with an agree-based sample collection method, run for real against the app's
// dry run with the ajet TEST DOUBLE (a venv in a temp copy of the sample agent; the fake LLM as the debug LLM).
// With rollout_until_any_client_agree_sync_weight the server trains only when a client agrees: agent_roll.py calls
// agree_sync_weight() after each batch and waits to see the weight sync (reference §2). Issue 30: a sync shorter
// than the client's status poll was never seen and the job hung; here two agreements take it to global step 3.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setUpProject, type ProjectLayout } from '../../electron/services/project/project-files';
import { generateTrainingCode } from '../../electron/services/project/training-code';
import { DRY_RUN_TRAINING_STEP_MS } from '../../electron/shared/schemas-dryrun';
import { RESULT_LINE_PREFIX } from '../../electron/shared/schemas-jobs';
import { TrainingForm } from '../../electron/shared/schemas-wizard';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { poll } from '../support/helpers';
import { makeVenv, SAMPLE_AGENT_DIR } from '../support/python-env';
import { startTestApp, type TestApp } from '../support/test-app';

const RESOURCES = resolve(import.meta.dirname, '..', '..', 'resources');
const KEY = 'sk-generated-agree-roll-key-0123456789abcdef';
const MODEL = 'fake-debug-model';
/** The ajet stub scales every client wait by this (5 s status polls → 0.25 s). */
const TIME_SCALE = 0.05;
/** 4 tasks × 2 episodes, 2 tasks per batch: two batches, so two agreements → steps 1 → 2 → 3. */
const FORM = TrainingForm.parse({
  experimentName: 'agree_roll_it',
  modelPath: '/models/debug',
  grpoN: 2,
  epochs: 1,
  batchSize: 2,
  gpusPerNode: 1,
  discardEpisodeTimeout: 60,
  sampleCollectionMethod: 'rollout_until_any_client_agree_sync_weight',
});

let projectDir: string;
let python: string;
let layout: ProjectLayout;
let llm: FakeLlm;
let app: TestApp | null = null;

beforeAll(async () => {
  projectDir = await mkdtemp(join(tmpdir(), 'generated-agree-roll-'));
  await cp(SAMPLE_AGENT_DIR, projectDir, { recursive: true });
  python = await makeVenv(projectDir, { ajet: true });
  layout = await setUpProject(RESOURCES, { mode: 'scaffold', projectDir, buildId: 'it_agree', rewardStyle: 'native', agentCommand: '{python} agent.py --item {item_id}' });
  await generateTrainingCode(RESOURCES, layout, { form: FORM, overwrite: [] }, python);
  llm = await startFakeLlm({ requireKey: KEY, model: MODEL });
}, 60_000);

afterAll(async () => {
  if (app) {
    await app.stop();
    await rm(app.dataDir, { recursive: true, force: true });
  }
  await llm?.close();
  if (projectDir) await rm(projectDir, { recursive: true, force: true });
});

function runAgentRoll(swarmUrl: string): Promise<{ code: number; stdout: string; stderr: string; result: Record<string, unknown> | null }> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    AJET_STUB_TIME_SCALE: String(TIME_SCALE),
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.url,
    OPENAI_MODEL: MODEL,
    AJET_SWARM_URL: swarmUrl,
    REMOTE_MODEL_PATH: FORM.modelPath,
  };
  return new Promise((done) => {
    execFile(python, [join(layout.buildDir, 'agent_roll.py')], { cwd: layout.buildDir, env, timeout: 90_000, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const line = stdout
        .split('\n')
        .filter((l) => l.startsWith(RESULT_LINE_PREFIX))
        .at(-1);
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr, result: line ? (JSON.parse(line.slice(RESULT_LINE_PREFIX.length)) as Record<string, unknown>) : null });
    });
  });
}

it('agent_roll.py with rollout_until_any_client_agree_sync_weight agrees after each batch and reaches global step 3 on the dry run', async () => {
  app = await startTestApp({ monitorIntervalMs: 200 });
  const { handlers } = app;
  // The dry run's default training step, scaled like the client's waits: what a real client meets at full scale.
  const view = await handlers['dryrun:start']({
    config: { port: null, llm: { baseUrl: llm.url, model: MODEL, secretId: null }, bootDelayMs: 300, trainingStepMs: DRY_RUN_TRAINING_STEP_MS * TIME_SCALE, spend: { maxCallsPerEpisode: 50, maxCalls: 2000, maxTokens: 2_000_000 } },
    sessionKey: KEY,
  });
  const run = await runAgentRoll(view.url!);
  const explain = `exit ${run.code}\nstdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr.slice(-3000)}`;
  expect(run.code, explain).toBe(0);
  expect(run.result, explain).toMatchObject({ episodes: 8, failed_episodes: 0, experiment_name: FORM.experimentName });
  // Two agreements were made and seen (agree_sync_weight returned each time): steps 1 → 2 → 3.
  await poll('the dry run at global step 3', 15_000, async () => (((await handlers['dryrun:view']({})).globalStep ?? 0) >= 3 ? true : undefined));
  const traces = await handlers['dryrun:traces']({ step: null, taskId: null, offset: 0, limit: 100 });
  const walk = traces.steps.filter((s) => s.status === 'ENGINE.ROLLING_POST').map((s) => s.reason ?? '');
  expect(walk).toHaveLength(2);
  for (const reason of walk) expect(reason).toContain('agreed to sync weights');
  expect((await handlers['dryrun:view']({})).train?.sampleCollectionMethod).toBe('rollout_until_any_client_agree_sync_weight');
}, 180_000);
