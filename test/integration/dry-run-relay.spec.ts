import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDryRunServer } from '../../electron/services/dry-run/dry-run-server';
import { DebugLlmRelay, type LlmRelayOptions } from '../../electron/services/dry-run/llm-relay';
import type { LlmRoute, RelayEpisode } from '../../electron/services/dry-run/relay-contract';
import { SpendGuard, type SpendLimits } from '../../electron/services/dry-run/spend-guard';
import { TraceStore } from '../../electron/services/dry-run/trace-store';
import { startFakeLlm, type FakeLlm } from '../fixtures/fake-llm/fake-llm';
import { freePort } from '../support/helpers';
import { upstreamJob } from '../support/job-yaml';

/**
 * The LLM relay against the TEST DOUBLE LLM (test/fixtures/fake-llm) on 127.0.0.1. The dry-run server is replaced by
 * a minimal HTTP server that does what the server does after its swarm checks: counts the episode's calls and calls
 * `relay.handle()`. No Docker needed.
 */
const KEY = 'sk-canary-Zq8vR2xLm4Tn6Wp0Yb3Hd5Jf7Kc9Ga1E';
const ROUTE_PATHS: Record<string, LlmRoute> = { '/v1/chat/completions': 'chat', '/v1/responses': 'responses', '/v1/messages': 'messages' };

/** A value inside parsed JSON by a dotted path ('choices.0.message.content'); undefined when absent. */
function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
const DONE = '[DONE]';

interface Harness {
  url: string;
  trace: TraceStore;
  spend: SpendGuard;
  logs: string[];
  touches: number;
  close(): Promise<void>;
}

let llm: FakeLlm;
const harnesses: Harness[] = [];
const agentVisible: string[] = [];

