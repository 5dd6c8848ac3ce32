import { existsSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { canListen, freePort, portClaimFile, TEST_PORTS } from '../../support/helpers';

// freePort's claims between test processes: the lanes of `npm test` run side by side, and a port one of them picked
// may not be listened on for seconds. Real files in the real claims folder; the random pick is steered.
const span = TEST_PORTS.high - TEST_PORTS.low + 1;
const pickFirst = (port: number) => {
  const random = vi.spyOn(Math, 'random');
  random.mockReturnValueOnce((port - TEST_PORTS.low + 0.5) / span);
  return random;
};

/** A port nobody listens on and nobody claimed: one freePort would hand out if asked for it. */
async function unclaimedPort(): Promise<number> {
  const port = await freePort();
  // freePort claimed it for this process, and would never hand it out again here: take the next free one above.
  for (let candidate = port + 1; candidate <= TEST_PORTS.high; candidate++) {
    if (!existsSync(portClaimFile(candidate)) && (await canListen(candidate, '0.0.0.0')) && (await canListen(candidate, '127.0.0.1'))) return candidate;
  }
  throw new Error('no unclaimed port above the one just handed out');
}

const written: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const file of written.splice(0)) rmSync(file, { force: true });
});

function claimAsAnotherProcess(port: number, ageMs: number): void {
  const file = portClaimFile(port);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '99999');
  const at = (Date.now() - ageMs) / 1000;
  utimesSync(file, at, at);
  written.push(file);
}

describe('freePort between test processes', () => {
  it('never hands out a port another process claimed a moment ago, even while nothing listens on it', async () => {
    const claimed = await unclaimedPort();
    claimAsAnotherProcess(claimed, 0);
    pickFirst(claimed);
    const port = await freePort();
    expect(port).not.toBe(claimed);
    written.push(portClaimFile(port));
  });

  it("takes over an earlier run's claim (older than an hour), and claims the port for itself", async () => {
    const stale = await unclaimedPort();
    claimAsAnotherProcess(stale, 2 * 60 * 60 * 1000);
    pickFirst(stale);
    expect(await freePort()).toBe(stale);
    expect(Date.now() - statSync(portClaimFile(stale)).mtimeMs).toBeLessThan(60_000);
  });
});
