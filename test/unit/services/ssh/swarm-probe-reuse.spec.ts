import { describe, expect, it } from 'vitest';
import { probeFromReading, READING_STANDS_FOR_PROBE_MS } from '../../../../electron/services/ssh/swarm-probe';
import type { SwarmReading } from '../../../../electron/services/swarm/watch-types';

const target = { engineId: 'ssh-gpu', containerId: 'c1', url: 'http://127.0.0.1:10086' };

describe('the tunnel probe reads the swarm monitor\'s poll of the same URL', () => {
  it('takes a recent answer as the probe, with its status and latency', () => {
    const reading: SwarmReading = { target, at: 1_000_000, engine: { engineStatus: 'ENGINE.ROLLING', engineStatusDetail: null, globalStep: 3 }, error: null, latencyMs: 4.2 };
    expect(probeFromReading(reading, 1_000_000 + 2000)).toEqual({ ok: true, engineStatus: 'ENGINE.ROLLING', error: null, latencyMs: 4.2, checkedAt: new Date(1_000_000).toISOString() });
  });

  it('asks itself after a failed poll, and after a reconnect (an answer through the old connection proves nothing)', () => {
    const failed: SwarmReading = { target, at: 1_000_000, engine: null, error: { message: 'cannot connect to http://127.0.0.1:10086 (ECONNRESET)', kind: 'unreachable' }, latencyMs: null };
    expect(probeFromReading(failed, 1_000_500)).toBeNull();
    const answered: SwarmReading = { ...failed, engine: { engineStatus: 'ENGINE.OFFLINE', engineStatusDetail: null, globalStep: null }, error: null, latencyMs: 2 };
    expect(probeFromReading(answered, 1_000_500, 1_000_100)).toBeNull();
    expect(probeFromReading(answered, 1_000_500, 999_000)).toMatchObject({ ok: true });
  });

  it('asks itself when the monitor does not watch the URL or its last poll is old (backing off)', () => {
    expect(probeFromReading(null)).toBeNull();
    const old: SwarmReading = { target, at: 1_000_000, engine: { engineStatus: 'ENGINE.OFFLINE', engineStatusDetail: null, globalStep: null }, error: null, latencyMs: 1 };
    expect(probeFromReading(old, 1_000_000 + READING_STANDS_FOR_PROBE_MS + 1)).toBeNull();
  });
});
