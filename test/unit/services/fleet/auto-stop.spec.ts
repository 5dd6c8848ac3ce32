import { afterEach, describe, expect, it, vi } from 'vitest';
import { AlertBook } from '../../../../electron/services/fleet/alert-book';
import { AutoStopper, autoStopTimes, stepInProgress } from '../../../../electron/services/fleet/auto-stop';
import type { AutoStop } from '../../../../electron/shared/schemas-fleet';
import type { AppNotification, TrainingView } from '../../../../electron/shared/schemas-profiles';
import type { ServerState } from '../../../../electron/shared/server-state';

const MIN = 60_000;
const T0 = Date.parse('2026-12-05T10:00:00Z');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function state(engineStatus: string | null, phase: ServerState['phase'] = 'training'): ServerState {
  return { key: 'local:c1', engineId: 'local', containerId: 'c1', engineKind: 'local-docker', phase, engineStatus } as ServerState;
}

function view(running: number, done: number): TrainingView {
  return { runningEpisodes: Array.from({ length: running }, () => ({})), episodes: { done, target: 8 } } as TrainingView;
}

afterEach(() => vi.useRealTimers());

describe('a training step in progress', () => {
  it('is a closed rollout or a weight sync, or ROLLING with the batch filling; not an idle ROLLING engine', () => {
    expect(stepInProgress(state('ENGINE.WEIGHT_SYNCING'), undefined)).toBe(true);
    expect(stepInProgress(state('ENGINE.ROLLING_POST'), undefined)).toBe(true);
    expect(stepInProgress(state('ENGINE.ROLLING'), view(1, 0))).toBe(true);
    expect(stepInProgress(state('ENGINE.ROLLING'), view(0, 1))).toBe(true);
    expect(stepInProgress(state('ENGINE.ROLLING'), view(0, 0))).toBe(false);
    expect(stepInProgress(state('ENGINE.OFFLINE'), undefined)).toBe(false);
  });

  it('times: the warning N/2 before, and the stop never sooner than N/2 after the warning', () => {
    const opened = new Date(T0).toISOString();
    expect(autoStopTimes(opened, null, 20)).toEqual({ warnAt: T0 + 10 * MIN, stopAt: T0 + 20 * MIN });
    // Told late (the app was closed at the warning's time): the user still gets N/2 minutes.
    expect(autoStopTimes(opened, new Date(T0 + 30 * MIN).toISOString(), 20).stopAt).toBe(T0 + 40 * MIN);
  });
});

