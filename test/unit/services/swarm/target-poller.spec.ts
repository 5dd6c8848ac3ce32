import { afterEach, describe, expect, it } from 'vitest';
import { TargetPoller } from '../../../../electron/services/swarm/target-poller';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../../../fixtures/fake-swarm/server.mjs';
import { poll } from '../../../support/helpers';

// One target's poller against the fake swarm server (a TEST DOUBLE, in-process).
describe('TargetPoller', () => {
  let server: FakeSwarmHandle | undefined;
  let poller: TargetPoller | undefined;
  afterEach(async () => {
    poller?.stop();
    await server?.close();
  });

  it('goes on polling after a hook throws, and reports the throw instead of leaving an unhandled rejection', async () => {
    server = await startFakeSwarmServer({ port: 0, quiet: true });
    const failures: unknown[] = [];
    let answers = 0;
    poller = new TargetPoller(
      { engineId: 'local', containerId: 'c'.repeat(64), url: server.url },
      { pace: { intervalMs: 20, hiddenIntervalMs: 20, maxBackoffMs: 20 }, timeoutMs: 2000, startGraceMs: 60_000, firstRetryMs: 5, shown: () => true },
      {
        reading: () => undefined,
        answered: () => {
          answers += 1;
          return Promise.reject(new Error(`answer ${answers} could not be handled`));
        },
        failed: () => undefined,
        overdue: () => undefined,
        hookFailed: (error) => failures.push(error),
      },
    );
    poller.start();
    await poll('three answers', 10_000, async () => (answers >= 3 ? true : undefined));
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(String(failures[0])).toContain('answer 1 could not be handled');
  });
});
