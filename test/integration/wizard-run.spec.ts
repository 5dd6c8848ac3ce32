import { afterEach, describe, expect, it } from 'vitest';
import type { FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { waitForEvent } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import {
  call,
  CANARY_KEY,
  runDebug,
  smallForm,
  useWizardSuite,
  startWizardApp,
  stepStatus,
  throughCode,
  type WizardApp,
} from './support/wizard-fixtures';

/**
 * The wizard's steps 3–5 and a restart, through the app's handlers: the app's own dry-run swarm as the
 * server, the generated agent_roll*.py run by the real job runner with the ajet stub (TEST DOUBLE), the
 * sample agent calling the fake LLM (TEST DOUBLE) through the dry run's relay.
 */
let llm: FakeLlm;
let wizard: WizardApp | null = null;
let restarted: TestApp | null = null;
const folders: string[] = [];

useWizardSuite({ llmStarted: (started) => (llm = started), current: () => wizard, ended: () => (wizard = null), folders });
afterEach(async () => {
  await restarted?.dispose();
  restarted = null;
});

describe('wizard steps 3–5 on the dry run', () => {
  it('starts the dry run, passes a debug episode (traced), trains until the step advances, stops; confirmation, busy and stale rules; a restart resumes', async () => {
    wizard = await startWizardApp(llm);
    const { app, events } = wizard;
    const coded = await throughCode(wizard, folders);
    expect(stepStatus(coded)).toMatchObject({ llm: 'done', project: 'done', code: 'done', swarm: 'todo', debug: 'todo' });

    // Step 3: the dry run, started with the wizard's LLM from the vault, until /health answers.
    const chosen = await call(app, 'wizard:choose-swarm', { kind: 'dry-run' });
    expect(chosen.swarm).toMatchObject({ choice: { kind: 'dry-run' }, phase: 'idle', url: null });
    const ready = await call(app, 'wizard:start-swarm', {});
    expect(ready.swarm).toMatchObject({ phase: 'ready', engineId: 'dry-run', containerId: 'dry-run', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), detail: null });
    expect(ready.steps[3]).toMatchObject({ id: 'swarm', status: 'done', fact: `the dry run answered /health at ${ready.swarm!.url}` });
    expect(events.states.map((s) => s.swarm?.phase)).toEqual(expect.arrayContaining(['starting', 'health', 'ready']));
    const dryRun = await call(app, 'dryrun:view', {});
    expect(dryRun).toMatchObject({ state: 'running', url: ready.swarm!.url, keySource: 'vault: Debug LLM', config: { llm: { secretId: wizard.secretId, model: 'fake-debug-model' } } });
    // A second press while it is ready: the same server, nothing restarted.
    expect((await call(app, 'wizard:start-swarm', {})).swarm?.url).toBe(ready.swarm!.url);

    // Step 4: one episode of the generated debug script against it; the reward comes back, the trace has its LLM call.
    const debug = await runDebug(wizard);
    expect(debug.started).toMatchObject({ kind: 'debug-episode', swarmUrl: ready.swarm!.url, llmSecretId: wizard.secretId, label: 'Debug episode · the dry run' });
    expect(debug.job).toMatchObject({ state: 'succeeded', result: { reward: 1, raw: { item_id: 'q1', episode_uuid: expect.any(String) } } });
    expect(debug.state.debug).toMatchObject({ jobId: debug.job.id, choice: { kind: 'dry-run' }, reward: 1, passed: true });
    expect(debug.state.steps[4]).toMatchObject({ status: 'done', fact: 'reward 1 on the dry run' });
    const episodeUuid = String(debug.job.result!.raw.episode_uuid);
    const trace = await call(app, 'dryrun:trace', { episodeUuid });
    // The wizard's "Passed: reward 1" and the trace agree: a debug episode with that reward, not a bare abort.
    expect(trace).toMatchObject({ state: 'aborted', debug: { reward: 1 } });
    expect(trace.calls.length).toBeGreaterThanOrEqual(1);
    expect(trace.calls[0]).toMatchObject({ route: 'chat', status: 200 });
    expect(JSON.stringify(trace)).toContain('Reply with the single word apple.');
    expect(JSON.stringify(trace)).not.toContain(CANARY_KEY);
    // The relayed call reached the debug LLM with the vault's key.
    expect(llm.calls.filter((c) => c.path === '/v1/chat/completions').at(-1)?.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);

    // Step 5: training; the server's global step advances (dry run view and training monitor).
    const stepBefore = (await call(app, 'dryrun:view', {})).globalStep ?? 0;
    const train = await call(app, 'wizard:train', {});
    expect(train).toMatchObject({ kind: 'train', state: 'running', swarmUrl: ready.swarm!.url, label: 'Training · the dry run' });
    const trainingState = await call(app, 'wizard:state', {});
    expect(trainingState).toMatchObject({ current: 'train', trainJobId: train.id, runningJobIds: [train.id] });
    expect(trainingState.steps[5]).toMatchObject({ status: 'done', fact: `training started (job ${train.id})` });
    await waitForEvent(app.hub, 'dryrun:changed', (v) => (v.globalStep ?? 0) >= stepBefore + 2, 60_000);
    await waitForEvent(app.hub, 'training:changed', (v) => v.engineId === 'dry-run' && (v.globalStep ?? 0) >= stepBefore + 2, 15_000).catch(() => undefined);
    expect((await call(app, 'training:view', { engineId: 'dry-run', containerId: 'dry-run' })).globalStep).toBeGreaterThanOrEqual(stepBefore + 2);
    expect((await call(app, 'dryrun:view', {})).train).toMatchObject({ experimentName: 'wizard_it', batchSize: 1, numRepeat: 2 });
    // One training run at a time.
    await expect(call(app, 'wizard:train', {})).rejects.toMatchObject({ code: 'JOB_BUSY', message: expect.stringContaining(train.id) });

    const stopAskedAt = Date.now();
    const stopped = await call(app, 'wizard:stop-train', {});
    expect(stopped).toMatchObject({ id: train.id, state: 'cancelled', failure: null });
    expect((await events.recorded(train.id)).state.runningJobIds).toEqual([]);
    // The stopped run gave back the episodes it held: none waits for the server's discard timeout to be handed out again.
    // (A claim whose answer was still on its way when the stop killed the client never reached it: that one waits for
    // the janitor, as upstream's does; so only claims older than the stop's last second count.)
    const traces = await call(app, 'dryrun:traces', { step: null, taskId: null, offset: 0, limit: 200 });
    expect(traces.episodes.filter((e) => e.state === 'claimed' && Date.parse(e.startedAt ?? '') < stopAskedAt - 1000)).toEqual([]);

    // The stale rule: other code → the debug episode and training ran with the old code.
    const regenerated = await call(app, 'wizard:generate-code', { form: smallForm({ forceRestart: true }), overwrite: ['agent_roll.py'] });
    expect(stepStatus(regenerated)).toMatchObject({ code: 'done', swarm: 'done', debug: 'stale', train: 'stale' });
    expect(regenerated.steps[5]?.missing).toEqual(['debug']);
    await expect(call(app, 'wizard:train', {})).rejects.toMatchObject({ code: 'WIZARD_STEP_LOCKED', message: expect.stringContaining('Debug episode') });
    expect(stepStatus((await runDebug(wizard)).state)).toMatchObject({ debug: 'done', train: 'stale' });

    // force_restart=True in the script ends everyone's training: refused until confirmed.
    await expect(call(app, 'wizard:train', {})).rejects.toMatchObject({ code: 'JOB_NEEDS_CONFIRMATION', message: expect.stringContaining('force_restart=True') });
    const confirmed = await call(app, 'wizard:train', { confirmEngineRestart: true });
    expect(stepStatus(await call(app, 'wizard:state', {}))).toMatchObject({ debug: 'done', train: 'done' });
    const restartedStep = (await call(app, 'dryrun:view', {})).globalStep ?? 0;
    await waitForEvent(app.hub, 'dryrun:changed', (v) => (v.globalStep ?? 0) > restartedStep, 60_000);

    // Resume: the app quits while training runs; a new app on the same data folder shows the same steps, and the run as ended.
    const before = await call(app, 'wizard:state', {});
    const dataDir = app.dataDir;
    events.unsubscribe();
    await app.stop();
    wizard = null;
    folders.push(dataDir);
    restarted = await startTestApp({ dataDir });
    const resumed = await call(restarted, 'wizard:state', {});
    expect(resumed.current).toBe(before.current);
    const kept = (state: typeof before) => state.steps.filter((s) => ['llm', 'project', 'code'].includes(s.id)).map((s) => [s.id, s.status, s.fact]);
    expect(kept(resumed)).toEqual(kept(before));
    // The dry run lived inside the old backend: the swarm step says so and waits for Start again.
    expect(resumed.swarm).toMatchObject({ choice: { kind: 'dry-run' }, phase: 'idle', url: null, detail: expect.stringContaining('dry run ended') });
    expect(resumed.steps.find((s) => s.id === 'swarm')?.status).toBe('todo');
    expect(resumed).toMatchObject({ trainJobId: confirmed.id, runningJobIds: [] });
    const ended = await call(restarted, 'jobs:get', { jobId: confirmed.id });
    expect(['cancelled', 'failed']).toContain(ended.state);
    expect(ended.failure?.message).toMatch(/app closed/i);
  }, 300_000);

  it('refuses to debug against a dry run that already runs with another LLM, and leaves that dry run alone', async () => {
    wizard = await startWizardApp(llm);
    const { app } = wizard;
    await call(app, 'wizard:set-llm', { secretId: wizard.secretId });
    // Started on the Servers page with a key typed for the run and another model.
    await call(app, 'dryrun:start', { config: { llm: { baseUrl: llm.url, model: 'someone-elses-model', secretId: null } }, sessionKey: 'sk-typed-for-this-run-0123456789' });
    await call(app, 'wizard:choose-swarm', { kind: 'dry-run' });
    // The one real difference is named, as data for the renderer (which offers "Restart the dry run with this LLM").
    await expect(call(app, 'wizard:start-swarm', {})).rejects.toMatchObject({
      code: 'DRY_RUN_STATE',
      message: expect.stringMatching(/already running with model someone-elses-model, not the wizard's fake-debug-model/),
      params: { holder: 'wizard-other-llm', differs: 'model', model: 'fake-debug-model' },
    });
    // Said once (the call's answer, worded by the renderer with its Restart offer), not again as a failed step.
    expect((await call(app, 'wizard:state', {})).swarm).toMatchObject({ phase: 'idle', detail: null });
    expect(await call(app, 'dryrun:view', {})).toMatchObject({ state: 'running', config: { llm: { model: 'someone-elses-model' } } });
  }, 60_000);

  it('judge reward style: in the debug episode the agent talks to the swarm server, while the judge grades with the debug LLM from the vault', async () => {
    wizard = await startWizardApp(llm);
    const { app } = wizard;
    const coded = await throughCode(wizard, folders, { judge: llm });
    expect(coded.project?.rewardStyle).toBe('judge');
    await call(app, 'wizard:choose-swarm', { kind: 'dry-run' });
    await call(app, 'wizard:start-swarm', {});
    const before = llm.calls.length;
    // The agent's call (relayed by the dry run) gets the default answer; the judge's gets "0.6".
    llm.script([{ kind: 'text' }, { kind: 'text', text: '0.6' }]);
    const debug = await runDebug(wizard);
    expect(debug.job).toMatchObject({ state: 'succeeded', result: { reward: 0.6 } });
    expect(debug.state.debug).toMatchObject({ reward: 0.6, passed: true });
    const chats = llm.calls.slice(before).filter((c) => c.path === '/v1/chat/completions');
    expect(chats).toHaveLength(2);
    expect(chats.every((c) => c.headers.authorization === `Bearer ${CANARY_KEY}`)).toBe(true);
    expect(JSON.stringify(chats[1]?.body)).toContain('You are a strict grader');
    // The swarm server saw only the agent's call: the judge did not grade with the model being trained.
    const trace = await call(app, 'dryrun:trace', { episodeUuid: String(debug.job.result!.raw.episode_uuid) });
    expect(trace.calls).toHaveLength(1);
    expect(JSON.stringify(trace)).not.toContain('strict grader');
  }, 120_000);
});
