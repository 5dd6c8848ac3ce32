import axe from 'axe-core';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TrainingPoint, TrainingSeries } from '../../electron/shared/schemas-profiles';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import TrainingDashboard from '../../renderer/src/pages/servers/training/TrainingDashboard.svelte';
import { chartColumns, segments } from '../../renderer/src/pages/servers/training/training-format';
import { FakeApi, makeTrainingView } from './fake-api';

let api: FakeApi;
const C = 'c0ffee000001';

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  setLocale('en');
});

afterEach(() => {
  setApiForTests(null);
  vi.unstubAllGlobals();
});

const point = (step: number, mean: number | null, std = 0.1): TrainingPoint => ({
  step,
  at: new Date(Date.UTC(2026, 11, 3, 12, step)).toISOString(),
  rewardMean: mean,
  rewardStd: mean === null ? null : std,
  rewardMin: mean === null ? null : mean - 0.5,
  rewardMax: mean === null ? null : mean + 0.5,
  batch: mean === null ? 'unobserved' : 'pool',
  episodes: mean === null ? null : 8,
  seconds: 60,
  llmTokens: null,
  llmCalls: null,
  failures: null,
  secondsInStatus: { 'ENGINE.ROLLING': 30 },
});

function series(overrides: Partial<TrainingSeries> = {}): TrainingSeries {
  const at = (m: number) => new Date(Date.UTC(2026, 11, 3, 12, m)).toISOString();
  return {
    engineId: 'local',
    containerId: C,
    runId: 'run-1',
    points: [point(1, 0.2), point(2, 0.35), point(3, 0.5)],
    timeline: [
      { status: 'ENGINE.BOOTING', from: at(0), to: at(2) },
      { status: 'ENGINE.ROLLING', from: at(2), to: at(5) },
      { status: 'ENGINE.WEIGHT_SYNCING', from: at(5), to: at(6) },
      { status: 'ENGINE.ROLLING', from: at(6), to: null },
    ],
    ...overrides,
  };
}

const show = () => render(TrainingDashboard, { props: { api, engineId: 'local', containerId: C } });

