import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineRegistry } from '../../../../electron/services/engines/engine-registry';
import type { FollowLogOptions } from '../../../../electron/services/engines/container-engine';
import { LogService } from '../../../../electron/services/logs/log-service';
import { poll } from '../../../support/helpers';

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined };
const CONTAINER = 'c'.repeat(64);
const everything = { text: '', regex: false, stream: 'all' as const };

/**
 * A removed container's stored log goes with it. A read that came while it was being removed opened the file again,
 * and that empty log stayed (idle CI-AC, logs.spec). The engine is a TEST DOUBLE: two lines, then it follows until
 * aborted; the file system is real.
 */
describe('LogService: a read while a removed container\'s log is being deleted', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('answers LOG_NOT_FOUND, and leaves no log behind', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'log-forget-'));
    dirs.push(dataDir);
    const engine = {
      followLog: async (_id: string, options: FollowLogOptions) => {
        options.onLines([
          { stream: 'stdout', timestamp: '2026-12-06T00:00:00.000000001Z', text: 'first' },
          { stream: 'stdout', timestamp: '2026-12-06T00:00:00.000000002Z', text: 'second' },
        ]);
        await new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve()));
      },
    };
    const logs = new LogService({
      engines: { get: () => engine } as unknown as EngineRegistry,
      events: { emit: () => undefined },
      logger: silent,
      dataDir,
      downloadsDir: join(dataDir, 'downloads'),
      isWatching: () => true,
    });
    const request = { engineId: 'local', containerId: CONTAINER, from: 0, count: 10, filter: everything };
    logs.onTarget({ kind: 'watch', target: { engineId: 'local', containerId: CONTAINER, url: 'http://127.0.0.1:1' } });
    await poll('both lines stored', 5_000, async () => ((await logs.read(request)).total === 2 ? true : undefined));
    const path = logs.pathOf('local', CONTAINER);
    expect(existsSync(path)).toBe(true);

    logs.onTarget({ kind: 'forgotten', engineId: 'local', containerId: CONTAINER });
    // In the same turn, while its file is still there: not found, not an empty log opened anew.
    await expect(logs.read(request)).rejects.toMatchObject({ code: 'LOG_NOT_FOUND' });
    await poll('the stored log deleted', 5_000, async () => (existsSync(path) ? undefined : true));
    await expect(logs.read(request)).rejects.toMatchObject({ code: 'LOG_NOT_FOUND' });
    expect(existsSync(path)).toBe(false);
    expect(await logs.heads()).toEqual([]);
    await logs.dispose();
  });
});
