import { describe, expect, it } from 'vitest';
import { AlertBook } from '../../../../electron/services/fleet/alert-book';
import { GpuIdleTracker, NoClientTracker, parseDfPercent, rewardVerdict, StallTracker, diskVerdict } from '../../../../electron/services/fleet/alert-rules';
import { AlertThresholds, type FleetAlert } from '../../../../electron/shared/schemas-fleet';
import type { AppNotification } from '../../../../electron/shared/schemas-profiles';

const t = AlertThresholds.parse({});
const MIN = 60_000;

describe('fleet alert conditions (injected clock)', () => {
  it('GPUs idle: every GPU under 5 % for 15 min while held; a busy sample or letting go ends the spell', () => {
    const idle = new GpuIdleTracker();
    expect(idle.observe([1, 2, 0, 4], true, 0, t).active).toBe(false);
    expect(idle.observe([1, 2, 0, 4], true, 14 * MIN, t).active).toBe(false);
    expect(idle.observe([1, 2, 0, 4], true, 15 * MIN, t)).toEqual({ active: true, detail: '4 GPUs under 5 % for 15 min', say: { key: 'gpusIdle', params: { n: 4, pct: 5, minutes: 15 } } });
    expect(idle.idleSince()).toBe(0);
    expect(idle.observe([1, 50], true, 16 * MIN, t).active).toBe(false);
    expect(idle.observe([1, 1], true, 17 * MIN, t).active).toBe(false);
    expect(idle.observe([1, 1], false, 40 * MIN, t).active).toBe(false);
    expect(idle.observe(null, true, 60 * MIN, t).active).toBe(false);
    expect(idle.observe([1, 1], true, 60 * MIN, { ...t, idleMinutes: 1 }).active).toBe(false);
    expect(idle.observe([1, 1], true, 61 * MIN, { ...t, idleMinutes: 1 }).active).toBe(true);
  });

  it('training stalled: ROLLING with no new step for 3 × the median step time, at least 10 min', () => {
    const stall = new StallTracker();
    // Steps every 5 min: median 5 min, so 3 × = 15 min.
    for (let step = 1; step <= 4; step++) expect(stall.observe(true, step, (step - 1) * 5 * MIN, t).active).toBe(false);
    expect(stall.medianStepMs()).toBe(5 * MIN);
    expect(stall.observe(true, 4, 29 * MIN, t).active).toBe(false);
    expect(stall.observe(true, 4, 30 * MIN, t)).toMatchObject({ active: true });
    expect(stall.observe(true, 5, 31 * MIN, t).active).toBe(false);
    // Fast steps: the 10-min floor holds.
    const fast = new StallTracker();
    for (let step = 1; step <= 4; step++) fast.observe(true, step, step * 1000, t);
    expect(fast.observe(true, 4, 4000 + 9 * MIN, t).active).toBe(false);
    expect(fast.observe(true, 4, 4000 + 10 * MIN, t).active).toBe(true);
    // Not ROLLING (weight syncing, offline): never stalled.
    expect(fast.observe(false, 4, 4000 + 60 * MIN, t).active).toBe(false);
  });

  it('no active client for 10 min while ROLLING', () => {
    const none = new NoClientTracker();
    expect(none.observe(true, 0, 0, t).active).toBe(false);
    expect(none.observe(true, 0, 10 * MIN, t)).toEqual({ active: true, detail: 'no active client for 10 min while the engine is ROLLING', say: { key: 'noClient', params: { minutes: 10 } } });
    expect(none.observe(true, 1, 11 * MIN, t).active).toBe(false);
    expect(none.observe(false, 0, 30 * MIN, t).active).toBe(false);
    expect(none.observe(true, null, 40 * MIN, t).active).toBe(false);
  });

  it('reward: not a number, or its mean down by more than half over 5 steps', () => {
    expect(rewardVerdict([0.5, NaN], t)).toEqual({ active: true, detail: 'the mean reward is not a number (NaN)', say: { key: 'rewardNotANumber', params: { value: 'NaN' } } });
    expect(rewardVerdict([0.8, 0.8, 0.7, 0.6, 0.5, 0.41], t).active).toBe(false);
    expect(rewardVerdict([0.8, 0.8, 0.7, 0.6, 0.5, 0.39], t)).toEqual({ active: true, detail: 'the mean reward fell from 0.800 to 0.390 over 5 steps', say: { key: 'rewardDrop', params: { from: '0.800', to: '0.390', steps: 5 } } });
    expect(rewardVerdict([0.8, 0.1], t).active).toBe(false);
    expect(rewardVerdict([], t).active).toBe(false);
  });

  it("disk: over 90 % full, read from df -P's capacity", () => {
    const df = 'Filesystem     1024-blocks      Used Available Capacity Mounted on\n/dev/sda1        102400000  93000000   9400000      91% /data\n';
    expect(parseDfPercent(df)).toBe(91);
    expect(diskVerdict(91, t).active).toBe(true);
    expect(diskVerdict(90, t).active).toBe(false);
    expect(parseDfPercent('df: /nope: No such file or directory')).toBeNull();
  });
});