async function startHarness(options: Partial<LlmRelayOptions> & { limits?: Partial<SpendLimits> } = {}): Promise<Harness> {
  const trace = new TraceStore();
  const spend = new SpendGuard({ maxCallsPerEpisode: 50, maxCalls: 1000, maxTokens: 1_000_000, ...options.limits });
  const logs: string[] = [];
  const relay = new DebugLlmRelay({ baseUrl: llm.url, model: 'debug-model', apiKey: KEY, spend, calls: trace, log: (level, m) => logs.push(`${level} ${m}`), ...options });
  const counts = new Map<string, number>();
  const h = { trace, spend, logs, touches: 0 } as Harness;
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const episodeUuid = String(req.headers['x-episode'] ?? 'ep-1');
      const callIndex = (counts.get(episodeUuid) ?? 0) + 1;
      counts.set(episodeUuid, callIndex);
      const isEval = req.headers['x-eval'] === '1';
      const episode: RelayEpisode = { episodeUuid, taskId: 'task-7', clientUuid: 'client-1', step: 3, isEval, sampling: { temperature: 0.9 }, callIndex, touch: () => (h.touches += 1) };
      const route = ROUTE_PATHS[req.url ?? ''] ?? 'chat';
      void relay.handle(route, episode, JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h.close = async () => {
    relay.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  harnesses.push(h);
  return h;
}

/** An agent's call for `episode`; `x-eval: 1` makes the harness hand the relay an eval episode (sampling kept). */
async function post(h: Harness, path: string, body: unknown, episode = 'ep-1', isEval = false): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const headers = { 'content-type': 'application/json', authorization: 'Bearer sk-ajet-routing', 'x-episode': episode, ...(isEval ? { 'x-eval': '1' } : {}) };
  const res = await fetch(`${h.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  agentVisible.push(text, JSON.stringify([...res.headers]));
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

/** SSE `data:` payloads (JSON parsed, `[DONE]` kept as text) and the comment lines. */
function sse(text: string): { data: unknown[]; comments: string[]; events: string[] } {
  const data: unknown[] = [];
  const comments: string[] = [];
  const events: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) comments.push(line);
    else if (line.startsWith('event: ')) events.push(line.slice(7));
    else if (line.startsWith('data: ')) data.push(line.slice(6) === DONE ? DONE : (JSON.parse(line.slice(6)) as unknown));
  }
  return { data, comments, events };
}

const chatBody = (extra: Record<string, unknown> = {}) => ({ model: 'whatever-the-agent-says', messages: [{ role: 'user', content: 'What is 2+2?' }], ...extra });

beforeAll(async () => {
  llm = await startFakeLlm({ model: 'debug-model', requireKey: KEY });
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});
afterAll(async () => {
  await llm.close();
});

describe('dry-run LLM relay: chat completions', () => {
  it('forwards a train call as the trained model gets it (system message first, the job\'s sampling), and traces both', async () => {
    const h = await startHarness();
    const res = await post(h, '/v1/chat/completions', chatBody({ temperature: 0.3, seed: 42, top_p: 0.5, custom_field: { a: 1 } }));
    expect(res.status).toBe(200);
    expect(at(res.json(), 'choices.0.message.content')).toBe('fake answer to: What is 2+2?');
    const sent = llm.calls.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    const system = { role: 'system', content: 'You are a helpful assistant, your name is AgentJet.' };
    expect(sent.body).toEqual({ model: 'debug-model', temperature: 0.9, custom_field: { a: 1 }, messages: [system, { role: 'user', content: 'What is 2+2?' }] });
    const ep = h.trace.get('ep-1')!;
    expect(ep.calls).toHaveLength(1);
    expect(ep.calls[0]).toMatchObject({ route: 'chat', stream: false, status: 200, error: null, promptTokens: expect.any(Number), completionTokens: expect.any(Number) });
    // The trace shows what the agent sent and what the model received, and says what changed.
    expect(ep.calls[0]!.request).toMatchObject({ temperature: 0.3, seed: 42, top_p: 0.5, messages: [{ role: 'user', content: 'What is 2+2?' }] });
    expect(ep.calls[0]!.modelRequest).toEqual(sent.body);
    expect(ep.calls[0]!.modelChanges).toEqual([
      { kind: 'system-inserted', content: system.content },
      { kind: 'sampling-from-job', ignored: ['temperature', 'seed', 'top_p'], temperature: 0.9 },
    ]);
    expect(ep.calls[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(h.spend.snapshot()).toMatchObject({ calls: 1, stoppedBy: null });
    expect(h.spend.snapshot().promptTokens).toBeGreaterThan(0);

    // An eval episode keeps its sampling; a request that starts with a system message keeps it as it is.
    await post(h, '/v1/chat/completions', chatBody({ temperature: 0.3, seed: 42, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Hi' }] }), 'ep-2', true);
    expect(llm.calls.at(-1)!.body).toEqual({ model: 'debug-model', temperature: 0.3, seed: 42, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Hi' }] });
    expect(h.trace.get('ep-2')!.calls[0]!.modelChanges).toEqual([]);
  });

  it('streams SSE through as it comes (first bytes long before the last) and traces the merged answer', async () => {
    const slow = await startFakeLlm({ model: 'debug-model', chunkDelayMs: 60, reply: 'one two three four five six seven' });
    try {
      const h = await startHarness({ baseUrl: slow.url });
      const started = Date.now();
      const res = await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chatBody({ stream: true, stream_options: { include_usage: true } })) });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      const arrivals: number[] = [];
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        arrivals.push(Date.now() - started);
        text += new TextDecoder().decode(value);
      }
      expect(arrivals.length).toBeGreaterThan(3);
      expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(200); // 6+ chunks 60 ms apart, not one late blob
      const { data } = sse(text);
      expect(data.at(-1)).toBe(DONE);
      expect(data.slice(0, -1).map((c) => at(c, 'choices.0.delta.content') ?? '').join('')).toBe('one two three four five six seven');
      const call = h.trace.get('ep-1')!.calls[0]!;
      expect(call).toMatchObject({ stream: true, status: 200 });
      expect(at(call.response, 'choices.0.message.content')).toBe('one two three four five six seven');
      expect(call.promptTokens).toBeGreaterThan(0); // from the usage chunk
    } finally {
      await slow.close();
    }
  });

  it('passes a tool call through, streamed and not', async () => {
    const h = await startHarness();
    const tools = [{ type: 'function', function: { name: 'calc', parameters: { type: 'object' } } }];
    llm.script([{ kind: 'tool-call', name: 'calc', arguments: { expr: '2+2' } }, { kind: 'tool-call', name: 'calc', arguments: { expr: '3+3' } }]);
    const plain = await post(h, '/v1/chat/completions', chatBody({ tools }));
    expect(at(plain.json(), 'choices.0')).toMatchObject({ finish_reason: 'tool_calls', message: { tool_calls: [{ function: { name: 'calc', arguments: '{"expr":"2+2"}' } }] } });
    expect(llm.calls.at(-1)!.body).toMatchObject({ tools });
    const streamed = await post(h, '/v1/chat/completions', chatBody({ tools, stream: true }));
    const args = sse(streamed.text).data.filter((c) => c !== DONE).flatMap((c) => (at(c, 'choices.0.delta.tool_calls') as unknown[] | undefined) ?? []).map((t) => at(t, 'function.arguments') ?? '').join('');
    expect(args).toBe('{"expr":"3+3"}');
    const traced = h.trace.get('ep-1')!.calls[1]!.response;
    expect(at(traced, 'choices.0.message.tool_calls.0.function')).toEqual({ name: 'calc', arguments: '{"expr":"3+3"}' });
  });

  it('hands a 429 (with Retry-After) and a 500 from the LLM to the agent and traces why', async () => {
    const h = await startHarness();
    llm.script([{ kind: 'error', status: 429, retryAfterS: 3 }, { kind: 'error', status: 500 }]);
    const limited = await post(h, '/v1/chat/completions', chatBody());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(at(limited.json(), 'error.type')).toBe('rate_limit_exceeded');
    const failed = await post(h, '/v1/chat/completions', chatBody({ stream: true }));
    expect(failed.status).toBe(500);
    expect(at(failed.json(), 'error.message')).toMatch(/server had an error/);
    const calls = h.trace.get('ep-1')!.calls;
    expect(calls.map((c) => c.status)).toEqual([429, 500]);
    expect(calls[0]!.error).toBe('The debug LLM answered HTTP 429: Rate limit reached for requests');
    expect(calls[1]!.error).toMatch(/^The debug LLM answered HTTP 500/);
  });

  it('says clearly when the debug LLM cannot be reached or refuses the key, without the key', async () => {
    const closed = await startHarness({ baseUrl: `http://127.0.0.1:${await freePort()}/v1` });
    const refused = await post(closed, '/v1/chat/completions', chatBody());
    expect(refused.status).toBe(502);
    expect(at(refused.json(), 'error.message')).toMatch(/could not reach the debug LLM at http:\/\/127\.0\.0\.1:\d+: connection refused/);
    expect(closed.trace.get('ep-1')!.calls[0]!.error).toMatch(/connection refused/);
    const wrongKey = await startHarness({ apiKey: 'sk-wrong-key-0000000000000000' });
    const denied = await post(wrongKey, '/v1/chat/completions', chatBody());
    expect(denied.status).toBe(502);
    expect(at(denied.json(), 'error.message')).toMatch(/refused the dry run's key \(HTTP 401/);
  });

  it('sends a call again once when the LLM drops a reused keep-alive connection; a second drop is a 502 that says so', async () => {
    const h = await startHarness();
    expect((await post(h, '/v1/chat/completions', chatBody())).status).toBe(200); // a warm socket to reuse
    llm.script([{ kind: 'drop' }]);
    const retried = await post(h, '/v1/chat/completions', chatBody());
    expect(retried.status).toBe(200);
    expect(llm.calls.slice(-2).map((c) => c.answer)).toEqual(['drop', 'text']);
    llm.script([{ kind: 'drop' }, { kind: 'drop' }]);
    const failed = await post(h, '/v1/chat/completions', chatBody());
    expect(failed.status).toBe(502);
    expect(at(failed.json(), 'error.message')).toMatch(/could not reach the debug LLM at .*: the connection was reset/);
    expect(h.trace.get('ep-1')!.calls.map((c) => c.status)).toEqual([200, 200, 502]);
  });

  it('ends a stream that already opened with an error event when the LLM fails after the keepalive started', async () => {
    // The LLM fails a second after the call, 50 keepalive periods: two keepalives even when a loaded machine fires
    // the timers late (with 180 ms, loaded run L8 saw one, and the stream had still opened with it).
    const h = await startHarness({ keepaliveMs: 20 });
    llm.script([{ kind: 'error', status: 500, delayMs: 1000 }]);
    const res = await post(h, '/v1/chat/completions', chatBody({ stream: true }));
    expect(res.status).toBe(200);
    const { comments, data } = sse(res.text);
    expect(comments.length).toBeGreaterThanOrEqual(2);
    expect(comments[0]).toBe(': keepalive');
    expect(at(data.at(-1), 'error.message')).toMatch(/^The debug LLM answered HTTP 500/);
    expect(data).not.toContain(DONE);
  });

  it('keeps a waiting call alive: keepalive comments before the answer and touch() on the episode', async () => {
    // A second of waiting, 25 keepalive periods and 33 touch periods, so three of each hold on a loaded machine too.
    const h = await startHarness({ keepaliveMs: 40, touchMs: 30 });
    llm.script([{ kind: 'text', text: 'late', delayMs: 1000 }]);
    const res = await post(h, '/v1/chat/completions', chatBody({ stream: true }));
    const { comments, data } = sse(res.text);
    expect(comments.length).toBeGreaterThanOrEqual(3);
    expect(data.at(-1)).toBe(DONE);
    expect(h.touches).toBeGreaterThanOrEqual(3);
  });
});

