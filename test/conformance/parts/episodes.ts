// Episodes: register, claim (fail_cause strings), end, abort, can_continue, is_episode_claimed, the buffer
// (reference §1.1, §1.4, §1.5 "Episode lifecycle", appendix points 1, 3, 4).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { newClientUuid, newEpisodeUuid, STATUS } from '../support/swarm';

const NOT_READY: Record<string, string> = {
  [STATUS.OFFLINE]:
    'Engine not ready. Current status: [ENGINE.OFFLINE]. Please start the engine first. Please use one of the client to run `client.sync_train_config() + client.start_engine()` to start the engine.',
  [STATUS.BOOTING]: 'Engine not ready. Current status: [ENGINE.BOOTING]. Please wait until the engine is fully booted. Try again (maybe 1 minute) later.',
  [STATUS.ROLLING_POST]: 'Engine not ready. Current status: [ENGINE.ROLLING_POST]. Engine is in post-rolling phase. Try again (maybe 1 minute) later.',
  [STATUS.WEIGHT_SYNCING]: 'Engine not ready. Current status: [ENGINE.WEIGHT_SYNCING]. Engine is syncing weights. Try again (maybe 1 minute) later.',
  [STATUS.WEIGHT_EXPORTING]:
    'Engine not ready. Current status: [ENGINE.WEIGHT_EXPORTING]. Engine is exporting weights (fsdp -> hf safetensor). Try again (maybe 1 minute) later.',
};
const NO_EPISODES = 'No available episodes to claim. Try again (maybe 1 minute) later.';
const EPISODE_KEYS = [
  'client_uuid',
  'debug_log',
  'discard_episode_timeout',
  'episode_status',
  'episode_type',
  'episode_uuid',
  'latest_activity_timestamp',
  'llm_call_count',
  'openai_api_key',
  'openai_base_url',
  'optional_task_id',
  'zmq_listen_result_addr',
];

