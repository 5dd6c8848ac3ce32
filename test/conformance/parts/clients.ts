// Active clients and /agree_sync_weight (reference appendix points 16, 17; §2 agree_sync_weight()).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import type { Swarm } from '../support/swarm';
import { newClientUuid, STATUS } from '../support/swarm';

const ANY_AGREE = 'rollout_until_any_client_agree_sync_weight';
const notActive = (id: string) =>
  `Client ${id} is not in the active list -- it must have completed at least one rewarded (non-abort) episode since the last weight sync before agreeing.`;

async function activeClients(s: Swarm): Promise<Array<{ client_uuid: string; last_activity_at: number; allowed_sync_weight: boolean }>> {
  return (await s.pool()).swarm_client_instruction.active_clients;
}

export function clientsPart(ctx: PartContext): void {
  const needsRunner = !ctx.target.capabilities.endTrainWithoutRunner;

  describe('active clients and agree_sync_weight', () => {
    it.skipIf(needsRunner)('a train end_episode makes its client active; eval ends and claims alone do not', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const [trainer, evaluator, silent] = [newClientUuid(), newClientUuid(), newClientUuid()];
      const evalEp = await s.claimed(evaluator, { episodeType: 'eval' });
      expect((await s.end(evaluator, evalEp, 'e')).status).toBe(200);
      expect((await s.claim(silent)).json.episode_uuid).toBe(evalEp);
      expect(await activeClients(s)).toEqual([]);
      const before = Date.now() / 1000;
      const ep = await s.claimed(trainer);
      expect((await s.end(trainer, ep, 't')).status).toBe(200);
      const active = await activeClients(s);
      expect(active).toEqual([{ client_uuid: trainer, last_activity_at: expect.any(Number), allowed_sync_weight: false }]);
      expect(active[0]?.last_activity_at).toBeGreaterThanOrEqual(before - 1);
      // declare_client_active:false does not add one.
      const quiet = newClientUuid();
      const q = await s.claimed(quiet);
      expect((await s.end(quiet, q, 't', 1.0, { declare_client_active: false })).status).toBe(200);
      expect((await activeClients(s)).map((c) => c.client_uuid)).toEqual([trainer]);
    });

    it.skipIf(needsRunner)('a claim refreshes an active client; abort_episode of a known episode declares its client active', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      const client = newClientUuid();
      const ep = await s.claimed(client);
      await s.end(client, ep, 't');
      const first = (await activeClients(s))[0]?.last_activity_at ?? 0;
      await new Promise((ok) => setTimeout(ok, 30));
      await s.claimed(client);
      expect((await activeClients(s))[0]?.last_activity_at).toBeGreaterThan(first);
      const aborter = newClientUuid();
      const a = await s.claimed(aborter);
      await s.abort(aborter, a);
      expect((await activeClients(s)).map((c) => c.client_uuid)).toEqual([client, aborter]);
    });

    it('agree_sync_weight: "client_uuid required" for an empty id, 422 for a missing one', async () => {
      const s = ctx.swarm();
      expect((await s.post('/agree_sync_weight', { client_uuid: '' })).json).toEqual({ success: false, failure_reason: 'client_uuid required' });
      const missing = await s.post('/agree_sync_weight', {});
      expect(missing.status).toBe(422);
      expect(missing.json.detail).toEqual([expect.objectContaining({ type: 'missing', loc: ['body', 'client_uuid'] })]);
    });

    it('agree_sync_weight is a 500 unless the trainer runs an *_agree_sync_weight method', async () => {
      const s = ctx.swarm();
      const client = newClientUuid();
      expect(await s.post('/agree_sync_weight', { client_uuid: client })).toMatchObject({ status: 500, text: 'Internal Server Error' });
      await s.pushPool({ sample_collection_method: 'rollout_until_finish_enough_tasks' });
      expect((await s.post('/agree_sync_weight', { client_uuid: client })).status).toBe(500);
      await s.pushPool({ sample_collection_method: ANY_AGREE });
      expect((await s.post('/agree_sync_weight', { client_uuid: client })).json).toEqual({ success: false, failure_reason: notActive(client) });
    });

    it.skipIf(needsRunner)('an active client that agrees is marked allowed_sync_weight, in the pool and in the push answer', async () => {
      const s = ctx.swarm();
      await s.startRolling();
      await s.pushPool({ sample_collection_method: 'rollout_until_all_clients_agree_sync_weight' });
      const [a, b] = [newClientUuid(), newClientUuid()];
      for (const client of [a, b]) await s.end(client, await s.claimed(client), 't');
      expect((await s.post('/agree_sync_weight', { client_uuid: a })).json).toEqual({ success: true, failure_reason: '' });
      expect((await s.post('/agree_sync_weight', { client_uuid: a })).json).toEqual({ success: true, failure_reason: '' });
      const instruction = await s.pushPool({ sample_collection_method: 'rollout_until_all_clients_agree_sync_weight' });
      expect(instruction.json.active_clients.map((c: { client_uuid: string; allowed_sync_weight: boolean }) => [c.client_uuid, c.allowed_sync_weight])).toEqual([
        [a, true],
        [b, false],
      ]);
      expect((await activeClients(s)).map((c) => c.allowed_sync_weight)).toEqual([true, false]);
      // The next weight sync clears the list, agreements included.
      await s.setStatus(STATUS.WEIGHT_SYNCING);
      await s.setStatus(STATUS.ROLLING, { global_step: 2 });
      expect(await activeClients(s)).toEqual([]);
      expect((await s.post('/agree_sync_weight', { client_uuid: a })).json).toEqual({ success: false, failure_reason: notActive(a) });
    });
  });
}
