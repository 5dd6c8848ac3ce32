// Pool-state bookkeeping: GET /get_current_batch_rollout_pool_information, the trainer's push, running episode
// details, optional_task_id and completed_tasks_client_uuids, verbose logs (reference §1.2, appendix points 8, 16).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { newClientUuid, STATUS } from '../support/swarm';

export const POOL_KEYS = [
  'sample_collection_method',
  'completed_episodes',
  'completed_episode_target',
  'completed_tasks',
  'completed_task_target',
  'completed_non_dummy_tasks',
  'completed_non_dummy_task_target',
  'task_expected_num_repeat',
  'completed_tasks_details',
  'completed_tasks_rewards',
  'completed_tasks_client_uuids',
  'running_episode_details',
  'engine_status',
  'global_step',
  'booting_start_time',
  'training_model_path',
  'swarm_client_instruction',
];
const throttle = (taskId: string) => ({ ratio: 1.5, expected_batch_size: 2, expected_num_repeat: 2, current_task_id: taskId });

export function poolPart(ctx: PartContext): void {
  describe('pool information', () => {
    it('has every field of CurrentBatchRolloutPoolInformation, with defaults before any push', async () => {
      const pool = await ctx.swarm().pool();
      expect(Object.keys(pool)).toEqual(POOL_KEYS);
      expect(pool).toEqual({
        sample_collection_method: '',
        completed_episodes: 0,
        completed_episode_target: 0,
        completed_tasks: 0,
        completed_task_target: 0,
        completed_non_dummy_tasks: 0,
        completed_non_dummy_task_target: 0,
        task_expected_num_repeat: 0,
        completed_tasks_details: {},
        completed_tasks_rewards: {},
        completed_tasks_client_uuids: {},
        running_episode_details: null,
        engine_status: STATUS.OFFLINE,
        global_step: null,
        booting_start_time: null,
        training_model_path: null,
        swarm_client_instruction: { active_clients: [] },
      });
    });

    it("the trainer's push is stored, except the fields only the server maintains, and answers the instruction", async () => {
      const s = ctx.swarm();
      const pushed = {
        sample_collection_method: 'rollout_until_finish_enough_tasks',
        completed_episodes: 3,
        completed_episode_target: 4,
        completed_tasks: 1,
        completed_task_target: 2,
        completed_non_dummy_tasks: 1,
        completed_non_dummy_task_target: 2,
        task_expected_num_repeat: 2,
        completed_tasks_details: { 'task-a': ['e1', 'e2'], 'task-b': ['e3'] },
        completed_tasks_rewards: { 'task-a': [1.0, 0.0], 'task-b': [1.0] },
        completed_tasks_client_uuids: { 'task-a': ['c1'] },
        running_episode_details: { e9: { episode_status: 'claimed' } },
        engine_status: STATUS.ROLLING,
        global_step: 99,
      };
      const r = await s.pushPool(pushed);
      expect(r).toMatchObject({ status: 200, json: { active_clients: [] } });
      expect(Object.keys(r.json)).toEqual(['active_clients']);
      const pool = await s.pool();
      expect(pool).toMatchObject({
        ...pushed,
        completed_tasks_client_uuids: {},
        running_episode_details: null,
        engine_status: STATUS.OFFLINE,
        global_step: null,
      });
      expect(await s.pushPool({})).toMatchObject({ status: 200, json: { active_clients: [] } });
      expect((await s.pool()).completed_episodes).toBe(0);
      const bad = await s.pushPool({ completed_episodes: 'many' });
      expect(bad.status).toBe(422);
      expect(bad.json.detail).toEqual([expect.objectContaining({ type: 'int_parsing', loc: ['body', 'completed_episodes'] })]);
    });

    it('running_episode_details has one entry per claimed episode, every value a string', async () => {
      const s = ctx.swarm();
      expect((await s.pool()).running_episode_details).toBeNull();
      await s.startRolling();
      const client = newClientUuid();
      const plain = await s.claimed(client, { discardEpisodeTimeout: 240 });
      const tagged = await s.claimed(client, { discardEpisodeTimeout: 60.5, throttlePolicy: throttle('task-7') });
      await s.register(); // registered, not claimed: not listed
      const details = (await s.pool()).running_episode_details;
      expect(Object.keys(details).sort()).toEqual([plain, tagged].sort());
      expect(details[plain]).toEqual({
        episode_status: 'claimed',
        time_since_last_activity: expect.stringMatching(/^\d+\.\ds$/),
        discard_episode_timeout: '240.0s',
        llm_call_count: '0',
        client_uuid: client,
        optional_task_id: '',
      });
      expect(details[tagged]).toMatchObject({ discard_episode_timeout: '60.5s', optional_task_id: 'task-7' });
      expect(await s.episode(tagged)).toMatchObject({ optional_task_id: 'task-7' });
    });

    it('optional_task_id comes only from a non-empty throttle_policy.current_task_id, and survives a requeue', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      const ep = await s.claimed(client, { throttlePolicy: throttle('') });
      expect(await s.episode(ep)).toMatchObject({ optional_task_id: '' });
      await s.abort(client, ep);
      expect((await s.claim(client, { throttlePolicy: throttle('t-1') })).json.episode_uuid).toBe(ep);
      await s.abort(client, ep);
      // Claimed again without a task id: the earlier one stays on the record.
      expect((await s.claim(client)).json.episode_uuid).toBe(ep);
      expect(await s.episode(ep)).toMatchObject({ optional_task_id: 't-1', episode_status: 'claimed' });
    });

    it.skipIf(!ctx.target.capabilities.endTrainWithoutRunner)(
      "completed_tasks_client_uuids is keyed by the claim's task id (not end_episode's) and outlives a status change",
      async () => {
        const s = ctx.swarm();
        await s.startRolling();
        const [c1, c2] = [newClientUuid(), newClientUuid()];
        const e1 = await s.claimed(c1, { throttlePolicy: throttle('claim-task') });
        const e2 = await s.claimed(c2, { throttlePolicy: throttle('claim-task') });
        const e3 = await s.claimed(c1);
        for (const [client, ep] of [[c1, e1], [c2, e2], [c1, e3]] as const) expect((await s.end(client, ep, 'end-task')).status).toBe(200);
        expect((await s.pool()).completed_tasks_client_uuids).toEqual({ 'claim-task': [c1, c2] });
        // Leaving ROLLING drops the finished records, but the map built by the last GET stays.
        await s.setStatus(STATUS.WEIGHT_SYNCING, { global_step: 1 });
        expect((await s.pool()).completed_tasks_client_uuids).toEqual({ 'claim-task': [c1, c2] });
        await s.setStatus(STATUS.ROLLING, { global_step: 2 });
        expect((await s.pool()).completed_tasks_client_uuids).toEqual({ 'claim-task': [c1, c2] });
        // Until the trainer pushes its next snapshot.
        await s.pushPool({ sample_collection_method: 'rollout_until_finish_enough_tasks' });
        expect((await s.pool()).completed_tasks_client_uuids).toEqual({});
      },
    );

    it('live fields follow the server on every GET', async () => {
      const s = ctx.swarm();
      await s.pushPool({ engine_status: STATUS.ROLLING, global_step: 4, booting_start_time: 1.5, training_model_path: '/x', swarm_client_instruction: { active_clients: [{ client_uuid: 'c', last_activity_at: 1 }] } });
      expect(await s.pool()).toMatchObject({ engine_status: STATUS.OFFLINE, global_step: null, booting_start_time: null, training_model_path: null, swarm_client_instruction: { active_clients: [] } });
      await s.setStatus(STATUS.WEIGHT_EXPORTING, { global_step: 8 });
      expect(await s.pool()).toMatchObject({ engine_status: STATUS.WEIGHT_EXPORTING, global_step: 8 });
    });

    it('verbose logs: pushed entries come back with a timestamp, at most the last 50', async () => {
      const s = ctx.swarm();
      expect((await s.get('/get_verbose_logs')).json).toEqual({ entries: [] });
      const before = Date.now() / 1000;
      expect((await s.post('/push_verbose_log', { message: 'only message' })).json).toEqual({ success: true, failure_reason: '' });
      const one = (await s.get('/get_verbose_logs')).json.entries;
      expect(one).toEqual([{ timestamp: expect.any(Number), tag: '', message: 'only message' }]);
      expect(one[0].timestamp).toBeGreaterThanOrEqual(before - 1);
      expect((await s.post('/push_verbose_log', { tag: 't' })).status).toBe(422);
      for (let i = 0; i < 55; i++) await s.post('/push_verbose_log', { tag: 'n', message: String(i) });
      const entries = (await s.get('/get_verbose_logs')).json.entries;
      expect(entries).toHaveLength(50);
      expect(entries.at(-1).message).toBe('54');
      expect(entries[0].message).toBe('5');
    });
  });
}
