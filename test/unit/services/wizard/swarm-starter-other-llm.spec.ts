// The wizard's swarm step when the dry run already runs (started on the Servers page) with another LLM than the
// wizard's (issue 32, item 3): the refusal names the real difference (a typed key, another vault key, model,
// endpoint), never two identical endpoints as different; "Restart" stops it and starts it with the wizard's LLM.
// The dry-run handlers are TEST DOUBLES answering as the dry run does; /health is a real HTTP server on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handlers } from '../../../../electron/services/ipc/handlers';
import { ProfileStore } from '../../../../electron/services/profiles/profile-store';
import { llmDifference, startSwarm } from '../../../../electron/services/wizard/swarm-starter';

const OURS = { secretId: 'vault-llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'debug-model' };
let health: Server;
let url = '';
let dir = '';

beforeAll(async () => {
  health = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
  await new Promise<void>((ok) => health.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(health.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'swarm-starter-llm-'));
});

afterAll(async () => {
  await new Promise((ok) => health.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

describe('what makes the running dry run use another LLM', () => {
  it('names the one real difference', () => {
    expect(llmDifference({ ...OURS }, OURS)).toBeNull();
    expect(llmDifference(null, OURS)).toBeNull();
    const typed = llmDifference({ ...OURS, secretId: null }, OURS);
    expect(typed?.what).toBe('typed-key');
    // The same endpoint is said to be the same, once.
    expect(typed?.message).toBe(`The dry run is already running with the same endpoint (debug-model at ${OURS.baseUrl}) but a key typed for that run, not the vault key the wizard tested.`);
    expect(llmDifference({ ...OURS, secretId: 'another' }, OURS)?.what).toBe('other-key');
    expect(llmDifference({ ...OURS, model: 'big-model' }, OURS)?.what).toBe('model');
    expect(llmDifference({ ...OURS, baseUrl: 'http://elsewhere/v1' }, OURS)?.what).toBe('endpoint');
  });
});

describe('the swarm step with a dry run already running', () => {
  function dryRun(): { handlers: Handlers; calls: string[] } {
    const calls: string[] = [];
    let llm: { baseUrl: string; model: string; secretId: string | null } = { ...OURS, secretId: null };
    const handlers = {
      'dryrun:view': async () => ({ state: 'running', config: { llm } }),
      'dryrun:stop': async () => void calls.push('stop'),
      'dryrun:start': async (request: { config: { llm: typeof llm } }) => {
        calls.push('start');
        llm = request.config.llm;
      },
      'swarm:statuses': async () => [{ engineId: 'dry-run', containerId: 'dry-run', url, connection: 'online' }],
    } as unknown as Handlers;
    return { handlers, calls };
  }

  it('refuses with the difference as data for the renderer, and starts nothing', async () => {
    const { handlers, calls } = dryRun();
    const profiles = new ProfileStore(dir);
    const deps = { handlers: () => handlers, profiles, progress: async () => undefined, waits: { statusMs: 500, healthMs: 500, pollMs: 10 } };
    await expect(startSwarm({ kind: 'dry-run' }, OURS, deps)).rejects.toMatchObject({
      code: 'DRY_RUN_STATE',
      params: { holder: 'wizard-other-llm', differs: 'typed-key', model: OURS.model, baseUrl: OURS.baseUrl },
    });
    expect(calls).toEqual([]);
  });

  it('restarts it with the wizard\'s LLM when asked', async () => {
    const { handlers, calls } = dryRun();
    const profiles = new ProfileStore(dir);
    const deps = { handlers: () => handlers, profiles, progress: async () => undefined, waits: { statusMs: 500, healthMs: 500, pollMs: 10 } };
    const target = await startSwarm({ kind: 'dry-run' }, OURS, deps, { restartDryRun: true });
    expect(calls).toEqual(['stop', 'start']);
    expect(target.url).toBe(url);
  });
});
