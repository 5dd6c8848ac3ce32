import { readFile, rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DryRunConfig } from '../../electron/shared/schemas-dryrun';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { waitForEvent } from '../support/helpers';
import { smallJobYaml } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { chatCompletion, ClientSequences } from '../unit/dry-run/swarm-client-sequences';

/**
 * The dry run through the app's own handlers and events (as the renderer reaches them): started
 * with a key typed for the run against the TEST DOUBLE fake LLM, watched by the same swarm monitor
 * and training monitor as a container, driven over HTTP the way SwarmClient drives a GPU server,
 * traced, exported, stopped.
 */
const KEY = 'sk-dryrun-session-key-0123456789abcdef';

let llm: FakeLlm;
let app: TestApp | null = null;

beforeAll(async () => {
  llm = await startFakeLlm({ requireKey: KEY });
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await app?.dispose();
  app = null;
});

function config(overrides: Partial<DryRunConfig> = {}): DryRunConfig {
  return {
    port: null,
    llm: { baseUrl: llm.url, model: 'fake-debug-model', secretId: null },
    bootDelayMs: 300,
    // Short simulated training steps: these tests do not test the poll-period default.
    trainingStepMs: 300,
    spend: { maxCallsPerEpisode: 50, maxCalls: 2000, maxTokens: 2_000_000 },
    ...overrides,
  };
}

