// POST /v1/chat/completions and /replay_latest_llm_call (reference §1.3, appendix points 2, 15, 16).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import type { Swarm } from '../support/swarm';
import { newClientUuid, newEpisodeUuid, STATUS } from '../support/swarm';

const BODY = { model: 'any-name', messages: [{ role: 'user', content: 'ping' }] };

/** The sk-ajet- routing key upstream's trainer registers: base64 of Python's json.dumps of four fields. */
function routingKey(episodeUuid: string, fields: Record<string, unknown> = {}): string {
  const json = JSON.stringify({ agent_name: 'default_agent_name', target_tag: 'default_target_tag', episode_uuid: episodeUuid, episode_address: `ipc:///tmp/agentjet/${episodeUuid}-default_target_tag.sock`, ...fields });
  return `sk-ajet-${Buffer.from(json.replace(/","/g, '", "').replace(/":"/g, '": "')).toString('base64')}`;
}

async function registerWithKey(s: Swarm): Promise<{ uuid: string; key: string }> {
  const uuid = newEpisodeUuid();
  const key = routingKey(uuid);
  await s.register(uuid, { openai_api_key: key });
  return { uuid, key };
}

const chat = (s: Swarm, key: string | undefined, body: unknown = BODY) =>
  s.call('POST', '/v1/chat/completions', { json: body, headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });

