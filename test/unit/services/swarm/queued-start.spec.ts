import { describe, expect, it } from 'vitest';
import { gpuSpecOf, isQueued, waitForUrl } from '../../../../electron/services/swarm/queued-start';
import { SlurmJobOptions } from '../../../../electron/shared/schemas-slurm';

describe('servers that wait for their turn', () => {
  it('a queued Slurm job is queued; Docker\'s created (made, never started) is not', () => {
    expect(isQueued({ state: 'created', statusText: 'queued: Resources (position 1)' })).toBe(true);
    expect(isQueued({ state: 'created', statusText: 'queued: held until started' })).toBe(true);
    expect(isQueued({ state: 'created', statusText: 'Created' })).toBe(false);
    expect(isQueued({ state: 'running', statusText: 'queued: stale text' })).toBe(false);
  });

  it('keeps the GPU request of a queued spec (a native Slurm job asks in its batch options), without its env', () => {
    const batch = SlurmJobOptions.parse({ gpus: { flag: 'gres', count: 1 }, run: { mode: 'native', activate: null } });
    expect(gpuSpecOf({ name: 'n', image: '', cmd: [], env: { A: 'secret' }, labels: {}, network: { mode: 'host' }, init: false, gpus: { mode: 'none' }, shm: { mode: 'ipc-host' }, binds: [], runtime: 'native', batch })).toEqual({ gpus: { mode: 'none' }, runtime: 'native', batch });
  });

  it('asks for the URL until there is one', async () => {
    let t = 0;
    let asked = 0;
    const got = await waitForUrl({
      url: () => (++asked < 3 ? Promise.reject(new Error('no endpoint file yet')) : Promise.resolve('http://127.0.0.1:5000')),
      running: () => Promise.resolve(true),
      everyMs: 2000, forMs: 120_000, now: () => t, sleep: (ms) => { t += ms; return Promise.resolve(); },
    });
    expect(got).toEqual({ url: 'http://127.0.0.1:5000' });
    expect(t).toBe(4000);
  });

  it('gives up when the server stopped, or when the time is up (saying the last error)', async () => {
    let t = 0;
    const sleep = (ms: number) => { t += ms; return Promise.resolve(); };
    const stopped = await waitForUrl({ url: () => Promise.reject(new Error('x')), running: () => Promise.resolve(false), everyMs: 2000, forMs: 120_000, now: () => t, sleep });
    expect(stopped).toEqual({ url: null, why: 'it is not running any more' });
    t = 0;
    const late = await waitForUrl({ url: () => Promise.reject(new Error('no endpoint file yet')), running: () => Promise.resolve(true), everyMs: 2000, forMs: 10_000, now: () => t, sleep });
    expect(late).toEqual({ url: null, why: 'no URL within 10 s (no endpoint file yet)' });
  });
});