describe('dry run in the app', () => {
  it('starts on 127.0.0.1, is watched like a server, runs two steps of episodes through the relay, traces them, exports and stops', async () => {
    app = await startTestApp({ monitorIntervalMs: 100 });
    const { handlers, hub } = app;
    const online = waitForEvent(hub, 'swarm:status', (s) => s.engineId === 'dry-run' && s.connection === 'online', 15_000);

    const view = await handlers['dryrun:start']({ config: config(), sessionKey: KEY });
    expect(view.state).toBe('running');
    expect(view.url).toBe(`http://127.0.0.1:${view.port}`);
    // 10086 when free, else the next free port, and then the view says so.
    if (view.port === 10086) expect(view.portNote).toBeNull();
    else expect(view.portNote).toMatch(/^port 10086 is taken.*, using \d+$/);
    // The same as data, for the renderer to word.
    if (view.port !== 10086) expect(view.portTaken).toMatchObject({ port: 10086 });
    expect(view.keySource).toBe('typed for this run');
    // The same as data, worded by the renderer in the user's language.
    expect(view.keyFrom).toEqual({ kind: 'typed', name: null });
    expect(JSON.stringify(view)).not.toContain(KEY);
    const url = view.url!;

    // The swarm monitor found the dry run's container and polls it like any server.
    await online;
    expect(await handlers['swarm:list']({ engineId: 'dry-run' })).toMatchObject([{ id: 'dry-run', engineId: 'dry-run', state: 'running', port: view.port }]);
    expect((await handlers['engines:list']({})).find((e) => e.id === 'dry-run')).toMatchObject({ kind: 'dry-run' });

    // The agent side: SwarmClient's calls, one chat call per episode through the relay.
    const client = new ClientSequences(url);
    await client.autoSyncTrainConfigAndStartEngine(smallJobYaml('/models/debug'));
    const firstStep = (await client.engineStatus()).global_step ?? 0;
    const lastStep = firstStep + 2;
    for (let step = 0; step < 2; step += 1) {
      for (const reward of [0.25, 0.75]) {
        await client.runEpisode('task-a', reward, async (episode) => {
          const reply = await chatCompletion(episode, { model: 'ignored', messages: [{ role: 'user', content: `step ${step} reward ${reward}` }] });
          expect(reply.status).toBe(200);
          expect(reply.json.choices[0].message.content).toContain(`step ${step} reward ${reward}`);
        });
      }
      await client.waitForStatus('ENGINE.ROLLING', 10_000);
    }
    await client.waitForStatus('ENGINE.ROLLING', 10_000);
    expect((await client.engineStatus()).global_step).toBe(lastStep);
    // The key reached the debug LLM; the episode's own model field did not.
    expect(llm.calls.filter((c) => c.path === '/v1/chat/completions').every((c) => c.headers.authorization === `Bearer ${KEY}` && (c.body as { model: string }).model === 'fake-debug-model')).toBe(true);

    // The card's view follows the server: step, job, spend.
    const moved = await waitForEvent(hub, 'dryrun:changed', (v) => v.globalStep === lastStep && v.spend.calls === 4, 10_000).catch(async () => handlers['dryrun:view']({}));
    expect(moved).toMatchObject({ globalStep: lastStep, engineStatus: 'ENGINE.ROLLING', train: { batchSize: 1, numRepeat: 2 }, spend: { calls: 4 } });
    expect(moved.spend.promptTokens).toBeGreaterThan(0);

    // The training monitor polls it as a real server: the dashboard's step.
    await waitForEvent(hub, 'training:changed', (v) => v.engineId === 'dry-run' && v.globalStep === lastStep, 15_000).catch(() => undefined);
    expect((await handlers['training:view']({ engineId: 'dry-run', containerId: 'dry-run' })).globalStep).toBe(lastStep);

    // Traces: four ended episodes with their rewards, each with its one LLM call.
    const page = await handlers['dryrun:traces']({ step: null, taskId: null, offset: 0, limit: 100 });
    const ended = page.episodes.filter((e) => e.state === 'ended');
    expect(ended).toHaveLength(4);
    expect(ended.map((e) => e.reward).sort()).toEqual([0.25, 0.25, 0.75, 0.75]);
    expect(ended.every((e) => e.llmCalls === 1 && e.taskId === 'task-a')).toBe(true);
    expect(page.taskIds).toEqual(['task-a']);
    const byTask = await handlers['dryrun:traces']({ step: null, taskId: 'nope', offset: 0, limit: 100 });
    expect(byTask.episodes).toEqual([]);
    const trace = await handlers['dryrun:trace']({ episodeUuid: ended[0]!.episodeUuid });
    expect(trace.calls).toHaveLength(1);
    expect(trace.calls[0]).toMatchObject({ route: 'chat', status: 200, stream: false });
    expect(trace.calls[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(trace.calls[0]!.completionTokens).toBeGreaterThan(0);
    expect(JSON.stringify(trace)).not.toContain(KEY);
    await expect(handlers['dryrun:trace']({ episodeUuid: 'no-such-episode' })).rejects.toMatchObject({ code: 'TRACE_NOT_FOUND' });

    const exported = await handlers['dryrun:export-traces']({});
    try {
      const text = await readFile(exported.path, 'utf8');
      expect(exported.episodes).toBe(page.total);
      expect(text.trim().split('\n').filter((line) => JSON.parse(line).kind === 'episode')).toHaveLength(page.total);
      expect(text).not.toContain(KEY);
    } finally {
      await rm(exported.path, { force: true });
    }

    // The run's log is the "container log" the monitor and the log view read, without the key.
    const log = await handlers['logs:read']({ engineId: 'dry-run', containerId: 'dry-run', from: 0, count: 500, filter: { text: '', regex: false, stream: 'all' } });
    expect(log.lines.some((line) => line.text.includes('Nothing is trained'))).toBe(true);
    expect(JSON.stringify(log)).not.toContain(KEY);

    // A second start is refused while it runs.
    await expect(handlers['dryrun:start']({ config: config(), sessionKey: KEY })).rejects.toMatchObject({ code: 'DRY_RUN_STATE' });

    // Stop: the monitor says "stopped" (not a crash), the port is free again, the traces stay.
    const stopped = waitForEvent(hub, 'swarm:status', (s) => s.engineId === 'dry-run' && s.connection === 'stopped', 10_000);
    const after = await handlers['dryrun:stop']({});
    expect(after.state).toBe('stopped');
    expect((await stopped).exit?.kind).toBe('stopped');
    expect(await handlers['swarm:list']({ engineId: 'dry-run' })).toMatchObject([{ id: 'dry-run', state: 'exited' }]);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    expect((await handlers['dryrun:traces']({ step: null, taskId: null, offset: 0, limit: 100 })).total).toBe(page.total);
    await expect(handlers['dryrun:stop']({})).rejects.toMatchObject({ code: 'DRY_RUN_STATE' });
  }, 90_000);

  it('takes the port it is given, and names a taken one with PORT_IN_USE', async () => {
    app = await startTestApp({ monitorIntervalMs: 100 });
    const first = await app.handlers['dryrun:start']({ config: config(), sessionKey: KEY });
    await app.handlers['dryrun:stop']({});
    // The stopped run's port is free again: asking for it exactly works.
    const again = await app.handlers['dryrun:start']({ config: config({ port: first.port }), sessionKey: KEY });
    expect(again.port).toBe(first.port);
    expect(again.portNote).toBeNull();
    const second = await startTestApp({ monitorIntervalMs: 100 });
    try {
      await expect(second.handlers['dryrun:start']({ config: config({ port: first.port }), sessionKey: KEY })).rejects.toMatchObject({ code: 'PORT_IN_USE' });
      expect((await second.handlers['dryrun:view']({})).state).toBe('failed');
    } finally {
      await second.dispose();
    }
  }, 60_000);

  it('takes the key from the vault by id: VAULT_LOCKED and SECRET_NOT_FOUND say what to do, an unlocked vault starts it', async () => {
    app = await startTestApp({ monitorIntervalMs: 100 });
    const { handlers } = app;
    await handlers['vault:setup']({ backend: 'passphrase', passphrase: 'correct horse battery' });
    const secret = await handlers['secrets:save']({ name: 'Debug LLM', kind: 'llm', value: KEY, llm: { baseUrl: llm.url, model: 'fake-debug-model' } });
    const fromVault = config({ llm: { baseUrl: llm.url, model: 'fake-debug-model', secretId: secret.id } });

    const missing = await handlers['dryrun:start']({ config: config({ llm: { baseUrl: llm.url, model: 'm', secretId: 'sec_missing01' } }) }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'SECRET_NOT_FOUND', message: expect.stringContaining('Pick another LLM endpoint, or type a key for this run') });
    expect(await handlers['dryrun:view']({})).toMatchObject({ state: 'failed', error: expect.stringContaining('no longer in the vault') });
    expect(await handlers['swarm:list']({ engineId: 'dry-run' })).toEqual([]);

    await handlers['vault:lock']({});
    const locked = await handlers['dryrun:start']({ config: fromVault }).catch((e: unknown) => e);
    expect(locked).toMatchObject({ code: 'VAULT_LOCKED', message: expect.stringContaining('Unlock the vault in Settings') });

    await handlers['vault:unlock']({ passphrase: 'correct horse battery' });
    const view = await handlers['dryrun:start']({ config: fromVault });
    expect(view).toMatchObject({ state: 'running', keySource: 'vault: Debug LLM', keyFrom: { kind: 'vault', name: 'Debug LLM' } });
    expect((await handlers['secrets:list']({})).find((s) => s.id === secret.id)?.usedBy).toContain('dry run');
    // The vault's key reaches the debug LLM through the relay.
    const client = new ClientSequences(view.url!);
    await client.autoSyncTrainConfigAndStartEngine(smallJobYaml('/models/debug'));
    const before = llm.calls.length;
    await client.runEpisode('task-v', 1, async (episode) => expect((await chatCompletion(episode)).status).toBe(200));
    expect(llm.calls.slice(before).some((c) => c.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  }, 60_000);

  it('stops the dry run when the app quits', async () => {
    app = await startTestApp({ monitorIntervalMs: 100 });
    const view = await app.handlers['dryrun:start']({ config: config(), sessionKey: KEY });
    await app.stop();
    await expect(fetch(`${view.url}/health`)).rejects.toThrow();
  });
});