describe('training dashboard', () => {
  it('tells what to do while the engine is OFFLINE, without a stale step or batch', async () => {
    api.trainingViews = [makeTrainingView(C)];
    show();
    expect((await screen.findByTestId('training-help')).textContent).toContain('Waiting for a client to sync a config and start the engine');
    expect(screen.getByTestId('training-status').textContent).toContain('OFFLINE');
    expect(screen.getByTestId('training-step').textContent).toContain('—');
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.getByText('No run yet: the timeline starts when the engine boots.')).toBeTruthy();
  });

  it('counts the booting time on from the last view', async () => {
    api.trainingViews = [makeTrainingView(C, { engineStatus: 'ENGINE.BOOTING', bootingSeconds: 42, checkedAt: new Date().toISOString() })];
    show();
    expect((await screen.findByTestId('training-help')).textContent).toMatch(/Booting for 4[23] s/);
  });

  it('shows status, step, model, fill bars with values, the chart data, episodes (30 rows, longest idle first), task rewards and clients', async () => {
    const running = Array.from({ length: 45 }, (_, i) => ({
      episodeUuid: `ep${String(i).padStart(30, '0')}`,
      status: 'claimed',
      llmCalls: i,
      idleSeconds: 100 - i,
      patienceSeconds: 240,
      clientUuid: 'client-aaaa-bbbb',
      taskId: String(i % 5),
    }));
    api.trainingViews = [
      makeTrainingView(C, {
        runId: 'run-1',
        engineStatus: 'ENGINE.ROLLING',
        globalStep: 3,
        modelPath: '/models/Qwen2.5-7B-Instruct',
        sampleCollectionMethod: 'rollout_until_finish_enough_tasks',
        episodes: { done: 40, target: 128 },
        tasks: { done: 9, target: 32 },
        nonDummyTasks: { done: 6, target: 32 },
        expectedRepeat: 4,
        runningEpisodes: running,
        taskRewards: [{ taskId: '17', episodes: 4, mean: 0.75, std: 0.25 }],
        rewardMean: 0.5,
        rewardStd: 0.4,
        activeClients: [{ clientUuid: 'client-aaaa-bbbb', agreedSyncWeight: true }],
      }),
    ];
    api.trainingSeries = [series()];
    show();
    expect((await screen.findByTestId('training-step')).textContent).toContain('3');
    expect(screen.getByTestId('training-status').textContent).toContain('ROLLING');
    expect(screen.getByText('/models/Qwen2.5-7B-Instruct')).toBeTruthy();

    const bars = screen.getAllByRole('progressbar');
    expect(bars.map((b) => [b.getAttribute('aria-label'), b.getAttribute('aria-valuenow'), b.getAttribute('aria-valuemax')])).toEqual([
      ['Completed episodes', '40', '128'],
      ['Completed tasks', '9', '32'],
      ['Non-dummy tasks', '6', '32'],
    ]);
    expect(bars[1]?.getAttribute('aria-valuetext')).toBe('9 of 32 (28 %)');

    // The chart cannot draw in jsdom: it says what it would draw.
    const chart = await screen.findByTestId('reward-chart');
    await waitFor(() => expect(chart.getAttribute('data-steps')).toBe('1,2,3'));
    expect(chart.getAttribute('data-means')).toBe('0.2,0.35,0.5');
    expect(screen.getByTestId('reward-last').textContent).toContain('Step 3: mean 0.5 ± 0.1 (min 0, max 1, 8 episodes)');

    const rows = within(screen.getByTestId('running-episodes')).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(30);
    expect(rows[0]?.textContent).toContain('100 s / 240 s');
    expect(screen.getByText('30 of 45, longest idle first')).toBeTruthy();
    expect(within(screen.getByTestId('task-rewards')).getByText('0.75 ± 0.25')).toBeTruthy();
    expect(within(screen.getByTestId('active-clients')).getByText(/agreed to sync weights/)).toBeTruthy();

    const timeline = screen.getByTestId('training-timeline');
    expect(within(timeline).getAllByRole('listitem').map((li) => li.getAttribute('data-status'))).toEqual([
      'ENGINE.ROLLING',
      'ENGINE.WEIGHT_SYNCING',
      'ENGINE.ROLLING',
      'ENGINE.BOOTING',
    ]);
    expect(within(timeline).getByText('WEIGHT_SYNCING')).toBeTruthy();
  });

  it('follows training:changed for its server only and re-reads the series when the step moves', async () => {
    api.trainingViews = [makeTrainingView(C, { runId: 'run-1', engineStatus: 'ENGINE.ROLLING', globalStep: 3 })];
    api.trainingSeries = [series()];
    show();
    await screen.findByText('3');
    const before = api.requestsOn('training:series').length;
    api.emit('training:changed', makeTrainingView('another', { engineStatus: 'ENGINE.ROLLING', globalStep: 99 }));
    api.trainingSeries = [series({ points: [point(1, 0.2), point(2, 0.35), point(3, 0.5), point(4, 0.6)] })];
    api.emit('training:changed', makeTrainingView(C, { runId: 'run-1', engineStatus: 'ENGINE.ROLLING', globalStep: 4 }));
    await waitFor(() => expect(screen.getByTestId('training-step').textContent).toContain('4'));
    await waitFor(() => expect(screen.getByTestId('reward-chart').getAttribute('data-steps')).toBe('1,2,3,4'));
    expect(api.requestsOn('training:series').length).toBe(before + 1);
  });

  it('says the server is not watched and still shows the last run', async () => {
    // No view: the fake answers CONTAINER_NOT_FOUND, as the backend does for a server it does not poll.
    api.trainingSeries = [series()];
    show();
    expect(await screen.findByTestId('training-not-watched')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('reward-chart').getAttribute('data-steps')).toBe('1,2,3'));
  });

  it('speaks Chinese', async () => {
    setLocale('zh-CN');
    api.trainingViews = [makeTrainingView(C)];
    show();
    expect((await screen.findByTestId('training-help')).textContent).toContain('正在等待客户端同步配置并启动引擎');
  });
});

