// The dry run assembled as the app assembles it: the dry-run swarm server with the real LLM relay, spend guard and
// trace store, against the TEST DOUBLE LLM (test/fixtures/fake-llm) on 127.0.0.1, driven by SwarmClient's call
// sequences and an agent's chat calls. Checks the seams between the parts: the server's episode reaches the
// relay, the LLM's answer (and its 429) reaches the agent, the trace holds episodes, rewards, calls and the step walk.
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startDryRunServer, type DryRunServer } from '../../../electron/services/dry-run/dry-run-server';
import { DebugLlmRelay } from '../../../electron/services/dry-run/llm-relay';
import { SpendGuard } from '../../../electron/services/dry-run/spend-guard';
import { TraceStore } from '../../../electron/services/dry-run/trace-store';
import { startFakeLlm, type FakeLlm } from '../../fixtures/fake-llm/fake-llm';
import { chatCompletion, ClientSequences } from './swarm-client-sequences';
import { upstreamJob } from '../../support/job-yaml';

const KEY = 'sk-test-debug-llm-key-0123456789';
const YAML = upstreamJob('  experiment_name: relay_seam\n  data:\n    train_batch_size: 1\n  rollout:\n    num_repeat: 2\n');

let llm: FakeLlm;
let server: DryRunServer | undefined;
let relay: DebugLlmRelay | undefined;
beforeAll(async () => {
  llm = await startFakeLlm({ model: 'debug-model', requireKey: KEY });
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  relay?.close();
  await server?.close();
  server = undefined;
});

describe('dry run: server + relay + trace store + fake LLM', () => {
  it('two episodes with chat calls (plain, a 429, streamed) complete a step; the trace holds rewards, calls and the walk', async () => {
    const trace = new TraceStore();
    relay = new DebugLlmRelay({ baseUrl: llm.url, model: 'debug-model', apiKey: KEY, spend: new SpendGuard({ maxCallsPerEpisode: 10, maxCalls: 100, maxTokens: 100_000 }), calls: trace });
    server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 10, trainingStepMs: 10, relay, trace });
    const client = new ClientSequences(server.url);
    await client.autoSyncTrainConfigAndStartEngine(YAML);

    const first = await client.beginEpisode();
    const plain = await chatCompletion(first, { model: 'the-agent-says-gpt-4', messages: [{ role: 'user', content: 'What is 2+2?' }] });
    expect(plain.status).toBe(200);
    expect(plain.json.choices[0].message.content).toContain('What is 2+2?');
    // The episode's model field is ignored: the debug model was asked, with the debug key.
    expect(llm.calls.at(-1)).toMatchObject({ body: { model: 'debug-model' }, headers: { authorization: `Bearer ${KEY}` } });
    await client.endEpisode({ task_id: 'q' }, first.episodeUuid, { reward: 1 });

    const second = await client.beginEpisode();
    llm.script([{ kind: 'error', status: 429, retryAfterS: 1 }]);
    expect((await chatCompletion(second)).status).toBe(429);
    const streamed = await chatCompletion(second, { model: 'x', stream: true, messages: [{ role: 'user', content: 'stream please' }] });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('data: [DONE]');
    await client.endEpisode({ task_id: 'q' }, second.episodeUuid, { reward: 0 });

    await client.waitForStatus('ENGINE.ROLLING');
    expect((await client.engineStatus()).global_step).toBe(2);
    const page = trace.query({ step: 1, taskId: 'q', offset: 0, limit: 10 });
    expect(page.episodes.map((e) => [e.episodeUuid, e.state, e.reward, e.llmCalls]).sort()).toEqual(
      [
        [first.episodeUuid, 'ended', 1, 1],
        [second.episodeUuid, 'ended', 0, 2],
      ].sort(),
    );
    expect(trace.get(second.episodeUuid)?.calls.map((c) => [c.status, c.stream])).toEqual([
      [429, false],
      [200, true],
    ]);
    expect(page.steps.map((s) => s.status)).toEqual(expect.arrayContaining(['ENGINE.BOOTING', 'ENGINE.ROLLING', 'ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING']));
    expect(page.steps.find((s) => s.status === 'ENGINE.ROLLING_POST')?.reason).toContain('batch complete');
    // The replay route shows the last successful call.
    const replay = await fetch(`${server.url}/replay_latest_llm_call`, { method: 'POST' });
    expect(((await replay.json()) as { input: { messages: Array<{ content: string }> } }).input.messages[0]?.content).toBe('stream please');
  });
});

describe("the relay's answers as upstream puts them on the wire (issue 30 §3)", () => {
  const dataOf = (text: string): Array<Record<string, unknown> | string> =>
    text
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => block.slice('data: '.length))
      .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as Record<string, unknown>)));

  it('a stream always ends with usage in the finish chunk and names the request model; a plain answer has the SDK keys', async () => {
    relay = new DebugLlmRelay({ baseUrl: llm.url, model: 'debug-model', apiKey: KEY, spend: new SpendGuard({ maxCallsPerEpisode: 10, maxCalls: 100, maxTokens: 100_000 }), calls: new TraceStore() });
    server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 10, trainingStepMs: 10, relay });
    const client = new ClientSequences(server.url);
    await client.autoSyncTrainConfigAndStartEngine(YAML);
    const episode = await client.beginEpisode();

    // The agent did not ask for usage (no stream_options): upstream sends it anyway, in the last chunk.
    const streamed = await chatCompletion(episode, { model: 'agent-model', stream: true, messages: [{ role: 'user', content: 'count to three' }] });
    expect(llm.calls.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const data = dataOf(streamed.text);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.filter((d): d is Record<string, unknown> => typeof d !== 'string');
    expect(chunks.every((c) => c.model === 'agent-model')).toBe(true);
    const last = chunks.at(-1) as { choices: Array<{ finish_reason: string | null }>; usage: Record<string, number> };
    expect(last.choices[0]?.finish_reason).toBe('stop');
    expect(last.usage).toEqual({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(chunks.filter((c) => Array.isArray(c.choices) && c.choices.length === 0)).toEqual([]);
    // The replay keeps the stream's usage.
    const replay = (await (await fetch(`${server.url}/replay_latest_llm_call`, { method: 'POST' })).json()) as { output: { usage: unknown } };
    expect(replay.output.usage).toEqual(last.usage);

    const plain = await chatCompletion(episode, { model: 'agent-model', messages: [{ role: 'user', content: 'hi' }] });
    const message = plain.json.choices[0].message as Record<string, unknown>;
    for (const key of ['refusal', 'annotations', 'audio', 'function_call', 'tool_calls']) expect(message).toHaveProperty(key, null);
    expect(plain.json).toHaveProperty('service_tier', null);
    expect(message.content).toContain('hi');
  });
});
