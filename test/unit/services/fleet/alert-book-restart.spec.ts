import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertBook } from '../../../../electron/services/fleet/alert-book';
import { AlertBookFile } from '../../../../electron/services/fleet/alert-book-file';
import { GpuIdleTracker, StallTracker } from '../../../../electron/services/fleet/alert-rules';
import { FleetAlerts } from '../../../../electron/services/fleet/fleet-alerts';
import { SlurmLimitWarnings, limitWarningText } from '../../../../electron/services/slurm/limit-warnings';
import { AlertThresholds, type GpuSample } from '../../../../electron/shared/schemas-fleet';
import type { AppNotification } from '../../../../electron/shared/schemas-profiles';
import type { SlurmJobView } from '../../../../electron/shared/schemas-slurm';
import type { ServerState } from '../../../../electron/shared/server-state';

const t = AlertThresholds.parse({});
const MIN = 60_000;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const server = { engineId: 'local', containerId: 'c1', name: '"night run"' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-alert-book-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function bookAt(path: string, shown: AppNotification[], warned: string[] = []): AlertBook {
  return new AlertBook({ notifier: { notify: (n) => shown.push(n) }, logger: quiet, changed: () => undefined, file: new AlertBookFile(path, (m) => warned.push(m)) });
}

describe('the alert book across a backend restart', () => {
  it('keeps open and acknowledged episodes on disk, and does not tell them again while their condition holds', async () => {
    const path = join(dir, 'fleet-alert-book.json');
    const before: AppNotification[] = [];
    const first = bookAt(path, before);
    first.update('gpus-idle', server, { active: true, detail: '4 GPUs under 5 % for 15 min' });
    first.update('disk', server, { active: true, detail: 'the disk of /data is 95 % full' });
    first.acknowledge(first.current('disk', 'local', 'c1')!.id);
    await first.flush();
    expect(before).toHaveLength(2);

    const after: AppNotification[] = [];
    const second = bookAt(path, after);
    await second.load();
    expect(second.list().map((a) => [a.rule, a.state])).toEqual([['gpus-idle', 'open'], ['disk', 'acknowledged']]);
    // A fresh tracker counts the idle spell anew: "holding", not yet 15 min; the episode stays open, untold.
    const idle = new GpuIdleTracker();
    second.update('gpus-idle', server, idle.observe([1, 2], true, 0, t));
    second.update('gpus-idle', server, idle.observe([1, 2], true, 20 * MIN, t));
    // A fresh stall tracker has seen no step change: a stall found before the restart holds.
    const stall = new StallTracker();
    second.update('training-stalled', server, stall.observe(true, 7, 0, t));
    expect(after).toEqual([]);
    expect(second.list().filter((a) => a.state !== 'resolved')).toHaveLength(2);
    // Busy GPUs end the episode, as they would have before the restart.
    second.update('gpus-idle', server, idle.observe([90, 2], true, 21 * MIN, t));
    expect(second.current('gpus-idle', 'local', 'c1')).toBeUndefined();
    // New ids continue after the kept ones.
    second.update('reward', server, { active: true, detail: 'the mean reward is not a number (NaN)' });
    await second.flush();
    const ids = second.list().map((a) => Number(/^a(\d+)-/.exec(a.id)?.[1]));
    expect(new Set(ids).size).toBe(3);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ version: 1, seq: 3 });
  });

  it('starts empty (and says so in the log) when the file was edited into something unreadable', async () => {
    const path = join(dir, 'fleet-alert-book.json');
    await writeFile(path, '{"version": 1, "alerts": [');
    const warned: string[] = [];
    const book = bookAt(path, [], warned);
    await book.load();
    expect(book.list()).toEqual([]);
    expect(warned).toEqual(['the fleet alerts file is not readable; starting with an empty list']);
  });
});

