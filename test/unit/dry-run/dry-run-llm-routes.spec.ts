// The dry-run server's agent-facing LLM routes beyond what the conformance suite checks (it follows c68c154's
// /v1/chat/completions): /v1/responses and /v1/messages as the newer upstream serves them (real 401s, x-api-key for
// Anthropic clients), what the relay is handed, a relay failure, and /replay_latest_llm_call after a stream.
// Relays here are TEST DOUBLES (the echo relay of the conformance suite, and failing ones written inline).
import { afterEach, describe, expect, it } from 'vitest';
import { startDryRunServer, type DryRunServer } from '../../../electron/services/dry-run/dry-run-server';
import type { LlmRelay } from '../../../electron/services/dry-run/relay-contract';
import { createEchoRelay, type EchoRelay } from '../../conformance/support/echo-relay';
import { request } from '../../conformance/support/http';
import { ClientSequences, type BegunEpisode } from './swarm-client-sequences';
import { upstreamJob } from '../../support/job-yaml';

const YAML = upstreamJob('  data:\n    train_batch_size: 1\n  rollout:\n    num_repeat: 2\n');

let server: DryRunServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function claimedEpisode(relay: LlmRelay): Promise<{ episode: BegunEpisode; client: ClientSequences; url: string }> {
  server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 10, relay });
  const client = new ClientSequences(server.url);
  await client.autoSyncTrainConfigAndStartEngine(YAML);
  return { episode: await client.beginEpisode({ taskIdForThrottle: 'task-9' }), client, url: server.url };
}

describe('dry-run LLM routes', () => {
  it('/v1/responses and /v1/messages refuse a bad key with a real 401; messages also takes x-api-key', async () => {
    const relay = createEchoRelay();
    const { episode, url } = await claimedEpisode(relay);
    for (const path of ['/v1/responses', '/v1/messages']) {
      expect(await request(url, 'POST', path, { json: { input: 'hi', messages: [] } })).toMatchObject({ status: 401, json: { detail: 'Missing authorization header' } });
      const bad = await request(url, 'POST', path, { json: { input: 'hi', messages: [] }, headers: { authorization: 'Bearer sk-ajet-abc' } });
      expect(bad).toMatchObject({ status: 401, json: { detail: 'Invalid authorization header: Incorrect padding' } });
    }
    const messages = await request(url, 'POST', '/v1/messages', {
      json: { model: 'claude-whatever', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      headers: { 'x-api-key': episode.apiKey },
    });
    expect(messages.status).toBe(200);
    const responses = await request(url, 'POST', '/v1/responses', { json: { model: 'x', input: 'hi' }, headers: { authorization: `Bearer ${episode.apiKey}` } });
    expect(responses.status).toBe(200);
    expect(relay.calls.map((c) => [c.route, c.episode.callIndex, c.episode.taskId])).toEqual([
      ['messages', 1, 'task-9'],
      ['responses', 2, 'task-9'],
    ]);
    expect(relay.calls[1]?.body).toEqual({ model: 'x', input: 'hi' });
    const replay = (await request(url, 'POST', '/replay_latest_llm_call')).json;
    expect(replay.format).toBe('responses');
  });

  it('the newer routes make the same swarm checks: an unknown episode is 404', async () => {
    const relay = createEchoRelay();
    const { url } = await claimedEpisode(relay);
    const key = `sk-ajet-${Buffer.from('{"agent_name": "a", "target_tag": "t", "episode_uuid": "nope"}').toString('base64')}`;
    const r = await request(url, 'POST', '/v1/messages', { json: { messages: [] }, headers: { 'x-api-key': key } });
    expect(r).toMatchObject({ status: 404, json: { detail: 'Episode nope not found.' } });
    expect(relay.calls).toEqual([]);
  });

  it('a relay that fails before answering gives the agent a 502 naming the relay; after the head, the connection drops', async () => {
    let mode: 'before' | 'after' = 'before';
    const failing: LlmRelay = {
      async handle(_route, _episode, _body, _req, res) {
        if (mode === 'after') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: {}\n\n');
        }
        throw new Error('upstream LLM unreachable');
      },
    };
    const { episode, url } = await claimedEpisode(failing);
    const call = () => request(url, 'POST', '/v1/chat/completions', { json: { messages: [] }, headers: { authorization: `Bearer ${episode.apiKey}` } });
    expect(await call()).toMatchObject({ status: 502, json: { detail: "The dry run's LLM relay failed: upstream LLM unreachable" } });
    mode = 'after';
    await expect(call()).rejects.toThrow();
  });

  it('replay_latest_llm_call puts a streamed chat answer back together', async () => {
    const relay: EchoRelay = createEchoRelay();
    const { episode, url } = await claimedEpisode(relay);
    const body = { model: 'm', stream: true, messages: [{ role: 'user', content: 'ping' }] };
    const streamed = await request(url, 'POST', '/v1/chat/completions', { json: body, headers: { authorization: `Bearer ${episode.apiKey}` } });
    expect(streamed.status).toBe(200);
    const replay = (await request(url, 'POST', '/replay_latest_llm_call')).json;
    expect(replay.input).toEqual(body);
    expect(replay.output).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: '[echo relay] reply #1 to: ping' }, finish_reason: 'stop' }] });
    expect(replay.output.usage.total_tokens).toBeGreaterThan(0);
    expect(replay).not.toHaveProperty('format');
  });
});
