import { afterEach, describe, expect, it } from 'vitest';
import { ServerStateStore } from '../../../../electron/services/server-state/server-state-store';
import type { SwarmContainer } from '../../../../electron/shared/schemas';
import type { ServerState } from '../../../../electron/shared/server-state';
import { poll } from '../../../support/helpers';

const queuedJob: SwarmContainer = {
  id: '358', name: 'agentswarm-q', engineId: 'slurm-a', image: 'i', state: 'created', statusText: 'queued: Resources (position 1)', port: 10086, networkMode: 'host',
  createdAt: '2026-12-05T12:00:00Z', startedAt: null, finishedAt: null, exitCode: null, queue: { reason: 'Resources', position: 1 },
};

describe('the server-state store', () => {
  const stores: ServerStateStore[] = [];
  afterEach(() => stores.splice(0).forEach((s) => s.dispose()));

  it('asks an engine again after a failed listing (a slow login node), with growing waits, until it answers', async () => {
    const answers: (Error | SwarmContainer[])[] = [new Error('`squeue` did not finish within 30000 ms'), new Error('again'), [queuedJob]];
    const asked: number[] = [];
    const changed: ServerState[] = [];
    const retries: unknown[] = [];
    const store = new ServerStateStore({
      engines: () => [{ id: 'slurm-a', kind: 'slurm' }],
      list: async () => {
        asked.push(Date.now());
        const next = answers.shift() ?? [queuedJob];
        if (next instanceof Error) throw next;
        return next;
      },
      statuses: () => [],
      changed: (s) => changed.push(s),
      removed: () => undefined,
      logger: { warn: () => undefined, info: (_m: string, meta?: Record<string, unknown>) => retries.push(meta?.retryInMs) },
      debounceMs: 10,
      retryMs: 40,
    });
    stores.push(store);
    // A queued start's change event: the only one this engine sends while the job waits.
    store.scheduleRefresh('slurm-a');
    const state = await poll('the queued job to be known', 5000, async () => changed.find((s) => s.containerId === '358'), 10);
    expect(state).toMatchObject({ phase: 'queued', queue: { reason: 'Resources', position: 1 } });
    expect(asked).toHaveLength(3);
    expect(retries).toEqual([40, 80]);
    expect(asked[2]! - asked[1]!).toBeGreaterThanOrEqual(75);
    // Answered: no more listings of its own.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(asked).toHaveLength(3);
  });
});