describe('auto-stop', () => {
  function setup(setting: AutoStop | null) {
    vi.useFakeTimers();
    let now = T0;
    const shown: AppNotification[] = [];
    const stops: string[] = [];
    const watched: [string, boolean][] = [];
    const book = new AlertBook({ notifier: { notify: (n) => shown.push(n) }, logger: quiet, changed: () => undefined, now: () => now });
    const current = { setting };
    const stopper = new AutoStopper({
      book,
      settingOf: () => current.setting,
      stop: (engineId, containerId) => {
        stops.push(`${engineId}:${containerId}`);
        return Promise.resolve();
      },
      watchBatch: (engineId, containerId, on) => watched.push([`${engineId}:${containerId}`, on]),
      wake: () => undefined,
      logger: quiet,
    });
    book.update('gpus-idle', { engineId: 'local', containerId: 'c1', name: '"night run"' }, { active: true, detail: '4 GPUs under 5 % for 15 min' });
    const alert = () => book.list().find((a) => a.rule === 'gpus-idle')!;
    const look = (s: ServerState, v?: TrainingView) => stopper.review([s], new Map(v ? [['local:c1', v]] : []), now);
    return { shown, stops, watched, book, alert, look, current, at: (minutes: number) => (now = T0 + minutes * MIN), stopper };
  }

  it('warns N/2 minutes before, waits out a training step, then stops the server and says so', async () => {
    const s = setup({ enabled: true, minutes: 20 });
    s.look(state('ENGINE.OFFLINE', 'ready'));
    expect(s.alert().autoStop).toEqual({ at: new Date(T0 + 20 * MIN).toISOString(), warnedAt: null, state: 'pending' });
    expect(s.shown.map((n) => n.title)).toEqual(['GPUs idle: "night run"']);
    s.at(10);
    s.look(state('ENGINE.OFFLINE', 'ready'));
    s.look(state('ENGINE.OFFLINE', 'ready'));
    expect(s.shown.slice(1)).toEqual([
      expect.objectContaining({
        kind: 'fleet-alert',
        title: 'Auto-stop in 10 min: "night run"',
        body: expect.stringContaining('To keep it running, acknowledge the GPUs-idle alert (Keep running, on the Fleet page), or turn auto-stop off in its profile.'),
      }),
    ]);
    // From the warning on, the training monitor reads this server's batch (its lease, renewed each look).
    expect(s.watched.at(-1)).toEqual(['local:c1', true]);
    s.at(20);
    s.look(state('ENGINE.WEIGHT_SYNCING'));
    s.look(state('ENGINE.ROLLING'), view(0, 3));
    expect(s.alert().autoStop?.state).toBe('waiting-step');
    expect(s.stops).toEqual([]);
    s.at(21);
    s.look(state('ENGINE.ROLLING'), view(0, 0));
    await vi.runAllTimersAsync();
    expect(s.stops).toEqual(['local:c1']);
    expect(s.alert().autoStop?.state).toBe('stopped');
    expect(s.shown.at(-1)).toMatchObject({ title: 'Auto-stopped: "night run"' });
    s.look(state('ENGINE.ROLLING'), view(0, 0));
    expect(s.stops).toHaveLength(1);
    expect(s.watched.at(-1)).toEqual(['local:c1', false]);
  });

  it('keeps the server when the alert is acknowledged, or auto-stop is turned off; does nothing when it is off', () => {
    const kept = setup({ enabled: true, minutes: 2 });
    kept.at(1);
    kept.look(state('ENGINE.OFFLINE', 'ready'));
    expect(kept.book.acknowledge(kept.alert().id)?.autoStop?.state).toBe('kept');
    kept.at(5);
    kept.look(state('ENGINE.OFFLINE', 'ready'));
    expect(kept.stops).toEqual([]);

    const off = setup({ enabled: true, minutes: 2 });
    off.at(1);
    off.look(state('ENGINE.OFFLINE', 'ready'));
    off.current.setting = { enabled: false, minutes: 2 };
    off.at(5);
    off.look(state('ENGINE.OFFLINE', 'ready'));
    expect(off.stops).toEqual([]);
    expect(off.alert().autoStop).toBeNull();

    // The GPUs work again before the stop: the episode resolves and no stop is planned any more.
    const busy = setup({ enabled: true, minutes: 2 });
    busy.look(state('ENGINE.OFFLINE', 'ready'));
    busy.book.update('gpus-idle', { engineId: 'local', containerId: 'c1', name: '"night run"' }, { active: false, detail: '' });
    expect(busy.alert()).toMatchObject({ state: 'resolved', autoStop: null });
    busy.at(5);
    busy.look(state('ENGINE.OFFLINE', 'ready'));
    expect(busy.stops).toEqual([]);

    const never = setup(null);
    never.at(60);
    never.look(state('ENGINE.OFFLINE', 'ready'));
    expect(never.stops).toEqual([]);
    expect(never.shown).toHaveLength(1);
  });

  it('warns before it stops even when the warning time passed unseen (the app was closed), and stops N/2 later', async () => {
    const s = setup({ enabled: true, minutes: 10 });
    s.at(30);
    s.look(state('ENGINE.OFFLINE', 'ready'));
    expect(s.stops).toEqual([]);
    expect(s.shown.at(-1)?.title).toBe('Auto-stop in 5 min: "night run"');
    s.at(35);
    s.look(state('ENGINE.OFFLINE', 'ready'));
    await vi.runAllTimersAsync();
    expect(s.stops).toEqual(['local:c1']);
    s.stopper.dispose();
  });
});
