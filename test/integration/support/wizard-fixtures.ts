import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { EventHub } from '../../../electron/services/events';
import { invokeContract, type InvokeChannel, type InvokeInput, type InvokeResponse } from '../../../electron/shared/contract';
import type { JobViewData } from '../../../electron/shared/schemas-jobs';
import type { WizardStateData } from '../../../electron/shared/schemas-wizard';
import { startFakeLlm, type FakeLlm } from '../../fixtures/fake-llm/fake-llm';
import { makeVenv, SAMPLE_AGENT_DIR } from '../../support/python-env';
import { startTestApp, type TestApp, type TestAppOptions } from '../../support/test-app';

/** The debug LLM's key: a canary that must never show up in a state, a job view or an error. */
export const CANARY_KEY = 'sk-wizard-canary-5f0c9d1e7a2b4c68';
export const PASSPHRASE = 'wizard integration passphrase';

/**
 * The wizard's scripts run the `ajet` stub (TEST DOUBLE) with upstream's waits shrunk: its 5 s polls and
 * 15 s / 2 s claim retries become a twentieth. The job runner starts scripts with the process's env.
 */
process.env.AJET_STUB_TIME_SCALE = '0.05';

/** A handler called as the renderer's transport does: the request through the contract's schema first. */
export function call<C extends InvokeChannel>(app: TestApp, channel: C, input: InvokeInput<C>): Promise<InvokeResponse<C>> {
  const request = (invokeContract[channel].request as { parse: (value: unknown) => unknown }).parse(input);
  return (app.handlers[channel] as (request: unknown) => Promise<InvokeResponse<C>>)(request);
}

export interface WizardApp {
  app: TestApp;
  /** The vault's LLM endpoint (the fake LLM, its key the canary). */
  secretId: string;
  events: WizardEvents;
}

/** The app with a passphrase vault holding the debug LLM endpoint, as a user sets it up in Settings → Secrets. */
export async function startWizardApp(llm: FakeLlm, options: TestAppOptions = {}): Promise<WizardApp> {
  const app = await startTestApp({ monitorIntervalMs: 100, ...options });
  const events = new WizardEvents(app.hub);
  await call(app, 'vault:setup', { backend: 'passphrase', passphrase: PASSPHRASE });
  const secret = await call(app, 'secrets:save', { name: 'Debug LLM', kind: 'llm', value: CANARY_KEY, llm: { baseUrl: llm.url, model: 'fake-debug-model' } });
  return { app, secretId: secret.id, events };
}

export function startCanaryLlm(): Promise<FakeLlm> {
  return startFakeLlm({ requireKey: CANARY_KEY });
}

/**
 * A user's agent project: a copy of test/fixtures/sample-agent (agent.py, collector.py, dataset.jsonl) in a
 * fresh temp folder, with a `.venv` whose python imports the ajet stub. Returns the folder and that python.
 */
export async function makeSampleProject(): Promise<{ dir: string; python: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-wizard-'));
  for (const name of await readdir(SAMPLE_AGENT_DIR)) {
    if (name.endsWith('.py') || name.endsWith('.jsonl') || name.endsWith('.md')) await copyFile(join(SAMPLE_AGENT_DIR, name), join(dir, name));
  }
  const python = await makeVenv(dir, { ajet: true });
  return { dir, python };
}

/** How the sample agent is started for one item (run in the project folder by run_episode_once.py). */
export const SAMPLE_AGENT_COMMAND = '{python} agent.py --item {item_id}';

/** A training form that keeps the dry run's steps small: one task per batch, two episodes per task. */
export function smallForm(overrides: Record<string, unknown> = {}) {
  return { experimentName: 'wizard_it', modelPath: '/models/debug', grpoN: 2, batchSize: 1, epochs: 50, gpusPerNode: 1, discardEpisodeTimeout: 60, ...overrides };
}

/**
 * Steps 0–2 done as in wizard.spec.ts: the LLM answered, the sample project scaffolded and tested (q1 scores 1),
 * the training code generated from `form`. With `judge` (the fake LLM), the reward style is the LLM judge and
 * the judge's answer to the episode test is scripted as "1". The project folder is added to `folders`.
 */