describe('dry-run LLM relay: /v1/responses and /v1/messages translated to chat completions', () => {
  it('answers the Responses API, plain and streamed, with a function call', async () => {
    const h = await startHarness();
    // Eval episodes: the translation of sampling fields shows (a train episode would get the job's sampling).
    const plain = await post(h, '/v1/responses', { model: 'gpt-x', instructions: 'Be brief.', input: 'Hi there', max_output_tokens: 50 }, 'ep-1', true);
    expect(plain.status).toBe(200);
    expect(plain.json()).toMatchObject({ object: 'response', status: 'completed', output_text: 'fake answer to: Hi there', output: [{ type: 'message', content: [{ type: 'output_text', text: 'fake answer to: Hi there' }] }] });
    expect(at(plain.json(), 'usage.input_tokens')).toBeGreaterThan(0);
    expect(llm.calls.at(-1)!.body).toEqual({ model: 'debug-model', max_tokens: 50, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi there' }] });

    llm.script([{ kind: 'tool-call', name: 'lookup', arguments: { q: 'x' }, id: 'call_9' }]);
    const input = [
      { role: 'user', content: [{ type: 'input_text', text: 'find x' }] },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'nothing' },
    ];
    const streamed = await post(h, '/v1/responses', { model: 'gpt-x', input, stream: true, tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }] }, 'ep-1', true);
    expect(llm.calls.at(-1)!.body).toMatchObject({
      stream: true,
      messages: [{ role: 'system', content: 'You are a helpful assistant, your name is AgentJet.' }, { role: 'user', content: 'find x' }, { role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'lookup' } }] }, { role: 'tool', tool_call_id: 'call_1', content: 'nothing' }],
      tools: [{ type: 'function', function: { name: 'lookup' } }],
    });
    const { data, events } = sse(streamed.text);
    expect(events[0]).toBe('response.created');
    expect(events).toContain('response.function_call_arguments.delta');
    expect(events.at(-1)).toBe('response.completed');
    expect(data.map((d) => at(d, 'sequence_number'))).toEqual(data.map((_, i) => i));
    expect(at(data.at(-1), 'response.output.0')).toMatchObject({ type: 'function_call', call_id: 'call_9', name: 'lookup', arguments: '{"q":"x"}' });
    expect(h.trace.get('ep-1')!.calls.map((c) => c.route)).toEqual(['responses', 'responses']);
  });

  it('answers the Anthropic Messages API, plain and streamed (message_start first, tool_use blocks), and its error shape', async () => {
    const h = await startHarness({ keepaliveMs: 40 });
    const plain = await post(h, '/v1/messages', { model: 'claude-x', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello' }] }, 'ep-1', true);
    expect(plain.json()).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'fake answer to: Hello' }], stop_reason: 'end_turn' });
    expect(at(plain.json(), 'usage.output_tokens')).toBeGreaterThan(0);

    llm.script([{ kind: 'tool-call', name: 'calc', arguments: { expr: '1+1' }, id: 'toolu_1', delayMs: 120 }]);
    const messages = [
      { role: 'user', content: 'add' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_0', name: 'calc', input: { expr: '0' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: [{ type: 'text', text: '0' }] }, { type: 'text', text: 'again' }] },
    ];
    const streamed = await post(h, '/v1/messages', { model: 'claude-x', max_tokens: 100, stream: true, messages, tools: [{ name: 'calc', input_schema: { type: 'object' } }], tool_choice: { type: 'any' } }, 'ep-1', true);
    expect(llm.calls.at(-1)!.body).toMatchObject({
      tool_choice: 'required',
      messages: [
        { role: 'system', content: 'You are a helpful assistant, your name is AgentJet.' },
        { role: 'user', content: 'add' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_0', function: { name: 'calc', arguments: '{"expr":"0"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_0', content: '0' },
        { role: 'user', content: 'again' },
      ],
    });
    const { data, events } = sse(streamed.text);
    expect(events[0]).toBe('message_start');
    expect(events).toContain('ping'); // kept alive while the LLM was slow, after message_start
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const json = data.filter((d) => at(d, 'type') === 'content_block_delta').map((d) => at(d, 'delta.partial_json')).join('');
    expect(JSON.parse(json)).toEqual({ expr: '1+1' });
    expect(at(data.find((d) => at(d, 'type') === 'message_delta'), 'delta.stop_reason')).toBe('tool_use');
    expect(at(h.trace.get('ep-1')!.calls[1]!.response, 'content.0')).toMatchObject({ type: 'tool_use', name: 'calc', input: { expr: '1+1' } });

    llm.script([{ kind: 'error', status: 429, retryAfterS: 2 }]);
    const limited = await post(h, '/v1/messages', { model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit reached for requests' } });
  });
});

describe('dry-run spend guard', () => {
  it('refuses calls past the per-episode limit with a clear error and traces why; other episodes go on', async () => {
    const h = await startHarness({ limits: { maxCallsPerEpisode: 2 } });
    expect((await post(h, '/v1/chat/completions', chatBody(), 'ep-a')).status).toBe(200);
    expect((await post(h, '/v1/chat/completions', chatBody(), 'ep-a')).status).toBe(200);
    const before = llm.calls.length;
    const third = await post(h, '/v1/chat/completions', chatBody(), 'ep-a');
    expect(third.status).toBe(403);
    expect(at(third.json(), 'error.message')).toMatch(/episode ep-a asked for LLM call 3, but the limit is 2 calls per episode/);
    expect(llm.calls.length).toBe(before); // the LLM never saw it
    expect(h.trace.get('ep-a')!.calls[2]).toMatchObject({ status: 403, error: expect.stringMatching(/limit is 2 calls per episode/) });
    expect((await post(h, '/v1/chat/completions', chatBody(), 'ep-b')).status).toBe(200);
    const messages = await post(h, '/v1/messages', { max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, 'ep-a');
    expect(messages.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
  });

  it('stops the whole dry run at max calls and at max tokens, saying which', async () => {
    const calls = await startHarness({ limits: { maxCalls: 2 } });
    await post(calls, '/v1/chat/completions', chatBody(), 'e1');
    await post(calls, '/v1/chat/completions', chatBody(), 'e2');
    const refused = await post(calls, '/v1/chat/completions', chatBody({ stream: true }), 'e3');
    expect(refused.status).toBe(403);
    expect(at(refused.json(), 'error.message')).toMatch(/made 2 LLM calls, the maximum per dry run is 2/);
    expect(calls.spend.snapshot().stoppedBy).toBe('2 calls reached (max calls per dry run)');
    expect(calls.trace.get('e3')!.calls[0]!.error).toMatch(/spend guard/);

    const tokens = await startHarness({ limits: { maxTokens: 5 } });
    expect((await post(tokens, '/v1/chat/completions', chatBody(), 'e1')).status).toBe(200);
    const over = await post(tokens, '/v1/chat/completions', chatBody(), 'e2');
    expect(over.status).toBe(403);
    expect(at(over.json(), 'error.message')).toMatch(/tokens, the maximum per dry run is 5/);
    expect(tokens.spend.snapshot().stoppedBy).toMatch(/max tokens per dry run/);
  });
});

describe('dry-run relay: the debug LLM key (canary)', () => {
  it('reaches the LLM but appears in no trace, export, error, log or answer', async () => {
    const h = await startHarness();
    llm.script([{ kind: 'error', status: 400, message: `Bad request for key ${KEY}` }]);
    const echoed = await post(h, '/v1/chat/completions', chatBody());
    expect(echoed.status).toBe(400);
    await post(h, '/v1/chat/completions', chatBody({ stream: true }));
    await post(h, '/v1/responses', { input: 'x' });
    await post(h, '/v1/messages', { max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    const wrong = await startHarness({ apiKey: `${KEY}-not-accepted` });
    await post(wrong, '/v1/chat/completions', chatBody());
    expect(llm.calls.filter((c) => c.headers.authorization === `Bearer ${KEY}`).length).toBeGreaterThan(0);
    const dir = await mkdtemp(join(tmpdir(), 'relay-export-'));
    try {
      const exported = await h.trace.exportJsonl(dir);
      expect(exported.episodes).toBe(1);
      expect(await readdir(dir)).toEqual([exported.path.split('/').at(-1)]); // no temp file left
      const files = [await readFile(exported.path, 'utf8'), await readFile((await wrong.trace.exportJsonl(dir)).path, 'utf8')].join('\n');
      const everything = [files, JSON.stringify(h.trace.get('ep-1')), JSON.stringify(wrong.trace.get('ep-1')), ...h.logs, ...wrong.logs, ...agentVisible].join('\n');
      expect(everything).toContain('ep-1');
      expect(everything).not.toContain(KEY);
      expect(everything).not.toContain(KEY.slice(10, 30));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('dry-run relay and trace store inside the dry-run server', () => {
  it('an episode claimed over HTTP: its LLM call reaches the debug LLM, the trace shows the call and the reward', async () => {
    const trace = new TraceStore();
    const spend = new SpendGuard({ maxCallsPerEpisode: 5, maxCalls: 100, maxTokens: 100_000 });
    const relay = new DebugLlmRelay({ baseUrl: llm.url, model: 'debug-model', apiKey: KEY, spend, calls: trace });
    const server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 10, trainingStepMs: 10, relay, trace });
    try {
      const call = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
        (await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json() as Promise<Record<string, unknown>>;
      const yaml = upstreamJob('  experiment_name: relay\n  data:\n    train_batch_size: 1\n  rollout:\n    num_repeat: 1\n');
      await call('/sync_train_config', { yaml_as_string: yaml });
      await call('/start_engine', {});
      const client = 'client-relay-test';
      let claim: Record<string, unknown> = {};
      for (let i = 0; i < 200 && claim.success !== true; i += 1) {
        claim = await call('/claim_episode', { client_uuid: client, episode_type: 'train', discard_episode_timeout: 60, throttle_policy: null });
        if (claim.success !== true) await new Promise((r) => setTimeout(r, 20));
      }
      expect(claim.success).toBe(true);
      const episode = String(claim.episode_uuid);
      const answer = await call('/v1/chat/completions', chatBody(), { authorization: `Bearer ${String(claim.openai_api_key)}` });
      expect(at(answer, 'choices.0.message.content')).toBe('fake answer to: What is 2+2?');
      expect(llm.calls.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      const ended = await call('/end_episode', { client_uuid: client, episode_uuid: episode, task_id: 'task-1', workflow_output: { reward: 0.75, metadata: { task_id: 'task-1' } } });
      expect(ended.success).toBe(true);
      const traced = trace.get(episode)!;
      expect(traced).toMatchObject({ state: 'ended', reward: 0.75, taskId: 'task-1', llmCalls: 1, step: expect.any(Number) });
      expect(traced.calls[0]).toMatchObject({ route: 'chat', status: 200, error: null });
      expect(trace.query({ step: null, taskId: 'task-1', offset: 0, limit: 10 }).episodes.map((e) => e.episodeUuid)).toEqual([episode]);
    } finally {
      relay.close();
      await server.close();
    }
  });
});
