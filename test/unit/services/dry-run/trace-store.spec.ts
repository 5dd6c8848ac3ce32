import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceStore, type LlmCallRecord } from '../../../../electron/services/dry-run/trace-store';
import { SpendGuard } from '../../../../electron/services/dry-run/spend-guard';

const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);

function record(episodeUuid: string, over: Partial<LlmCallRecord> = {}): LlmCallRecord {
  return {
    callId: `c-${Math.random()}`,
    episodeUuid,
    taskId: 't1',
    clientUuid: 'client',
    step: 1,
    route: 'chat',
    stream: false,
    startedAt: T0,
    latencyMs: 12,
    status: 200,
    request: { messages: [{ role: 'user', content: 'hello' }] },
    response: { choices: [{ message: { content: 'hi' } }] },
    promptTokens: 3,
    completionTokens: 1,
    error: null,
    ...over,
  };
}

function registerEpisodes(store: TraceStore, step: number, tasks: string[]): void {
  for (const task of tasks) {
    store.episode({ kind: 'registered', episodeUuid: `s${step}-${task}`, taskId: null, clientUuid: null, step, at: T0 });
    store.episode({ kind: 'claimed', episodeUuid: `s${step}-${task}`, taskId: null, clientUuid: 'c', step, at: T0 + 1000 });
    store.episode({ kind: 'ended', episodeUuid: `s${step}-${task}`, taskId: task, clientUuid: 'c', step, at: T0 + 2000, reward: 0.5, metadata: { task_id: task } });
  }
}