describe('the Slurm time-limit warning in the alert book', () => {
  const NOW = Date.parse('2026-12-04T21:00:00Z');
  const view = (over: Partial<SlurmJobView>): SlurmJobView => ({
    id: '42', name: 'agentswarm-p1', comment: null, user: 'u', partition: 'debug', state: 'RUNNING', reason: null, node: 'vm', exitCode: null, signal: null,
    timeLimitSeconds: 3600, timeLeftSeconds: 290, submitTime: null, startTime: null, endTime: null, outputPath: null, gres: null, priority: null, pendingPosition: null,
    engineId: 'ssh-login', profileId: 'p1', port: 10086, limitWarning: { at: new Date(NOW).toISOString(), seconds: 300 }, outputTail: [], readAt: new Date(NOW).toISOString(), ...over,
  });

  it('is an alert like the others: told once (in its own words), listed, acknowledged, resolved when the job is gone', async () => {
    const shown: AppNotification[] = [];
    const book = bookAt(join(dir, 'book.json'), shown);
    let views = [view({})];
    const serverOf = (engineId: string, jobId: string) => ({ engineId, containerId: jobId, name: '"Time limit"' });
    const watcher = new SlurmLimitWarnings({
      sources: () => [{ engineId: 'ssh-login', jobViews: () => Promise.resolve(views) }],
      notifier: { notify: () => expect.unreachable('the book tells it, not the watcher') },
      logger: quiet,
      intervalMs: 0,
      idleIntervalMs: 0,
      now: () => NOW,
      alerts: {
        warned: (v, { title, body }) => book.update('slurm-time-limit', serverOf(v.engineId, v.id), { active: true, detail: body, notice: { kind: 'slurm-time-limit', title, body } }),
        gone: (engineId, jobId) => book.update('slurm-time-limit', serverOf(engineId, jobId), { active: false, detail: '' }),
      },
    });
    await watcher.pollDue();
    await watcher.pollDue();
    expect(shown).toEqual([{ kind: 'slurm-time-limit', engineId: 'ssh-login', containerId: '42', ...limitWarningText(views[0]!, NOW) }]);
    const [alert] = book.list();
    expect(alert).toMatchObject({ rule: 'slurm-time-limit', state: 'open', containerId: '42', detail: limitWarningText(views[0]!, NOW).body });
    expect(book.acknowledge(alert!.id)?.state).toBe('acknowledged');
    views = [];
    await watcher.pollDue();
    expect(book.list()[0]).toMatchObject({ state: 'resolved' });
    expect(shown).toHaveLength(1);
  });
});

describe('the fleet alerts while the app starts', () => {
  it('look at nothing before the book has read its file: an episode told before the restart is not told again', async () => {
    const path = join(dir, 'fleet-alert-book.json');
    const before: AppNotification[] = [];
    const first = bookAt(path, before);
    first.update('gpus-idle', server, { active: true, detail: '1 GPU under 5 % for 0 min' });
    await first.flush();
    expect(before).toHaveLength(1);

    const after: AppNotification[] = [];
    const second = bookAt(path, after);
    const idleAtOnce = AlertThresholds.parse({ idleMinutes: 0 });
    const training = { key: 'local:c1', engineId: 'local', containerId: 'c1', engineKind: 'local-docker', phase: 'training', engineStatus: 'ENGINE.OFFLINE' } as ServerState;
    const idleSample = { key: 'local', engineId: 'local', engineIds: ['local'], containerId: null, hostLabel: 'this computer', hostKind: 'local', at: new Date().toISOString(), gpus: [{ index: 0, uuid: 'GPU-0', utilizationPct: 0, memoryUsedMiB: 0, memoryTotalMiB: 1 }], error: null } as GpuSample;
    const alerts = new FleetAlerts({
      states: () => [training],
      samples: () => [idleSample],
      views: () => Promise.resolve([]),
      series: () => Promise.resolve(null),
      thresholds: () => idleAtOnce,
      book: second,
      nameOf: () => server.name,
      logger: quiet,
    });
    // A sample comes while the book still reads (the app's start, as in loaded run L18): nothing is looked at yet.
    await alerts.evaluate();
    expect(second.list()).toEqual([]);
    await second.load();
    alerts.start();
    await alerts.evaluate();
    alerts.dispose();
    expect(second.list().map((a) => [a.rule, a.state, a.detail])).toEqual([['gpus-idle', 'open', '1 GPU under 5 % for 0 min']]);
    expect(after).toEqual([]);
  });
});
