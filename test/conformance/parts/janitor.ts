// The janitor: claimed episodes idle past discard_episode_timeout go back to the pool, and clients idle past
// CLIENT_ACTIVE_TIMEOUT leave the active list (reference §1.5, appendix point 10). Run with short timeouts.
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { eventually, newClientUuid } from '../support/swarm';

const FAST = { janitorIntervalMs: 100, clientActiveTimeoutS: 0.6 };

export function janitorPart(ctx: PartContext): void {
  const fixed = !ctx.target.capabilities.configurableJanitor;

  describe('janitor', () => {
    it.skipIf(fixed)('reverts a claimed episode idle past its discard_episode_timeout; ending it then is 400 "too long"', async () => {
      const s = await ctx.restart(FAST);
      await s.startRolling();
      const client = newClientUuid();
      const idle = await s.claimed(client, { discardEpisodeTimeout: 0.2 });
      const busy = await s.claimed(client, { discardEpisodeTimeout: 240 });
      const reverted = await eventually('the idle episode back in the pool', 5000, async () => {
        const e = await s.episode(idle);
        return e?.episode_status === 'registered' ? e : undefined;
      });
      expect(reverted).toMatchObject({ client_uuid: '', discard_episode_timeout: -1, llm_call_count: 0 });
      expect(await s.episode(busy)).toMatchObject({ episode_status: 'claimed', client_uuid: client });
      expect((await s.post('/can_continue_episode', { client_uuid: client, episode_uuid: idle })).json).toEqual({ can_continue: false });
      const late = await s.end(client, idle, 't');
      expect(late.status).toBe(400);
      expect(late.json.detail).toContain('take **too long**');
      expect(late.json.detail).toContain('`discard_episode_timeout`');
      // It can be claimed again.
      expect((await s.claim(newClientUuid())).json.episode_uuid).toBe(idle);
    });

    it.skipIf(fixed || !ctx.target.capabilities.endTrainWithoutRunner)('drops a client idle past CLIENT_ACTIVE_TIMEOUT from the active list', async () => {
      const s = await ctx.restart(FAST);
      await s.startRolling();
      const client = newClientUuid();
      await s.end(client, await s.claimed(client), 't');
      expect((await s.pool()).swarm_client_instruction.active_clients).toHaveLength(1);
      await eventually('the idle client expired', 5000, async () => ((await s.pool()).swarm_client_instruction.active_clients.length === 0 ? true : undefined));
    });
  });
}
