import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../../electron/services/domain';
import { registerJobs, type JobsModule } from '../../../../electron/services/jobs/register';
import type { SwarmModule } from '../../../../electron/services/swarm/register';
import { JobStartRequest } from '../../../../electron/shared/schemas-jobs';
import type { SwarmStatus } from '../../../../electron/shared/schemas';
import { MemoryVault } from '../../../support/memory-vault';

/**
 * registerJobs' own wiring: AJET_SWARM_URL from the swarm monitor's statuses (a stopped server has
 * none), and `jobs:open-log` with and without a host that can open files. Only the parts of the
 * context the jobs domain reads are given.
 */
let dir: string;
let server: Server;
let url: string;
let statuses: Partial<SwarmStatus>[];
const modules: JobsModule[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-jobs-register-'));
  server = createServer((_req, res) => res.writeHead(200).end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  statuses = [];
});
afterEach(async () => {
  for (const module of modules.splice(0)) await module.dispose?.();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function jobs(openPath?: (path: string) => Promise<void>): Promise<JobsModule> {
  const context = { dataDir: dir, events: { emit: () => undefined }, vault: new MemoryVault(), logger: { warn: () => undefined }, openPath } as unknown as ServiceContext;
  const swarm = { monitor: { statuses: () => statuses } } as unknown as Pick<SwarmModule, 'monitor'>;
  const module = registerJobs(context, { swarm, tuning: { killTimeouts: { intMs: 200, termMs: 200 } } });
  await module.start?.();
  modules.push(module);
  return module;
}

const request = (script: string) =>
  JobStartRequest.parse({ kind: 'script', cwd: dir, script, python: '/usr/bin/python3', swarm: { engineId: 'local', containerId: 'c0ffee', profileId: null } });

describe('registerJobs', () => {
  it("takes AJET_SWARM_URL from the monitor's status of that server; a stopped one has no URL worth trying", async () => {
    await writeFile(join(dir, 'url.py'), 'import json, os\nprint("AGENTSWARM_RESULT " + json.dumps({"reward": 1, "url": os.environ["AJET_SWARM_URL"]}))\n');
    const module = await jobs();
    await expect(module.handlers['jobs:start'](request('url.py'))).rejects.toMatchObject({ code: 'SWARM_UNREACHABLE', message: expect.stringContaining('not running or not watched') });
    statuses = [{ engineId: 'local', containerId: 'c0ffee', url, connection: 'stopped' }];
    await expect(module.handlers['jobs:start'](request('url.py'))).rejects.toMatchObject({ code: 'SWARM_UNREACHABLE', message: expect.stringContaining('not running or not watched') });
    statuses = [{ engineId: 'other', containerId: 'c0ffee', url: 'http://127.0.0.1:1', connection: 'online' }, { engineId: 'local', containerId: 'c0ffee', url, connection: 'online' }];
    const job = await module.handlers['jobs:start'](request('url.py'));
    expect(job.swarmUrl).toBe(url);
    expect(await module.api.waitForEnd(job.id)).toMatchObject({ state: 'succeeded', result: { raw: { url } } });
  });

  it('jobs:open-log opens the file where the host can, and says where it is where it cannot', async () => {
    await writeFile(join(dir, 'ok.py'), 'print("AGENTSWARM_RESULT {\\"reward\\": 1}")\n');
    statuses = [{ engineId: 'local', containerId: 'c0ffee', url, connection: 'online' }];
    const opened: string[] = [];
    const electron = await jobs(async (path) => void opened.push(path));
    const job = await electron.handlers['jobs:start'](request('ok.py'));
    const ended = await electron.api.waitForEnd(job.id);
    expect(await electron.handlers['jobs:open-log']({ jobId: job.id })).toEqual({ opened: true, path: ended.logFile });
    expect(opened).toEqual([ended.logFile]);
    await electron.dispose?.();

    const browser = await jobs();
    await expect(browser.handlers['jobs:open-log']({ jobId: job.id })).rejects.toMatchObject({ code: 'LOG_UNAVAILABLE', message: expect.stringContaining(`This run's log is ${ended.logFile}`) });
    const failing = await jobs(async () => {
      throw new Error('no viewer for .log');
    });
    await expect(failing.handlers['jobs:open-log']({ jobId: job.id })).rejects.toMatchObject({ code: 'LOG_UNAVAILABLE', message: expect.stringContaining('no viewer for .log') });
  });
});
