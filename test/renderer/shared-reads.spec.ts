import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InvokeChannel } from '../../electron/shared/contract';
import type { Result } from '../../electron/shared/result';
import { HAND_ON_MS, SharedReads } from '../../renderer/src/lib/api/shared-reads';

/** TEST DOUBLE of the HTTP invoke: counts requests per channel and answers each with its number. */
function counting() {
  const sent: string[] = [];
  const send = (channel: InvokeChannel): Promise<Result<unknown>> => {
    sent.push(channel);
    return Promise.resolve({ ok: true, value: sent.filter((c) => c === channel).length });
  };
  return { sent, reads: new SharedReads(send) };
}

/** One open of the socket: the replay's reads (and the landing's, which join them), then the replay is dispatched. */
async function openAndReplay(reads: SharedReads, channels: InvokeChannel[], eventsDuring: string[] = []): Promise<void> {
  reads.opened();
  await Promise.all(channels.map((c) => reads.call(c, {})));
  for (const event of eventsDuring) reads.eventArrived(event);
  reads.replayed();
}

afterEach(() => vi.useRealTimers());

// Issue 32: a new user's page (the wizard) mounts after the landing decided, i.e. after the replay: its first
// reads of the wizard's, the vault's and the secrets' state take the replay's answers instead of asking again.
describe('SharedReads: the replay’s snapshots handed on to the page shown after the landing', () => {
  it('hands each snapshot to one later read, then reads afresh', async () => {
    const { sent, reads } = counting();
    await openAndReplay(reads, ['wizard:state', 'vault:state', 'secrets:list', 'jobs:list']);
    expect(await reads.call('wizard:state', {})).toEqual({ ok: true, value: 1 });
    await reads.call('vault:state', {});
    await reads.call('secrets:list', {});
    expect(sent.filter((c) => c !== 'jobs:list')).toEqual(['wizard:state', 'vault:state', 'secrets:list']);
    // Used once: the next read is a request.
    expect(await reads.call('wizard:state', {})).toEqual({ ok: true, value: 2 });
    // A list whose event is not the whole snapshot (jobs: one job per event) is never handed on.
    await reads.call('jobs:list', {});
    expect(sent.filter((c) => c === 'jobs:list')).toHaveLength(2);
  });

  it('reads afresh once the snapshot’s event came, after the window or during it', async () => {
    const { sent, reads } = counting();
    await openAndReplay(reads, ['wizard:state', 'vault:state'], ['vault:changed']);
    reads.eventArrived('wizard:changed');
    await reads.call('wizard:state', {});
    await reads.call('vault:state', {});
    expect(sent).toEqual(['wizard:state', 'vault:state', 'wizard:state', 'vault:state']);
  });

  it('hands nothing of an earlier open to the next open’s replay (events may have been missed while down)', async () => {
    const { sent, reads } = counting();
    await openAndReplay(reads, ['wizard:state']);
    await openAndReplay(reads, ['wizard:state']);
    expect(sent).toEqual(['wizard:state', 'wizard:state']);
  });

  it('does not hand on an answer older than HAND_ON_MS', async () => {
    vi.useFakeTimers();
    const { sent, reads } = counting();
    await openAndReplay(reads, ['secrets:list']);
    vi.setSystemTime(Date.now() + HAND_ON_MS + 1);
    await reads.call('secrets:list', {});
    expect(sent).toEqual(['secrets:list', 'secrets:list']);
  });
});
