import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskFolders } from '../../../../electron/services/gpus/disk-folders';
import { gpuTargets } from '../../../../electron/services/gpus/gpu-targets';
import { readDisks, readSample, sampleScript } from '../../../../electron/services/gpus/nvidia-smi';
import type { EngineHost } from '../../../../electron/services/engines/container-engine';
import { deriveServerState } from '../../../../electron/services/server-state/derive';
import { ProfileInput } from '../../../../electron/shared/schemas-profiles';
import type { ServerState } from '../../../../electron/shared/server-state';
import { makeStatus } from '../../../renderer/fake-api';

const run = promisify(execFile);
/** The labelled nvidia-smi TEST DOUBLE: with no gpus.csv next to it, it says "No devices were found" (exit 6). */
const DOUBLE = join(__dirname, '../../../stubs/nvidia-smi/nvidia-smi');

const profile = (over: Partial<ProfileInput> = {}) => ({ ...ProfileInput.parse({ label: 'p', engineId: 'local', image: 'img' }), ...over });

describe("the disk folders of a server's profile", () => {
  it('are its checkpoint and experiment folders in a container, its working folder on Slurm, none natively', () => {
    expect(diskFolders(profile(), 'local-docker')).toEqual([]);
    expect(diskFolders(profile({ checkpointsDir: '~/ckpt', experimentsDir: '~/exp' }), 'ssh-docker')).toEqual(['~/ckpt', '~/exp']);
    expect(diskFolders(profile({ checkpointsDir: '/data', experimentsDir: '/data' }), 'local-docker')).toEqual(['/data']);
    expect(diskFolders(profile({ mode: 'native', checkpointsDir: '/data' }), 'ssh-docker')).toEqual([]);
    expect(diskFolders(profile(), 'slurm')).toEqual(['~']);
    expect(diskFolders(undefined, 'local-docker')).toEqual([]);
  });

  it('ride along with the host their servers share (one visit per host)', () => {
    const host: EngineHost = { kind: 'local', label: 'this computer', exec: () => Promise.resolve({ code: 0, stdout: '', stderr: '' }) };
    const state = (id: string): ServerState =>
      deriveServerState(
        {
          engineKind: 'local-docker',
          container: { id, name: id, engineId: 'local', image: 'img', state: 'running', statusText: 'Up', port: 1, networkMode: 'publish', createdAt: '2026-12-05T09:00:00Z', startedAt: '2026-12-05T09:00:00Z', finishedAt: null, exitCode: null },
          status: makeStatus(id),
          stopping: false,
        },
        undefined,
        Date.parse('2026-12-05T10:00:00Z'),
      );
    const folders: Record<string, string[]> = { a: ['/ckpt', '/exp'], b: ['/exp', '/other'] };
    const [target] = gpuTargets([state('a'), state('b')], () => host, (s) => folders[s.containerId] ?? []);
    expect(target?.folders).toEqual(['/ckpt', '/exp', '/other']);
  });
});

describe('df -P in the GPU visit', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-disk-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is the query alone without folders; on Slurm the whole script runs inside the allocation', () => {
    expect(sampleScript('nvidia-smi', null, [])).toBe(sampleScript('nvidia-smi', null));
    const script = sampleScript('nvidia-smi', '42', ['~/ckpt']);
    expect(script).toMatch(/^srun --jobid='42' --overlap --ntasks=1 --quiet sh -c '/);
    expect(sampleScript('nvidia-smi', null, ['~/my ckpt', '/a b'])).toContain(`df -P "$HOME"/'my ckpt' 2>/dev/null`);
  });

  it("reads each folder's disk with real sh and df, keeps nvidia-smi's exit code, and says null for a folder that is not there", async () => {
    const folders = [dir, join(dir, 'missing'), '~'];
    const script = sampleScript(DOUBLE, null, folders);
    const result = await run('sh', ['-c', script]).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    // No gpus.csv beside the double: it answers "No devices were found", exit 6, as nvidia-smi does.
    expect(result.code).toBe(6);
    const sample = readSample(result, folders);
    expect(sample.error?.kind).toBe('failed');
    expect(sample.disks?.map((d) => d.path)).toEqual(folders);
    expect(sample.disks?.[0]?.usedPct).toEqual(expect.any(Number));
    expect(sample.disks?.[1]?.usedPct).toBeNull();
    expect(sample.disks?.[2]?.usedPct).toEqual(expect.any(Number));
  });

  it('splits the GPU lines from the df lines', () => {
    const stdout = '0, GPU-1, 5, 1, 2\n@@agentswarm-df 0\nFilesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 100 93 7 93% /data\n@@agentswarm-df 1\n';
    expect(readSample({ code: 0, stdout, stderr: '' }, ['/data', '/gone'])).toEqual({
      gpus: [{ index: 0, uuid: 'GPU-1', utilizationPct: 5, memoryUsedMiB: 1, memoryTotalMiB: 2 }],
      error: null,
      disks: [{ path: '/data', usedPct: 93 }, { path: '/gone', usedPct: null }],
    });
    expect(readDisks('', ['/x'])).toEqual([{ path: '/x', usedPct: null }]);
  });
});