export function episodesPart(ctx: PartContext): void {
  describe('episodes', () => {
    it('claim fails with HTTP 200, empty fields and the fail_cause of each status; the status is checked before episode_type', async () => {
      const s = ctx.swarm();
      const client = newClientUuid();
      for (const status of Object.keys(NOT_READY)) {
        if (status !== STATUS.OFFLINE) await s.setStatus(status);
        for (const type of ['train', 'bogus']) {
          const r = await s.claim(client, { episodeType: type });
          expect(r.status).toBe(200);
          expect(r.json).toEqual({ success: false, client_uuid: client, episode_uuid: '', openai_base_url: '', openai_api_key: '', fail_cause: NOT_READY[status] });
        }
      }
    });

    it('while ROLLING: an unknown episode_type is 400, an empty pool says "No available episodes to claim."', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      expect(await s.claim(client, { episodeType: 'bogus' })).toMatchObject({ status: 400, json: { detail: 'Unknown episode_type: bogus' } });
      expect((await s.claim(client)).json).toEqual({ success: false, client_uuid: client, episode_uuid: '', openai_base_url: '', openai_api_key: '', fail_cause: NO_EPISODES });
    });

    it('register_episode works only while ROLLING', async () => {
      const s = ctx.swarm();
      const refusal = { success: false, failure_reason: 'Engine is not in rolling state. Cannot register episode.' };
      expect((await s.post('/register_episode', { episode_uuid: newEpisodeUuid() })).json).toEqual(refusal);
      await s.setStatus(STATUS.ROLLING_POST);
      expect((await s.post('/register_episode', { episode_uuid: newEpisodeUuid() })).json).toEqual(refusal);
      await s.setStatus(STATUS.ROLLING);
      const uuid = newEpisodeUuid();
      expect((await s.post('/register_episode', { episode_uuid: uuid })).json).toEqual({ success: true, failure_reason: '' });
      const record = await s.episode(uuid);
      expect(Object.keys(record).sort()).toEqual(EPISODE_KEYS);
      expect(record).toMatchObject({
        episode_status: 'registered',
        episode_type: 'train',
        openai_base_url: '',
        openai_api_key: '',
        client_uuid: '',
        zmq_listen_result_addr: '',
        discard_episode_timeout: -1,
        llm_call_count: 0,
        debug_log: [],
        optional_task_id: '',
      });
    });

    it('claims hand out registered episodes first-in first-out, with the registered base URL and key', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const [a, b] = [await s.register(), await s.register()];
      const client = newClientUuid();
      const first = await s.claim(client, { discardEpisodeTimeout: 60 });
      expect(first.json).toEqual({ success: true, client_uuid: client, episode_uuid: a, openai_base_url: 'http://10.0.0.1:10086/v1', openai_api_key: `sk-ajet-${a}`, fail_cause: '' });
      expect((await s.claim(client, { episodeType: 'eval' })).json.episode_uuid).toBe(b);
      expect(await s.episode(a)).toMatchObject({ episode_status: 'claimed', episode_type: 'train', client_uuid: client, discard_episode_timeout: 60, llm_call_count: 0 });
      expect(await s.episode(b)).toMatchObject({ episode_status: 'claimed', episode_type: 'eval' });
      expect((await s.claim(client)).json.fail_cause).toBe(NO_EPISODES);
    });

    it('end_episode: 400 when not rolling, 500 without metadata.task_id, 400 unknown, 400 not claimed, 404 another client', async () => {
      const s = ctx.swarm();
      const [client, other] = [newClientUuid(), newClientUuid()];
      for (const status of [STATUS.OFFLINE, STATUS.WEIGHT_SYNCING]) {
        if (status !== STATUS.OFFLINE) await s.setStatus(status);
        expect(await s.end(client, newEpisodeUuid(), '1')).toMatchObject({
          status: 400,
          json: { detail: `Engine is not in rolling state. Current status: [${status}]. Cannot end episode.` },
        });
      }
      await s.setStatus(STATUS.ROLLING, { global_step: 1 });
      const ep = await s.claimed(other);
      // The task_id asserts run before the episode lookup: even an unknown episode gets the 500.
      for (const metadata of [{}, { task_id: '2' }]) {
        const r = await s.end(client, newEpisodeUuid(), '1', 1.0, { workflow_output: { reward: 1.0, metadata } });
        expect(r).toMatchObject({ status: 500, text: 'Internal Server Error' });
      }
      const unknown = newEpisodeUuid();
      expect(await s.end(client, unknown, '1')).toMatchObject({ status: 400, json: { detail: `Episode ${unknown} not found.` } });
      expect(await s.end(client, ep, '1')).toMatchObject({
        status: 404,
        json: { detail: `Episode ${ep} is claimed by different client: ${other}, but got ${client}.` },
      });
      const registered = await s.register();
      expect(await s.end(client, registered, '1')).toMatchObject({
        status: 400,
        json: {
          detail: `Episode ${registered} is not in claimed status, maybe you take **too long** to submit the workflow output, try increase \`discard_episode_timeout\` when \`begin_episode\`.`,
        },
      });
    });

    it.skipIf(!ctx.target.capabilities.endTrainWithoutRunner)('end_episode of a train episode answers {success:true} and removes the record', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      const ep = await s.claimed(client);
      const r = await s.end(client, ep, '17', [1.0, 0.5]);
      expect(r).toMatchObject({ status: 200, json: { success: true } });
      expect(Object.keys(r.json)).toEqual(['success']);
      expect(await s.episode(ep)).toBeUndefined();
      expect((await s.post('/can_continue_episode', { client_uuid: client, episode_uuid: ep })).json).toEqual({ can_continue: false });
      // Ending it again: it is gone.
      expect((await s.end(client, ep, '17')).status).toBe(400);
    });

    it.skipIf(!ctx.target.capabilities.endTrainWithoutRunner)('while ROLLING_POST an in-flight train episode can still end, but nothing new is claimed', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      const inFlight = await s.claimed(client);
      await s.register();
      await s.setStatus(STATUS.ROLLING_POST);
      expect((await s.claim(client)).json.fail_cause).toBe(NOT_READY[STATUS.ROLLING_POST]);
      expect((await s.post('/can_continue_episode', { client_uuid: client, episode_uuid: inFlight })).json).toEqual({ can_continue: true });
      expect(await s.end(client, inFlight, '3')).toMatchObject({ status: 200, json: { success: true } });
      expect(await s.episode(inFlight)).toBeUndefined();
    });

    it('an eval episode, or an aborted one, goes back to the pool while ROLLING and is deleted while ROLLING_POST', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      const evalEp = await s.claimed(client, { episodeType: 'eval' });
      expect((await s.end(client, evalEp, 'e1')).json).toEqual({ success: true });
      expect(await s.episode(evalEp)).toMatchObject({ episode_status: 'registered', client_uuid: '', discard_episode_timeout: -1, llm_call_count: 0 });
      const again = await s.claim(client);
      expect(again.json.episode_uuid).toBe(evalEp);
      expect((await s.abort(client, evalEp)).json).toEqual({ success: true });
      expect(await s.episode(evalEp)).toMatchObject({ episode_status: 'registered', client_uuid: '' });
      const reclaimed = await s.claim(client, { episodeType: 'eval' });
      expect(reclaimed.json.episode_uuid).toBe(evalEp);
      const aborted = await s.claimed(client);
      await s.setStatus(STATUS.ROLLING_POST);
      expect((await s.end(client, evalEp, 'e1')).json).toEqual({ success: true });
      expect((await s.abort(client, aborted)).json).toEqual({ success: true });
      expect(await s.buffer()).toEqual([]);
    });

    it('abort_episode always succeeds: not rolling, unknown episode, empty task_id', async () => {
      const s = ctx.swarm();
      const client = newClientUuid();
      expect((await s.abort(client, newEpisodeUuid())).json).toEqual({ success: true });
      await s.startRolling();
      expect((await s.abort(client, newEpisodeUuid())).json).toEqual({ success: true });
      const minimal = await s.post('/abort_episode', { client_uuid: client, episode_uuid: 'x', task_id: '', workflow_output: {} });
      expect(minimal).toMatchObject({ status: 200, json: { success: true } });
    });

    it('can_continue_episode is true only for a claimed episode while rolling (for any client_uuid)', async () => {
      const s = ctx.swarm();
      const client = newClientUuid();
      const ask = async (episode: string, who = client) => (await s.post('/can_continue_episode', { client_uuid: who, episode_uuid: episode })).json;
      expect(await ask(newEpisodeUuid())).toEqual({ can_continue: false });
      await s.startRolling();
      const ep = await s.register();
      expect(await ask(ep)).toEqual({ can_continue: false });
      expect((await s.claim(client)).json.episode_uuid).toBe(ep);
      expect(await ask(ep)).toEqual({ can_continue: true });
      expect(await ask(ep, newClientUuid())).toEqual({ can_continue: true });
      await s.setStatus(STATUS.ROLLING_POST);
      expect(await ask(ep)).toEqual({ can_continue: true });
      await s.setStatus(STATUS.WEIGHT_SYNCING);
      expect(await ask(ep)).toEqual({ can_continue: false });
    });

    it('is_episode_claimed, and unregister_if_not_claimed deletes an unclaimed record', async () => {
      const s = ctx.swarm();
      const no = { success: false, failure_reason: '' };
      expect((await s.post('/is_episode_claimed', { episode_uuid: newEpisodeUuid() })).json).toEqual(no);
      await s.startRolling();
      const registered = await s.register();
      expect((await s.post('/is_episode_claimed', { episode_uuid: registered })).json).toEqual(no);
      expect(await s.episode(registered)).toBeDefined();
      expect((await s.post('/is_episode_claimed', { episode_uuid: registered, unregister_if_not_claimed: true })).json).toEqual(no);
      expect(await s.episode(registered)).toBeUndefined();
      expect((await s.claim(newClientUuid())).json.fail_cause).toBe(NO_EPISODES);
      const ep = await s.claimed(newClientUuid());
      expect((await s.post('/is_episode_claimed', { episode_uuid: ep, unregister_if_not_claimed: true })).json).toEqual({ success: true, failure_reason: '' });
    });
  });
}