describe('TraceStore', () => {
  it('keeps the episode lifecycle, queries by step and task newest first with paging, and lists steps and tasks', () => {
    const store = new TraceStore();
    registerEpisodes(store, 1, ['a', 'b', 'c']);
    registerEpisodes(store, 2, ['a', 'b']);
    store.step({ step: 2, status: 'ENGINE.ROLLING', at: T0 + 5000, reason: 'batch complete: 3 episodes' });
    store.call(record('s2-a', { step: 2, taskId: 'a' }));
    const all = store.query({ step: null, taskId: null, offset: 0, limit: 100 });
    expect(all.total).toBe(5);
    expect(all.episodes.map((e) => e.episodeUuid)).toEqual(['s2-b', 's2-a', 's1-c', 's1-b', 's1-a']);
    expect(all.taskIds).toEqual(['a', 'b', 'c']);
    expect(all.steps).toEqual([{ step: 2, status: 'ENGINE.ROLLING', at: new Date(T0 + 5000).toISOString(), reason: 'batch complete: 3 episodes' }]);
    expect(all.episodes[1]).toMatchObject({ state: 'ended', reward: 0.5, taskId: 'a', llmCalls: 1, startedAt: new Date(T0 + 1000).toISOString(), endedAt: new Date(T0 + 2000).toISOString() });
    expect(store.query({ step: 1, taskId: null, offset: 1, limit: 1 })).toMatchObject({ total: 3, episodes: [{ episodeUuid: 's1-b' }] });
    expect(store.query({ step: null, taskId: 'a', offset: 0, limit: 10 }).episodes.map((e) => e.episodeUuid)).toEqual(['s2-a', 's1-a']);
    expect(store.get('s1-a')?.metadata).toEqual({ task_id: 'a' });
    expect(store.get('nope')).toBeNull();
    expect(all.capped).toBeNull();
  });

  it('redacts calls when they are read: token shapes in prompts, answers and errors', () => {
    const store = new TraceStore();
    const secret = 'sk-proj-AbCdEfGhIjKlMnOpQrStUv123456';
    store.call(record('e1', { request: { messages: [{ role: 'user', content: `my key is ${secret}` }], api_key: 'plain' }, error: `failed with Bearer ${secret}` }));
    const call = store.get('e1')!.calls[0]!;
    const text = JSON.stringify(call);
    expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED]');
    expect(call.request).toMatchObject({ api_key: '[REDACTED]' });
    expect(call.promptTokens).toBe(3); // numbers and token counts stay
  });

  it('cuts a call over the per-call limit to a preview and says the trace is capped', () => {
    const store = new TraceStore({ maxCallBytes: 2000 });
    store.call(record('e1', { request: { messages: [{ role: 'user', content: 'x'.repeat(50_000) }] } }));
    const call = store.get('e1')!.calls[0]!;
    expect(call.request).toMatchObject({ cut: expect.stringMatching(/cut to the first/) });
    expect(JSON.stringify(call).length).toBeLessThan(20_000);
    expect(store.query({ step: null, taskId: null, offset: 0, limit: 10 }).capped).toMatch(/1 requests or answers over 2 KB were cut/);
  });

  it('drops the oldest episodes past the byte, call and episode limits (never the one being written) and says so', () => {
    const store = new TraceStore({ maxCalls: 5, maxEpisodes: 100, maxBytes: 1_000_000 });
    for (let i = 0; i < 8; i += 1) store.call(record(`e${i}`));
    const page = store.query({ step: null, taskId: null, offset: 0, limit: 100 });
    expect(page.episodes.map((e) => e.episodeUuid)).toEqual(['e7', 'e6', 'e5', 'e4', 'e3']);
    expect(page.capped).toMatch(/the 3 oldest episodes \(3 LLM calls\) were dropped/);
    expect(store.stats().calls).toBe(5);

    const bytes = new TraceStore({ maxBytes: 3000 });
    for (let i = 0; i < 20; i += 1) bytes.call(record('one', { requestBytes: 400, responseBytes: 100 }));
    expect(bytes.stats().bytes).toBeLessThanOrEqual(3000);
    expect(bytes.get('one')!.calls).toHaveLength(20); // rows stay, old bodies go
    expect(bytes.get('one')!.calls[0]!.request).toMatchObject({ cut: expect.stringMatching(/memory limit/) });
  });

  it('exports JSONL atomically: a meta line, the steps and one line per episode', async () => {
    const store = new TraceStore();
    registerEpisodes(store, 1, ['a', 'b']);
    store.step({ step: 1, status: 'ENGINE.ROLLING', at: T0 });
    store.stall('2 of 4 tasks have num_repeat episodes');
    store.call(record('s1-a'));
    const dir = await mkdtemp(join(tmpdir(), 'trace-export-'));
    try {
      const out = await store.exportJsonl(dir, new Date(T0));
      expect(out.path).toBe(join(dir, 'dry-run-trace-2026-12-03T12-00-00-000Z.jsonl'));
      expect(await readdir(dir)).toEqual(['dry-run-trace-2026-12-03T12-00-00-000Z.jsonl']);
      const lines = (await readFile(out.path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(out).toMatchObject({ episodes: 2, bytes: (await readFile(out.path)).length });
      expect(lines.map((l) => l.kind)).toEqual(['meta', 'step', 'episode', 'episode']);
      expect(lines[0]).toMatchObject({ episodes: 2, calls: 1, capped: null, stall: '2 of 4 tasks have num_repeat episodes' });
      expect(lines[2]).toMatchObject({ episodeUuid: 's1-a', reward: 0.5, calls: [{ status: 200, promptTokens: 3 }] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('SpendGuard', () => {
  it('counts calls in flight against the run limit and reports why it stopped', () => {
    const guard = new SpendGuard({ maxCallsPerEpisode: 10, maxCalls: 3, maxTokens: 100 });
    let changes = 0;
    guard.onChange(() => (changes += 1));
    expect(guard.admit('e1', 1)).toEqual({ ok: true });
    expect(guard.admit('e2', 1)).toEqual({ ok: true });
    expect(guard.admit('e3', 1)).toEqual({ ok: true });
    expect(guard.snapshot().stoppedBy).toBe('3 calls reached (max calls per dry run)');
    expect(guard.admit('e4', 1)).toMatchObject({ ok: false, scope: 'run' });
    expect(changes).toBeGreaterThan(0);
  });

  it('stops at max tokens once settled usage reaches it', () => {
    const guard = new SpendGuard({ maxCallsPerEpisode: 10, maxCalls: 100, maxTokens: 100 });
    expect(guard.admit('e1', 1).ok).toBe(true);
    guard.settle({ promptTokens: 60, completionTokens: 40 });
    expect(guard.snapshot()).toMatchObject({ calls: 1, promptTokens: 60, completionTokens: 40, stoppedBy: '100 tokens used, the maximum is 100 (max tokens per dry run)' });
    expect(guard.admit('e2', 1)).toMatchObject({ ok: false, scope: 'run', reason: expect.stringMatching(/used 100 tokens/) });
  });
});
