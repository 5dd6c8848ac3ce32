// The wizard's "start the swarm" step for a server that is a Slurm batch job still waiting in the queue: the wait
// for its address does not run out while the job is queued, the step says why it waits, and the usual wait starts
// once the job has left the queue. The other domains' handlers are TEST DOUBLES answering as a queued Slurm job
// would (the real flow runs in test/integration/slurm-queue.spec.ts); /health is a real HTTP server on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handlers } from '../../../../electron/services/ipc/handlers';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';
import { startSwarm, type SwarmProgress } from '../../../../electron/services/wizard/swarm-starter';
import { ProfileInput } from '../../../../electron/shared/schemas-profiles';

let health: Server;
let url = '';
let dir = '';

beforeAll(async () => {
  health = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
  await new Promise<void>((ok) => health.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(health.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'swarm-starter-queue-'));
});

afterAll(async () => {
  await new Promise((ok) => health.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

describe('the wizard waiting for a queued Slurm job', () => {
  it('waits past the address deadline while the job is queued, says so once per reason, then finds the address', async () => {
    const profiles = new ProfileStore(dir);
    await profiles.load();
    const profile = await profiles.add(ProfileInput.parse({ label: 'cluster', engineId: 'ssh-cluster', mode: 'native', image: 'ghcr.io/modelscope/agentjet:main' }));
    const started = Date.now();
    // Queued (Priority, then Resources) for 600 ms, three times the 200 ms address wait; then running, with a URL 100 ms later.
    const phase = () => {
      const t = Date.now() - started;
      return t < 300 ? 'priority' : t < 600 ? 'resources' : t < 700 ? 'running' : 'watched';
    };
    const container = { id: '4242', name: 'agentswarm-cluster', engineId: 'ssh-cluster', image: '', port: 10086, networkMode: 'host', createdAt: '', startedAt: null, finishedAt: null, exitCode: null };
    const handlers = {
      'servers:list': async () => [],
      'profiles:start': async () => ({ profile, runtime: { container: { ...container, state: 'created', statusText: 'queued: Priority (position 3)' } } }),
      // The monitor answered: the wizard reads that instead of asking /health again.
      'swarm:statuses': async () => (phase() === 'watched' ? [{ engineId: 'ssh-cluster', containerId: '4242', url, connection: 'online' }] : []),
      'swarm:list': async () => {
        const p = phase();
        if (p === 'priority') return [{ ...container, state: 'created', statusText: 'queued: Priority (position 3)' }];
        if (p === 'resources') return [{ ...container, state: 'created', statusText: 'queued: Resources (position 1)' }];
        return [{ ...container, state: 'running', statusText: 'Up 1 second' }];
      },
    } as unknown as Handlers;
    const said: SwarmProgress[] = [];
    const target = await startSwarm({ kind: 'profile', profileId: profile.id }, { secretId: 'x', baseUrl: 'http://127.0.0.1:9', model: 'm' }, {
      handlers: () => handlers,
      profiles,
      progress: async (p) => void said.push(p),
      waits: { statusMs: 200, healthMs: 2000, pollMs: 10, queueCheckMs: 20 },
    });
    expect(target).toEqual({ engineId: 'ssh-cluster', containerId: '4242', url });
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    const queuedLines = said.map((p) => p.detail ?? '').filter((d) => d.startsWith('Slurm job 4242'));
    expect(queuedLines).toEqual([
      'Slurm job 4242 queued: Priority (position 3): it gets its address once it runs on a node (cancel it on the Servers page to stop waiting)',
      'Slurm job 4242 queued: Resources (position 1): it gets its address once it runs on a node (cancel it on the Servers page to stop waiting)',
    ]);
  });

  it('a job that is not queued and never gets an address still ends with the usual error', async () => {
    const profiles = new ProfileStore(dir);
    await profiles.load();
    const profile = await profiles.add(ProfileInput.parse({ label: 'docker box', engineId: 'local', port: 10090, mode: 'container', image: 'ghcr.io/modelscope/agentjet:main' }));
    const running = { id: 'abc123abc123', engineId: 'local', state: 'running', statusText: 'Up 1 second' };
    const handlers = {
      'servers:list': async () => [],
      'profiles:start': async () => ({ profile, runtime: { container: running } }),
      'swarm:statuses': async () => [],
      'swarm:list': async () => [running],
    } as unknown as Handlers;
    await expect(
      startSwarm({ kind: 'profile', profileId: profile.id }, { secretId: 'x', baseUrl: 'http://127.0.0.1:9', model: 'm' }, {
        handlers: () => handlers,
        profiles,
        progress: async () => undefined,
        waits: { statusMs: 150, healthMs: 500, pollMs: 10, queueCheckMs: 20 },
      }),
    ).rejects.toThrow(/no address for it appeared within 0 s/);
  });
});
