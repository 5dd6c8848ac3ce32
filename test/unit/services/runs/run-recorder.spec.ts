import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunRecorder } from '../../../../electron/services/runs/run-recorder';
import { RunStore } from '../../../../electron/services/runs/run-store';
import type { RunContextPorts } from '../../../../electron/services/runs/run-context';
import type { TrainingPoint, TrainingSeries, TrainingView } from '../../../../electron/shared/schemas-training';
import type { ServerState } from '../../../../electron/shared/server-state';
import { poll } from '../../../support/helpers';

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined };
const KEY = 'local:c0ffee000001';
const YAML = 'ajet:\n  model:\n    path: /models/q\n  api_key: plain-secret-value-123\n  max_tokens: 512\n';

function point(step: number, reward: number | null, seconds = 2): TrainingPoint {
  return {
    step,
    at: new Date(Date.UTC(2026, 0, 1, 0, step)).toISOString(),
    batch: reward === null ? 'unobserved' : 'pool',
    rewardMean: reward,
    rewardStd: reward === null ? null : 0.1,
    rewardMin: reward === null ? null : reward - 0.2,
    rewardMax: reward === null ? null : reward + 0.2,
    episodes: reward === null ? null : 4,
    seconds,
    llmTokens: null,
    llmCalls: null,
    failures: null,
    secondsInStatus: {},
  };
}

function view(runId: string | null, engineStatus: string, globalStep: number | null = null): TrainingView {
  return {
    engineId: 'local',
    containerId: 'c0ffee000001',
    runId,
    engineStatus,
    statusSince: new Date().toISOString(),
    bootingSeconds: null,
    globalStep,
    modelPath: null,
    sampleCollectionMethod: null,
    episodes: null,
    tasks: null,
    nonDummyTasks: null,
    expectedRepeat: null,
    runningEpisodes: [],
    taskRewards: [],
    rewardMean: null,
    rewardStd: null,
    activeClients: [],
    missingRoutes: [],
    lastError: null,
    checkedAt: new Date().toISOString(),
  };
}

function serverState(phase: ServerState['phase'], end: ServerState['end'] = null): ServerState {
  return {
    key: KEY,
    engineId: 'local',
    engineKind: 'local-docker',
    containerId: 'c0ffee000001',
    phase,
    phaseSince: new Date().toISOString(),
    engineStatus: null,
    engineSince: null,
    problem: null,
    queue: null,
    end,
    container: {
      id: 'c0ffee000001',
      name: 'agentswarm-qwen',
      engineId: 'local',
      image: 'ghcr.io/modelscope/agentjet:main',
      state: phase === 'ended' ? 'exited' : 'running',
      statusText: '',
      port: 10086,
      networkMode: 'publish',
      createdAt: new Date().toISOString(),
      startedAt: new Date().toISOString(),
      finishedAt: null,
      exitCode: null,
      profileId: 'p1',
    },
    status: { engineId: 'local', containerId: 'c0ffee000001', url: 'http://127.0.0.1:10086' } as ServerState['status'],
    actions: { stop: true, remove: false, logs: true },
    updatedAt: new Date().toISOString(),
  };
}

