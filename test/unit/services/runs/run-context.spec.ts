import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDryRunServer } from '../../../../electron/services/dry-run/dry-run-server';
import { collectScripts, countGpus, readSyncedYaml, type RunContextPorts } from '../../../../electron/services/runs/run-context';
import type { GpuSample } from '../../../../electron/shared/schemas-fleet';
import type { ServerState } from '../../../../electron/shared/server-state';
import { createEchoRelay } from '../../../conformance/support/echo-relay';
import { request } from '../../../conformance/support/http';
import { upstreamJob } from '../../../support/job-yaml';

const job = (dir: string, engineId: string, startedAt: string) => ({ kind: 'train' as const, cwd: dir, script: 'agent_roll.py', swarm: { engineId, containerId: 'c1', profileId: null }, startedAt });

function ports(dir: string, overrides: Partial<RunContextPorts> = {}): RunContextPorts {
  return {
    profile: () => undefined,
    imageDigest: async () => null,
    experimentDir: async () => null,
    readServerFile: async () => null,
    jobs: () => [job(dir, 'local', '2026-12-05T00:00:00Z'), job(dir, 'other', '2026-12-05T00:00:00Z')],
    wizardFiles: async () => [{ name: 'agent_run.py', path: join(dir, 'agent_run.py') }, { name: 'elsewhere.py', path: '/elsewhere/elsewhere.py' }],
    readLocalFile: async (path, max) => (await readFile(path).catch(() => null))?.subarray(0, max) ?? null,
    gpuSamples: () => [],
    ...overrides,
  };
}

const state = (engineKind: ServerState['engineKind'], key = 'local:c1') => ({ key, engineId: key.split(':')[0]!, containerId: 'c1', engineKind, status: { url: 'http://127.0.0.1:1' } }) as unknown as ServerState;
const sample = (key: string, gpus: number, containerId: string | null = null): GpuSample => ({
  key,
  engineId: key.split(':')[0]!,
  engineIds: [key.split(':')[0]!],
  containerId,
  hostLabel: 'h',
  hostKind: 'ssh',
  at: '2026-12-05T00:00:00Z',
  gpus: Array.from({ length: gpus }, (_, index) => ({ index, uuid: `GPU-${index}`, utilizationPct: 1, memoryUsedMiB: 1, memoryTotalMiB: 1 })),
  error: null,
});

describe('what a run keeps of its context', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runs-context-'));
    await writeFile(join(dir, 'agent_roll.py'), 'OPENAI_API_KEY = "abcdefghijklmnop"\nmain()\n');
    await writeFile(join(dir, 'agent_run.py'), 'def run(): pass\n');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("copies and hashes the train job's script and the wizard's files beside it, for this server's jobs only", async () => {
    const scripts = await collectScripts(ports(dir), 'local', 'c1', Date.parse('2026-12-06T00:00:00Z'));
    expect(scripts.map((s) => s.name)).toEqual(['agent_roll.py', 'agent_run.py']);
    expect(scripts[0]).toMatchObject({ bytes: 43, text: 'OPENAI_API_KEY = [REDACTED]\nmain()\n' });
    expect(scripts[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    // A job that began after the run ended did not drive it.
    expect(await collectScripts(ports(dir), 'local', 'c1', Date.parse('2026-12-04T00:00:00Z'))).toEqual([]);
  });

  it('reads the YAML from the experiment folder, or says why not', async () => {
    const found = await readSyncedYaml(ports(dir, { experimentDir: async () => '/ws/exp/', readServerFile: async (_e, _c, path) => (path === '/ws/exp/yaml_backup.yaml' ? 'a: 1\n' : null) }), state('local-docker'));
    expect(found).toMatchObject({ yaml: 'a: 1\n', yamlPath: '/ws/exp/yaml_backup.yaml', yamlNote: null });
    expect(await readSyncedYaml(ports(dir), state('local-docker'))).toMatchObject({ yaml: null, yamlNote: 'the server does not name its experiment folder yet' });
  });

  it('counts the GPUs held: the Slurm allocation or the host, narrowed by the profile; none for the dry run', () => {
    const samples = [sample('local', 8), sample('slurm1:41', 2, '41')];
    expect(countGpus(state('local-docker'), undefined, samples)).toEqual({ gpus: 8, source: 'sample' });
    expect(countGpus(state('local-docker'), { label: 'p', image: 'i', gpus: { mode: 'ids', ids: ['0', '1', '2'] } }, samples)).toEqual({ gpus: 3, source: 'sample' });
    expect(countGpus(state('local-docker'), { label: 'p', image: 'i', gpus: { mode: 'none' } }, samples)).toEqual({ gpus: 0, source: 'profile' });
    expect(countGpus(state('slurm', 'slurm1:41'), undefined, samples)).toEqual({ gpus: 2, source: 'sample' });
    expect(countGpus(state('ssh-docker', 'gpu-box:c1'), undefined, samples)).toEqual({ gpus: null, source: null });
    expect(countGpus(state('dry-run', 'dry-run:x'), undefined, samples)).toEqual({ gpus: 0, source: 'none' });
  });
});

describe("the dry run's synced YAML", () => {
  it('is what the client synced last, as sent; the run keeps it redacted, hashed as sent', async () => {
    const server = await startDryRunServer({ port: 0, trainer: 'auto', bootDelayMs: 10, trainingStepMs: 10, relay: createEchoRelay() });
    try {
      expect(server.syncedYaml()).toBeNull();
      const yaml = upstreamJob('  data:\n    train_batch_size: 1\n  judge:\n    api_key: sk-dryrun-0123456789abcdefXYZ\n');
      await request(server.url, 'POST', '/sync_train_config', { json: { yaml_as_string: yaml } });
      expect(server.syncedYaml()).toBe(yaml);
      const facts = await readSyncedYaml({ ...ports('/nowhere'), syncedYaml: () => server.syncedYaml() }, state('dry-run', 'dry-run:dry-run'));
      expect(facts.yaml).toContain('api_key: [REDACTED]');
      expect(facts.yamlSha256).toBe(createHash('sha256').update(yaml).digest('hex'));
    } finally {
      await server.close();
    }
  });
});