export function chatPart(ctx: PartContext): void {
  const noChat = !ctx.target.capabilities.chatWithoutRunner;

  describe('chat completions', () => {
    it('a missing or bad Authorization answers HTTP 200 with a serialised 401', async () => {
      const s = ctx.swarm();
      expect(await chat(s, undefined)).toMatchObject({ status: 200, json: { status_code: 401, detail: 'Missing authorization header', headers: null } });
      const cases: Array<[string, string]> = [
        ['abc', 'Invalid authorization header: Incorrect padding'],
        [Buffer.from('not json').toString('base64'), 'Invalid authorization header: Expecting value: line 1 column 1 (char 0)'],
        [Buffer.from('[1]').toString('base64'), "Invalid authorization header: 'list' object has no attribute 'get'"],
        [Buffer.from('{"agent_name": "a"}').toString('base64'), 'Invalid authorization data'],
      ];
      for (const [token, detail] of cases) {
        const r = await chat(s, `sk-ajet-${token}`);
        expect({ token, status: r.status, json: r.json }).toEqual({ token, status: 200, json: { status_code: 401, detail, headers: null } });
      }
    });

    it('outside ROLLING/ROLLING_POST it is 404; an unknown episode is 404 "Episode <id> not found."', async () => {
      const s = ctx.swarm();
      const uuid = newEpisodeUuid();
      expect(await chat(s, routingKey(uuid))).toMatchObject({ status: 404, json: { detail: 'The server is not in ENGINE.ROLLING status, cannot accept new requests.' } });
      await s.startRolling();
      expect(await chat(s, routingKey(uuid))).toMatchObject({ status: 404, json: { detail: `Episode ${uuid} not found.` } });
      await s.setStatus(STATUS.WEIGHT_SYNCING);
      expect((await chat(s, routingKey(uuid))).status).toBe(404);
    });

    it('a body that is not JSON is a 500', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const r = await s.call('POST', '/v1/chat/completions', { body: '{oops', headers: { authorization: `Bearer ${routingKey(newEpisodeUuid())}`, 'content-type': 'application/json' } });
      expect(r).toMatchObject({ status: 500, text: 'Internal Server Error' });
    });

    it('a registered but unclaimed episode is 404 naming the episode, and the call still counts', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const { uuid, key } = await registerWithKey(s);
      expect(await chat(s, key)).toMatchObject({ status: 404, json: { detail: `The episode ${uuid} is not claimed, cannot accept new requests.` } });
      expect(await s.episode(uuid)).toMatchObject({ llm_call_count: 1, episode_status: 'registered' });
    });

    it('replay_latest_llm_call is 404 before any call', async () => {
      expect(await ctx.swarm().post('/replay_latest_llm_call')).toMatchObject({ status: 404, json: { detail: 'No LLM call has been made yet' } });
    });

    it.skipIf(noChat)('a claimed episode gets a ChatCompletion; llm_call_count counts calls and restarts at "0" on each claim', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const { uuid, key } = await registerWithKey(s);
      const client = newClientUuid();
      expect((await s.claim(client)).json.episode_uuid).toBe(uuid);
      const r = await chat(s, key);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant' } }] });
      expect(typeof r.json.choices[0].message.content).toBe('string');
      // Upstream re-serialises the openai SDK's ChatCompletion: these keys are always there, null when absent.
      for (const key of ['refusal', 'annotations', 'audio', 'function_call', 'tool_calls']) expect(r.json.choices[0].message).toHaveProperty(key, null);
      expect(r.json).toHaveProperty('service_tier', null);
      expect(r.json.usage.total_tokens).toBe(r.json.usage.prompt_tokens + r.json.usage.completion_tokens);
      await chat(s, key);
      expect((await s.pool()).running_episode_details[uuid].llm_call_count).toBe('2');
      expect((await s.post('/replay_latest_llm_call')).json).toMatchObject({ input: BODY, output: { object: 'chat.completion' } });
      await s.abort(client, uuid);
      expect((await s.claim(client)).json.episode_uuid).toBe(uuid);
      expect((await s.pool()).running_episode_details[uuid].llm_call_count).toBe('0');
    });

    it.skipIf(noChat)('stream:true gives exactly three chunks and [DONE]; the last chunk carries finish_reason and the usage', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const { key } = await registerWithKey(s);
      await s.claim(newClientUuid());
      const r = await chat(s, key, { ...BODY, stream: true });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      const events = r.text.split('\n\n').filter((e) => e !== '');
      expect(events).toHaveLength(4);
      expect(events[3]).toBe('data: [DONE]');
      const chunks = events.slice(0, 3).map((e) => JSON.parse(e.replace(/^data: /, '')));
      for (const c of chunks) {
        expect(c).toMatchObject({ object: 'chat.completion.chunk', model: 'any-name', id: chunks[0].id });
        expect(c.id).toMatch(/^chatcmpl-/);
        expect(c).not.toHaveProperty('service_tier');
        expect(c).not.toHaveProperty('system_fingerprint');
      }
      expect(chunks[0].choices[0]).toMatchObject({ index: 0, delta: { content: '', role: 'assistant' }, finish_reason: null });
      expect(chunks[1].choices[0].delta).toEqual({ content: expect.any(String) });
      expect(chunks[2].choices[0]).toMatchObject({ delta: { content: '' }, finish_reason: 'stop' });
      expect(chunks[0]).not.toHaveProperty('usage');
      expect(chunks[1]).not.toHaveProperty('usage');
      const usage = chunks[2].usage;
      expect(usage.prompt_tokens).toBeGreaterThan(0);
      expect(usage.completion_tokens).toBeGreaterThan(0);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      const plain = await chat(s, key, { messages: BODY.messages, stream: true });
      expect(JSON.parse(plain.text.split('\n\n')[0]!.replace(/^data: /, '')).model).toBe('unknown_model');
    });

    it.skipIf(noChat)('a claimed episode still gets answers while ROLLING_POST (in-flight episodes may finish), and 404 once syncing', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const { uuid, key } = await registerWithKey(s);
      expect((await s.claim(newClientUuid())).json.episode_uuid).toBe(uuid);
      await s.setStatus(STATUS.ROLLING_POST);
      expect(await chat(s, key)).toMatchObject({ status: 200, json: { object: 'chat.completion' } });
      await s.setStatus(STATUS.WEIGHT_SYNCING);
      expect(await chat(s, key)).toMatchObject({ status: 404, json: { detail: 'The server is not in ENGINE.ROLLING status, cannot accept new requests.' } });
    });

    it.skipIf(noChat)('a chat call refreshes the episode and its active client', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      if (ctx.target.capabilities.endTrainWithoutRunner) await s.end(client, await s.claimed(client), 't');
      const { uuid, key } = await registerWithKey(s);
      await s.claim(client);
      await new Promise((ok) => setTimeout(ok, 150));
      const idleBefore = parseFloat((await s.pool()).running_episode_details[uuid].time_since_last_activity);
      const activeBefore = (await s.pool()).swarm_client_instruction.active_clients[0]?.last_activity_at;
      await chat(s, key);
      const pool = await s.pool();
      expect(parseFloat(pool.running_episode_details[uuid].time_since_last_activity)).toBeLessThanOrEqual(idleBefore);
      if (activeBefore !== undefined) expect(pool.swarm_client_instruction.active_clients[0].last_activity_at).toBeGreaterThan(activeBefore);
    });
  });
}
