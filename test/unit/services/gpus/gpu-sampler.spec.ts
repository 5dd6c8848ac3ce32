import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GpuSampler, GPU_SAMPLE_PACE } from '../../../../electron/services/gpus/gpu-sampler';
import { gpuTargets, type GpuTarget } from '../../../../electron/services/gpus/gpu-targets';
import { parseGpuQuery, readSample, sampleScript } from '../../../../electron/services/gpus/nvidia-smi';
import type { EngineHost, HostExecResult } from '../../../../electron/services/engines/container-engine';
import type { GpuSample } from '../../../../electron/shared/schemas-fleet';
import { deriveServerState } from '../../../../electron/services/server-state/derive';
import type { ServerState } from '../../../../electron/shared/server-state';
import type { SwarmContainer } from '../../../../electron/shared/schemas';
import { makeStatus } from '../../../renderer/fake-api';

const quietLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

describe("nvidia-smi's GPU query", () => {
  it('reads one GPU per CSV line, with [N/A] as no number', () => {
    const out = '0, GPU-8f6d1c1e-aaaa, 97, 40120, 81920\n1, GPU-77aa, [N/A], 3, 81920\n\nNo devices were found\n';
    expect(parseGpuQuery(out)).toEqual([
      { index: 0, uuid: 'GPU-8f6d1c1e-aaaa', utilizationPct: 97, memoryUsedMiB: 40120, memoryTotalMiB: 81920 },
      { index: 1, uuid: 'GPU-77aa', utilizationPct: null, memoryUsedMiB: 3, memoryTotalMiB: 81920 },
    ]);
  });

  it('asks inside a Slurm job with srun --overlap, and quotes every word', () => {
    expect(sampleScript('nvidia-smi', null)).toBe("'nvidia-smi' '--query-gpu=index,uuid,utilization.gpu,memory.used,memory.total' '--format=csv,noheader,nounits'");
    expect(sampleScript('nvidia-smi', '42')).toMatch(/^srun --jobid='42' --overlap --ntasks=1 --quiet 'nvidia-smi' /);
  });

  it('tells a host without nvidia-smi from one whose nvidia-smi failed or hung', () => {
    expect(readSample({ code: 127, stdout: '', stderr: 'sh: 1: nvidia-smi: not found' }).error?.kind).toBe('no-nvidia-smi');
    expect(readSample({ code: 9, stdout: '', stderr: 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' }).error).toEqual({
      kind: 'failed',
      message: 'nvidia-smi failed (exit 9): NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.',
    });
    expect(readSample({ code: null, stdout: '', stderr: '' }).error?.kind).toBe('failed');
    expect(readSample({ code: 0, stdout: '0, GPU-1, 5, 1, 2\n', stderr: '' })).toEqual({ gpus: [{ index: 0, uuid: 'GPU-1', utilizationPct: 5, memoryUsedMiB: 1, memoryTotalMiB: 2 }], error: null });
  });
});

function container(id: string, engineId: string, over: Partial<SwarmContainer> = {}): SwarmContainer {
  return {
    id, name: `agentswarm-${id}`, engineId, image: 'img', state: 'running', statusText: 'Up', port: 10086, networkMode: 'publish',
    createdAt: '2026-12-05T09:59:00Z', startedAt: '2026-12-05T09:59:30Z', finishedAt: null, exitCode: null, ...over,
  };
}

function stateOf(id: string, engineId: string, engineKind: ServerState['engineKind'], over: Partial<SwarmContainer> = {}): ServerState {
  const c = container(id, engineId, over);
  return deriveServerState({ engineKind, container: c, status: makeStatus(id, { engineId }), stopping: false }, undefined, Date.parse('2026-12-05T10:00:00Z'));
}

const host = (kind: 'local' | 'ssh', label: string): EngineHost => ({ kind, label, exec: () => Promise.resolve({ code: 0, stdout: '', stderr: '' }) });

describe('which hosts are sampled', () => {
  it('asks each host once, whatever engines and servers it has, and each running Slurm job inside its allocation', () => {
    const hosts: Record<string, EngineHost> = { local: host('local', 'this computer'), 'local-podman': host('local', 'this computer'), 'ssh-gpu1': host('ssh', 'gpu1'), 'slurm-a': host('ssh', 'login-a') };
    const states = [
      stateOf('c1', 'local', 'local-docker'),
      stateOf('c2', 'local', 'local-docker'),
      stateOf('p1', 'local-podman', 'podman'),
      stateOf('s1', 'ssh-gpu1', 'ssh-docker'),
      stateOf('ended', 'ssh-other', 'ssh-docker', { state: 'exited', finishedAt: '2026-12-05T10:00:00Z', exitCode: 0 }),
      stateOf('17', 'slurm-a', 'slurm'),
      stateOf('18', 'slurm-a', 'slurm', { state: 'created', startedAt: null, queue: { reason: 'Resources', position: 1 } }),
    ];
    const targets = gpuTargets(states, (id) => hosts[id] ?? null);
    expect(targets.map((t) => ({ key: t.key, engineIds: t.engineIds, job: t.containerId }))).toEqual([
      { key: 'local', engineIds: ['local', 'local-podman'], job: null },
      { key: 'ssh-gpu1', engineIds: ['ssh-gpu1'], job: null },
      { key: 'slurm-a:17', engineIds: ['slurm-a'], job: '17' },
    ]);
  });
});

describe('the sampling budget', () => {
  let now = 0;
  let calls: { key: string; at: number }[] = [];
  let shown = false;
  let targets: GpuTarget[] = [];
  const samples: GpuSample[] = [];

  const target = (key: string): GpuTarget => ({
    key, engineId: key, engineIds: [key], containerId: null, hostLabel: key, hostKind: 'ssh', folders: [],
    exec: (): Promise<HostExecResult> => {
      calls.push({ key, at: now });
      return Promise.resolve({ code: 0, stdout: '0, GPU-0, 3, 10, 100\n', stderr: '' });
    },
  });

  beforeEach(() => {
    vi.useFakeTimers();
    now = 0;
    calls = [];
    shown = false;
    samples.length = 0;
    targets = [target('a'), target('b')];
  });
  afterEach(() => vi.useRealTimers());

  function sampler(): GpuSampler {
    return new GpuSampler({ targets: () => targets, homeShown: () => shown, sampled: (s) => samples.push(s), logger: quietLogger, now: () => now });
  }

  async function advance(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 1000) {
      now += 1000;
      await vi.advanceTimersByTimeAsync(1000);
    }
  }

  it('asks each host at most once a minute while the home is closed, every 10 s while it is shown', async () => {
    const s = sampler();
    s.start();
    await advance(10 * 60_000);
    for (const key of ['a', 'b']) {
      const times = calls.filter((c) => c.key === key).map((c) => c.at);
      expect(times.length).toBeGreaterThanOrEqual(10);
      expect(times.length).toBeLessThanOrEqual(11);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(GPU_SAMPLE_PACE.hiddenIntervalMs);
    }
    calls = [];
    shown = true;
    s.reschedule();
    await advance(60_000);
    expect(calls.filter((c) => c.key === 'a').length).toBeGreaterThanOrEqual(6);
    const times = calls.filter((c) => c.key === 'a').map((c) => c.at);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(GPU_SAMPLE_PACE.intervalMs);
    s.dispose();
  });

  it('keeps the budget when a host\'s servers come and go', async () => {
    const s = sampler();
    s.start();
    await advance(5_000);
    targets = [target('b')];
    s.reschedule();
    await advance(5_000);
    targets = [target('a'), target('b')];
    s.reschedule();
    await advance(30_000);
    expect(calls.filter((c) => c.key === 'a')).toHaveLength(1);
    expect(s.samples().map((x) => x.key).sort()).toEqual(['a', 'b']);
    expect(samples[0]).toMatchObject({ key: 'a', gpus: [{ index: 0, utilizationPct: 3 }], error: null });
    s.dispose();
  });
});