describe('the alert book', () => {
  it('tells an episode once, lists it open, acknowledged and resolved, and tells a new episode again', () => {
    const shown: AppNotification[] = [];
    const logged: string[] = [];
    const lists: FleetAlert[][] = [];
    let now = Date.parse('2026-12-05T10:00:00Z');
    const book = new AlertBook({
      notifier: { notify: (n) => shown.push(n) },
      logger: { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: () => undefined },
      changed: (list) => lists.push(list),
      now: () => now,
    });
    const server = { engineId: 'local', containerId: 'c1', name: '"night run"' };
    book.update('gpus-idle', server, { active: true, detail: '4 GPUs under 5 % for 15 min' });
    book.update('gpus-idle', server, { active: true, detail: '4 GPUs under 5 % for 16 min' });
    expect(shown).toEqual([{ kind: 'fleet-alert', title: 'GPUs idle: "night run"', body: '"night run": 4 GPUs under 5 % for 15 min', engineId: 'local', containerId: 'c1' }]);
    const [alert] = book.list();
    expect(alert).toMatchObject({ rule: 'gpus-idle', state: 'open', openedAt: '2026-12-05T10:00:00.000Z', resolvedAt: null });
    expect(book.acknowledge(alert!.id)?.state).toBe('acknowledged');
    now += 60_000;
    book.update('gpus-idle', server, { active: false, detail: '' });
    expect(book.list()[0]).toMatchObject({ state: 'resolved', resolvedAt: '2026-12-05T10:01:00.000Z' });
    book.update('gpus-idle', server, { active: true, detail: 'again' });
    expect(shown).toHaveLength(2);
    expect(book.list().map((a) => a.state)).toEqual(['resolved', 'open']);
    book.serverGone('local', 'c1');
    expect(book.list().map((a) => a.state)).toEqual(['resolved', 'resolved']);
    expect(logged.filter((l) => l.startsWith('fleet alert: '))).toHaveLength(2);
    expect(lists.length).toBeGreaterThanOrEqual(5);
  });
});

describe('alert details as data (issue 32)', () => {
  it('each condition sends its facts, the book keeps them with the episode, and every key has words in en and zh-CN', async () => {
    const { en } = await import('../../../../renderer/src/lib/i18n/en');
    const { zhCN } = await import('../../../../renderer/src/lib/i18n/zh-CN');
    const { limitWarningSay } = await import('../../../../electron/services/slurm/limit-warnings');
    const t = AlertThresholds.parse({});
    const stalled = new StallTracker();
    stalled.observe(true, 3, 0, t);
    const stalledNoTime = stalled.observe(true, 3, 12 * MIN, t);
    expect(stalledNoTime.say).toEqual({ key: 'stalledStepTimeUnknown', params: { minutes: 12, step: 3, seconds: '' } });
    const stalledTimed = new StallTracker();
    for (let step = 1; step <= 3; step++) stalledTimed.observe(true, step, (step - 1) * MIN, t);
    const verdicts = [
      new GpuIdleTracker().observe([1], true, 0, { ...t, idleMinutes: 0 }),
      stalledNoTime,
      stalledTimed.observe(true, 3, 40 * MIN, t),
      new NoClientTracker().observe(true, 0, 0, { ...t, noClientMinutes: 0 }),
      rewardVerdict([0.5, Number.POSITIVE_INFINITY], t),
      rewardVerdict([0.8, 0.8, 0.7, 0.6, 0.5, 0.39], t),
      diskVerdict(95, t, '/data'),
      diskVerdict(95, t),
    ];
    const says = [
      ...verdicts.map((v) => {
        expect(v.active).toBe(true);
        return v.say!;
      }),
      limitWarningSay({ id: '243', timeLeftSeconds: 90, limitWarning: { seconds: 120 }, readAt: new Date(0).toISOString() } as never, 0),
      limitWarningSay({ id: '243', timeLeftSeconds: null, limitWarning: null, readAt: new Date(0).toISOString() } as never, 0),
    ];
    expect(says.map((s) => s.key)).toEqual(['gpusIdle', 'stalledStepTimeUnknown', 'stalled', 'noClient', 'rewardNotANumber', 'rewardDrop', 'diskOf', 'disk', 'slurmLimitIn', 'slurmLimitSoon']);
    for (const say of says) {
      for (const dictionary of [en, zhCN] as Record<string, string>[]) {
        const text = dictionary[`fleet.say.${say.key}`];
        expect(text, say.key).toBeTypeOf('string');
        for (const [, name] of text!.matchAll(/\{(\w+)\}/g)) expect(Object.keys(say.params), `${say.key} {${name}}`).toContain(name);
      }
    }
    const book = new AlertBook({ notifier: { notify: () => undefined }, logger: { info: () => undefined, warn: () => undefined, error: () => undefined }, changed: () => undefined });
    book.update('disk', { engineId: 'local', containerId: 'c1', name: 'run' }, verdicts[6]!);
    expect(book.list()[0]!.say).toEqual({ key: 'diskOf', params: { path: '/data', pct: 95 } });
  });
});