describe('RunRecorder: a run per training run, from the monitor views and server states', () => {
  let dir: string;
  let series: TrainingSeries;
  let state: ServerState;
  let changed: string[];
  const ports: RunContextPorts = {
    profile: () => ({ label: 'Qwen on Local Docker', image: 'ghcr.io/modelscope/agentjet:main', gpus: { mode: 'ids', ids: ['0', '1'] } }),
    imageDigest: async () => 'ghcr.io/modelscope/agentjet@sha256:abc',
    experimentDir: async () => '/workspace/saved_experiments/exp1',
    readServerFile: async (_e, _c, path) => (path === '/workspace/saved_experiments/exp1/yaml_backup.yaml' ? YAML : null),
    jobs: () => [],
    wizardFiles: async () => [],
    readLocalFile: async () => null,
    gpuSamples: () => [
      { key: 'local', engineId: 'local', engineIds: ['local'], containerId: null, hostLabel: 'this computer', hostKind: 'local', at: new Date().toISOString(), gpus: [0, 1, 2, 3].map((index) => ({ index, uuid: `GPU-${index}`, utilizationPct: 50, memoryUsedMiB: 1, memoryTotalMiB: 2 })), error: null },
    ],
  };

  const recorderOn = (store: RunStore) =>
    new RunRecorder({ store, ports, state: () => state, series: async () => series, changed: (ids) => changed.push(...ids), logger: silent, endGraceMs: 50, refreshMs: 10 });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runs-recorder-'));
    series = { engineId: 'local', containerId: 'c0ffee000001', runId: 'r-20260101-a', points: [], timeline: [] };
    state = serverState('training');
    changed = [];
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('opens at BOOTING, follows the steps, ends when the engine stays OFFLINE, and keeps it across a restart', async () => {
    const store = new RunStore(dir);
    await store.load();
    const recorder = recorderOn(store);
    await recorder.start();
    recorder.trainingChanged(view('r-20260101-a', 'ENGINE.BOOTING'));
    recorder.trainingChanged(view('r-20260101-a', 'ENGINE.ROLLING', 1));
    series = { ...series, points: [point(1, 0.2), point(2, null), point(3, 0.6)] };
    recorder.trainingChanged(view('r-20260101-a', 'ENGINE.ROLLING', 4));
    await poll('the steps written', 5000, async () => ((await store.read('r-20260101-a'))?.points.length === 3 ? true : undefined));
    expect(recorder.isOpen('r-20260101-a')).toBe(true);
    recorder.trainingChanged(view('r-20260101-a', 'ENGINE.OFFLINE'));
    await poll('the run ended', 5000, async () => (store.entry('r-20260101-a')?.run.endedAt ? true : undefined));
    await recorder.dispose();

    const reopened = new RunStore(dir);
    await reopened.load();
    const run = await reopened.read('r-20260101-a');
    expect(run).toMatchObject({ endKind: 'engine-stopped', serverName: 'Qwen on Local Docker', profileId: 'p1', imageDigest: 'ghcr.io/modelscope/agentjet@sha256:abc', gpus: 2, gpuSource: 'sample' });
    expect(run?.yamlSha256).toMatch(/^[0-9a-f]{64}$/);
    // The credential-named setting is kept redacted; ordinary numbers stay readable.
    expect(run?.yaml).toContain('api_key: [REDACTED]');
    expect(run?.yaml).toContain('max_tokens: 512');
    expect(run?.yaml).not.toContain('plain-secret-value-123');
    expect(reopened.entry('r-20260101-a')?.stats).toMatchObject({ steps: 3, observedSteps: 2, rewardFirst: 0.2, rewardLast: 0.6, rewardBest: 0.6, episodes: 8 });
    expect(changed).toContain('r-20260101-a');
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it("names the server's end when the server ends (not the engine's OFFLINE on its way out)", async () => {
    const store = new RunStore(dir);
    await store.load();
    const recorder = recorderOn(store);
    recorder.trainingChanged(view('r-20260101-a', 'ENGINE.ROLLING', 1));
    recorder.trainingChanged(view('r-20260101-a', 'ENGINE.OFFLINE'));
    state = serverState('ended', { kind: 'out-of-memory', code: 137, finishedAt: new Date().toISOString(), log: { lines: [], explains: false } });
    recorder.stateChanged(state);
    await recorder.flush();
    expect(store.entry('r-20260101-a')?.run).toMatchObject({ endKind: 'out-of-memory', endCode: 137 });
    await recorder.dispose();
  });

  it('a run still going on when the backend stopped is followed again and ends with its server', async () => {
    const first = new RunStore(dir);
    await first.load();
    const before = recorderOn(first);
    before.trainingChanged(view('r-20260101-a', 'ENGINE.ROLLING', 1));
    series = { ...series, points: [point(1, 0.5)] };
    before.trainingChanged(view('r-20260101-a', 'ENGINE.ROLLING', 2));
    await poll('written', 5000, async () => ((await first.read('r-20260101-a'))?.points.length === 1 ? true : undefined));
    await before.dispose();

    const store = new RunStore(dir);
    await store.load();
    const after = recorderOn(store);
    await after.start();
    expect(after.isOpen('r-20260101-a')).toBe(true);
    after.stateChanged(serverState('ended', { kind: 'crashed', code: 1, finishedAt: new Date().toISOString(), log: { lines: [], explains: false } }));
    await after.flush();
    expect(store.entry('r-20260101-a')?.run).toMatchObject({ endKind: 'crashed', endCode: 1 });
    await after.dispose();
  });

  it('drops the oldest ended runs beyond the limit, never one that goes on', async () => {
    const store = new RunStore(dir);
    await store.load();
    await store.saveSettings({ ...store.settings, keepRuns: 2 });
    const recorder = recorderOn(store);
    for (const id of ['r-20260101-a', 'r-20260102-b', 'r-20260103-c']) {
      series = { ...series, runId: id };
      recorder.trainingChanged(view(id, 'ENGINE.ROLLING', 1));
      recorder.trainingChanged(view(id, 'ENGINE.OFFLINE'));
      await poll(`${id} ended`, 5000, async () => (store.entry(id)?.run.endedAt ? true : undefined));
      await recorder.flush();
    }
    recorder.trainingChanged(view('r-20260104-d', 'ENGINE.ROLLING', 1));
    await poll('d written', 5000, async () => (store.entry('r-20260104-d') ? true : undefined));
    await store.saveSettings({ ...store.settings, keepRuns: 1 });
    expect(await store.prune(recorder.openRunIds())).toEqual(['r-20260102-b', 'r-20260103-c']);
    expect(store.entries().map((e) => e.run.runId)).toEqual(['r-20260104-d']);
    await recorder.dispose();
  });
});