describe('reward chart data and timeline segments', () => {
  it('lays the points out in uPlot columns, gaps as null, sorted by step', () => {
    expect(chartColumns([point(2, 0.5, 0.2), point(1, null)])).toEqual([[1, 2], [null, 0.5], [null, 0.3], [null, 0.7], [null, 0], [null, 1]]);
  });

  it('sizes segments by duration; the open last one runs until now', () => {
    const parts = segments(series().timeline, Date.UTC(2026, 11, 3, 12, 10));
    expect(parts.map((p) => p.fraction)).toEqual([0.2, 0.3, 0.1, 0.4]);
    expect(parts.map((p) => p.cls)).toEqual(['booting', 'rolling', 'syncing', 'rolling']);
  });
});

describe('desktop notifications in the browser host', () => {
  class FakeNotification {
    // TEST DOUBLE of the browser's Notification API (jsdom has none).
    static permission: NotificationPermission = 'default';
    static shown: { title: string; options?: NotificationOptions }[] = [];
    static requestPermission = vi.fn(async () => {
      FakeNotification.permission = 'granted';
      return 'granted' as const;
    });
    constructor(title: string, options?: NotificationOptions) {
      FakeNotification.shown.push({ title, ...(options ? { options } : {}) });
    }
  }

  it('asks permission on a click, then shows app:notification pushed by the backend', async () => {
    FakeNotification.permission = 'default';
    FakeNotification.shown = [];
    vi.stubGlobal('Notification', FakeNotification);
    api.trainingViews = [makeTrainingView(C)];
    show();
    await fireEvent.click(await screen.findByRole('button', { name: 'Enable desktop notifications' }));
    expect(FakeNotification.requestPermission).toHaveBeenCalled();
    expect(await screen.findByText('Desktop notifications are on.')).toBeTruthy();

    render(App);
    await waitFor(() => expect(api.listenerCount('app:notification')).toBe(1));
    api.emit('app:notification', { kind: 'engine-rolling', title: 'Training is rolling: gpu-box', body: 'The engine reached ENGINE.ROLLING.', engineId: 'local', containerId: C });
    expect(FakeNotification.shown).toEqual([
      { title: 'Training is rolling: gpu-box', options: { body: 'The engine reached ENGINE.ROLLING.', tag: `local:${C}:engine-rolling` } },
    ]);
  });

  it('shows nothing without permission', async () => {
    FakeNotification.permission = 'denied';
    FakeNotification.shown = [];
    vi.stubGlobal('Notification', FakeNotification);
    render(App);
    await waitFor(() => expect(api.listenerCount('app:notification')).toBe(1));
    api.emit('app:notification', { kind: 'container-died', title: 't', body: 'b', engineId: 'local', containerId: C });
    expect(FakeNotification.shown).toEqual([]);
  });
});

describe('accessibility (axe-core on the rendered dashboard; page-level rules left to the e2e audit)', () => {
  // TEST DOUBLE: jsdom has no canvas (axe measures icon ligatures with one); no canvas is the same answer, quietly.
  beforeEach(() => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a training server with fill bars, chart, tables and timeline has no violations', async () => {
    api.trainingViews = [
      makeTrainingView(C, {
        engineStatus: 'ENGINE.ROLLING',
        globalStep: 2,
        episodes: { done: 3, target: 8 },
        tasks: { done: 1, target: 2 },
        nonDummyTasks: { done: 0, target: 2 },
        runningEpisodes: [{ episodeUuid: 'e1', status: 'claimed', llmCalls: 1, idleSeconds: 2, patienceSeconds: 60, clientUuid: 'c', taskId: '1' }],
        taskRewards: [{ taskId: '1', episodes: 2, mean: 0.5, std: 0.5 }],
        activeClients: [{ clientUuid: 'c', agreedSyncWeight: false }],
      }),
    ];
    api.trainingSeries = [series()];
    const { container } = show();
    await screen.findByTestId('running-episodes');
    await waitFor(() => expect(screen.getByTestId('reward-chart').getAttribute('data-steps')).toBe('1,2,3'));
    const results = await axe.run(container, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      rules: { region: { enabled: false }, 'page-has-heading-one': { enabled: false }, 'landmark-one-main': { enabled: false }, 'color-contrast': { enabled: false }, 'heading-order': { enabled: false } },
      resultTypes: ['violations'],
    });
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  });
});
