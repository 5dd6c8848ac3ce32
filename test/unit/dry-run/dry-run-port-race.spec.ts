// A dry run on a port of the app's choosing, when that port is taken between the look and the bind (idle CI-AI: the
// wizard's dry run lost 10087 to another app's tunnel, which takes ports from 10086 up too). Real sockets and the real
// run (server, relay, trace store); what takes the port is a plain listener opened at the worst moment.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/services/events';
import type { DryRunRunFactory } from '../../../electron/services/dry-run/dry-run-parts';
import { realRunFactory } from '../../../electron/services/dry-run/dry-run-run';
import { DryRunService } from '../../../electron/services/dry-run/dry-run-service';
import type { DryRunConfig } from '../../../electron/shared/schemas-dryrun';
import { freePort } from '../../support/helpers';
import { MemoryVault } from '../../support/memory-vault';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

/** The real run, but each of the first `steals` starts finds its port taken just before it binds. */
function racingRuns(steals: number): { startRun: DryRunRunFactory; stolen: number[] } {
  const real = realRunFactory();
  const stolen: number[] = [];
  const startRun: DryRunRunFactory = async (options) => {
    if (stolen.length < steals) {
      const thief = await listen(options.port);
      stolen.push(options.port);
      cleanups.push(() => new Promise<void>((ok) => thief.close(() => ok())));
    }
    return real(options);
  };
  return { startRun, stolen };
}

async function service(startRun: DryRunRunFactory): Promise<DryRunService> {
  const downloads = mkdtempSync(join(tmpdir(), 'dry-run-port-race-'));
  cleanups.push(() => rmSync(downloads, { recursive: true, force: true }));
  const dryRun = new DryRunService({ events: new EventHub(), vault: new MemoryVault(), logger: { warn: () => undefined }, appVersion: 'test', downloadsDir: downloads, startRun, defaultPort: await freePort() });
  cleanups.push(async () => void (await dryRun.stopRequested().catch(() => undefined)));
  return dryRun;
}

const config = (port: number | null): DryRunConfig => ({
  port,
  llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none', secretId: null },
  bootDelayMs: 30,
  trainingStepMs: 30,
  spend: { maxCallsPerEpisode: 5, maxCalls: 10, maxTokens: 10_000 },
});

describe('the dry run on a port taken before it binds', () => {
  it('chooses again past a port of its own choosing, and says which port was taken', async () => {
    const { startRun, stolen } = racingRuns(2);
    const dryRun = await service(startRun);
    const view = await dryRun.start({ config: config(null) });
    expect(view.state).toBe('running');
    expect(stolen).toHaveLength(2);
    expect(stolen[1]).toBeGreaterThan(stolen[0]!);
    expect(view.port).toBeGreaterThan(stolen[1]!);
    expect(view.portNote).toMatch(new RegExp(`^port ${stolen[0]} is taken.*, using ${view.port}$`));
  });

  it('keeps a port the user named: PORT taken is their error to fix, not another port', async () => {
    const port = await freePort();
    const { startRun, stolen } = racingRuns(1);
    const dryRun = await service(startRun);
    await expect(dryRun.start({ config: config(port) })).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use: choose another port for the dry run`);
    expect(stolen).toEqual([port]);
    expect((await dryRun.view()).state).toBe('failed');
  });
});