export async function throughCode(w: WizardApp, folders: string[], options: { form?: Record<string, unknown>; judge?: FakeLlm } = {}): Promise<WizardStateData> {
  const { dir, python } = await makeSampleProject();
  folders.push(dir);
  await call(w.app, 'wizard:set-llm', { secretId: w.secretId });
  const rewardStyle = options.judge ? 'judge' : 'native';
  await call(w.app, 'wizard:set-project', { mode: 'scaffold', projectDir: dir, buildId: 'run', rewardStyle, agentCommand: SAMPLE_AGENT_COMMAND });
  await call(w.app, 'wizard:set-python', { python });
  await w.events.recorded((await call(w.app, 'wizard:test-dataset', {})).id);
  options.judge?.script([{ kind: 'text' }, { kind: 'text', text: '1' }]);
  await w.events.recorded((await call(w.app, 'wizard:test-episode', { itemId: 'q1' })).id);
  const form = (options.form ?? smallForm()) as InvokeInput<'wizard:generate-code'>['form'];
  return call(w.app, 'wizard:generate-code', { form, overwrite: [] });
}

/** `wizard:run-debug`, its job's end and the wizard's state once it recorded it. */
export async function runDebug(w: WizardApp) {
  const job = await call(w.app, 'wizard:run-debug', {});
  return { started: job, ...(await w.events.recorded(job.id, 90_000)) };
}

/** Every `wizard:changed` and `jobs:changed` of an app from the moment it is made. */
export class WizardEvents {
  readonly states: WizardStateData[] = [];
  readonly jobs: JobViewData[] = [];
  private readonly waiters = new Set<() => void>();
  readonly unsubscribe: () => void;

  constructor(hub: EventHub) {
    this.unsubscribe = hub.subscribe((channel, payload) => {
      if (channel === 'wizard:changed') this.states.push(payload as WizardStateData);
      else if (channel === 'jobs:changed') this.jobs.push(payload as JobViewData);
      else return;
      for (const wake of this.waiters) wake();
    });
  }

  /** The first snapshot (seen already or coming) that satisfies the predicate. */
  private until<T>(what: string, find: () => T | undefined, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = find();
        if (found === undefined) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${what}: nothing matching within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** The job's final snapshot. */
  jobEnded(jobId: string, timeoutMs = 60_000): Promise<JobViewData> {
    return this.until(`job ${jobId} ended (saw ${JSON.stringify(this.jobs.filter((j) => j.id === jobId).map((j) => j.state))})`, () => this.jobs.find((j) => j.id === jobId && ['succeeded', 'failed', 'cancelled'].includes(j.state)), timeoutMs);
  }

  /** The job's end and the first wizard state after it was recorded (the job left the wizard's running jobs). */
  async recorded(jobId: string, timeoutMs = 60_000): Promise<{ job: JobViewData; state: WizardStateData }> {
    const job = await this.jobEnded(jobId, timeoutMs);
    const state = await this.until(
      `the wizard recorded job ${jobId}`,
      () => this.states.find((s, i) => !s.runningJobIds.includes(jobId) && this.states.slice(0, i).some((p) => p.runningJobIds.includes(jobId))),
      timeoutMs,
    );
    return { job, state };
  }

  state(predicate: (state: WizardStateData) => boolean, what: string, timeoutMs = 30_000): Promise<WizardStateData> {
    return this.until(what, () => [...this.states].reverse().find(predicate), timeoutMs);
  }
}

export function stepStatus(state: WizardStateData): Record<string, string> {
  return Object.fromEntries(state.steps.map((s) => [s.id, s.status]));
}

/**
 * The hooks every wizard spec needs: one canary fake LLM for the file, and after each test the app
 * disposed (containers and data folder with it) and the test's folders removed. The spec keeps its
 * own `llm` and `wizard` variables; these callbacks read and set them.
 */
export function useWizardSuite(suite: { llmStarted: (llm: FakeLlm) => void; current: () => WizardApp | null; ended: () => void; folders: string[] }): void {
  let llm: FakeLlm | null = null;
  beforeAll(async () => {
    llm = await startCanaryLlm();
    suite.llmStarted(llm);
  });
  afterAll(async () => {
    await llm?.close();
  });
  afterEach(async () => {
    const wizard = suite.current();
    wizard?.events.unsubscribe();
    await wizard?.app.dispose();
    suite.ended();
    await Promise.all(suite.folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
}
