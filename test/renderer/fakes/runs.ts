import type { RunDetail, RunListRequest, RunsSettings, RunSummary } from '../../../electron/shared/schemas-runs';
import type { TrainingPoint } from '../../../electron/shared/schemas-training';
import type { FakeApi } from '../fake-api';

/** TEST DOUBLE support: kept runs as the backend's runs module answers them (list filtered by state and words, compare, delete). */
export function installRunsFake(api: FakeApi, runs: RunDetail[]): { listed: RunListRequest[]; deleted: string[]; exported: unknown[] } {
  const calls = { listed: [] as RunListRequest[], deleted: [] as string[], exported: [] as unknown[] };
  let kept = [...runs];
  let settings: RunsSettings = { keepRuns: 200, keepMegabytes: 200, rates: [] };
  const summary = (run: RunDetail): RunSummary => {
    const { yaml: _y, yamlNote: _n, yamlPath: _p, scripts: _s, points: _pts, timeline: _t, ...rest } = run;
    return rest;
  };
  api.answer('runs:list', (request) => {
    const filter = { engine: null, profile: null, state: 'any', since: null, until: null, text: '', ...request } as RunListRequest;
    calls.listed.push(filter);
    return kept
      .filter((r) => filter.state === 'any' || (filter.state === 'running' ? r.endedAt === null : filter.state === 'ended' ? r.endedAt !== null : r.endKind === filter.state))
      .filter((r) => filter.text === '' || `${r.runId} ${r.serverName}`.toLowerCase().includes(filter.text.toLowerCase()))
      .map(summary);
  });
  api.answer('runs:get', (request) => structuredClone(kept.find((r) => r.runId === request?.runId)!));
  api.answer('runs:compare', (request) => {
    const chosen = (request?.runIds ?? []).map((id) => kept.find((r) => r.runId === id)!);
    return {
      runs: structuredClone(chosen),
      diffs: chosen.slice(1).map((other) => ({
        leftRunId: chosen[0]!.runId,
        rightRunId: other.runId,
        changed: 1,
        rows: [
          { kind: 'same' as const, count: 1, left: 'ajet:', right: 'ajet:', leftLine: 1, rightLine: 1 },
          { kind: 'changed' as const, count: 1, left: '  lr: 0.001', right: '  lr: 0.0005', leftLine: 2, rightLine: 2 },
          { kind: 'folded' as const, count: 40, left: null, right: null, leftLine: 3, rightLine: 3 },
        ],
      })),
    };
  });
  api.answer('runs:delete', (request) => {
    calls.deleted.push(request!.runId);
    kept = kept.filter((r) => r.runId !== request!.runId);
    return { removed: true as const };
  });
  api.answer('runs:settings', () => settings);
  api.answer('runs:set-limits', (request) => (settings = { ...settings, ...request }));
  api.answer('runs:set-rate', (request) => (settings = { ...settings, rates: [{ engineId: request!.engineId, perGpuHour: request!.perGpuHour ?? 0, currency: request!.currency ?? 'USD' }] }));
  api.answer('runs:card', (request) => ({ runId: request!.runId, svg: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>', width: 10, height: 10 }));
  api.answer('runs:export-card', (request) => {
    calls.exported.push(request);
    return { path: `/downloads/agentswarm-run-${request!.runId}.${request!.format === 'html' ? 'html' : 'md'}`, pngPath: null, bytes: 100 };
  });
  return calls;
}

function points(rewards: (number | null)[], startMs: number): TrainingPoint[] {
  return rewards.map((reward, i) => ({
    step: i + 1,
    at: new Date(startMs + (i + 1) * 60_000).toISOString(),
    batch: reward === null ? 'unobserved' : 'pool',
    rewardMean: reward,
    rewardStd: reward === null ? null : 0.1,
    rewardMin: reward,
    rewardMax: reward,
    episodes: reward === null ? null : 4,
    seconds: 60,
    llmTokens: null,
    llmCalls: null,
    failures: null,
    secondsInStatus: {},
  }));
}

export function makeRun(runId: string, overrides: Partial<RunDetail> & { rewards?: (number | null)[] } = {}): RunDetail {
  const { rewards = [0.1, 0.3, 0.5], ...rest } = overrides;
  const startedAt = rest.startedAt ?? '2026-12-04T22:00:00.000Z';
  const pts = points(rewards, Date.parse(startedAt));
  return {
    runId,
    engineId: 'local',
    engineKind: 'local-docker',
    containerId: 'c0ffee000001',
    serverName: 'Night run',
    profileId: 'p1',
    profileLabel: 'Night run',
    image: 'ghcr.io/modelscope/agentjet:main',
    imageDigest: null,
    startedAt,
    endedAt: '2026-12-05T00:00:00.000Z',
    endKind: 'engine-stopped',
    endCode: null,
    stats: { steps: pts.length, firstStep: 1, lastStep: pts.length, observedSteps: pts.length, rewardFirst: rewards[0] ?? null, rewardLast: rewards.at(-1) ?? null, rewardBest: 0.5, rewardMean: 0.3, stepSecondsMedian: 60, stepSecondsMean: 60, episodes: 12, failures: null, llmTokens: null },
    gpus: 4,
    gpuSource: 'sample',
    gpuHours: 8,
    cost: 20,
    currency: 'USD',
    yamlSha256: 'a'.repeat(64),
    scriptCount: 0,
    bytes: 1000,
    yaml: 'ajet:\n  lr: 0.001\n',
    yamlNote: null,
    yamlPath: null,
    scripts: [],
    points: pts,
    timeline: [],
    ...rest,
  };
}
