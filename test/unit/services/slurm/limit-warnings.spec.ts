// The time-limit warning told once per job, as a notification and in the app log. The login node is a TEST
// DOUBLE (canned job views in slurm:jobs' shape); the real Slurm warning is in test/integration/slurm-ends.spec.ts.
import { describe, expect, it } from 'vitest';
import { SlurmLimitWarnings, limitWarningText, secondsToLimit } from '../../../../electron/services/slurm/limit-warnings';
import type { AppNotification } from '../../../../electron/shared/schemas-profiles';
import type { SlurmJobView } from '../../../../electron/shared/schemas-slurm';

const NOW = Date.parse('2026-12-04T21:00:00Z');

function view(over: Partial<SlurmJobView>): SlurmJobView {
  return {
    id: '42', name: 'agentswarm-p1', comment: null, user: 'u', partition: 'debug', state: 'RUNNING', reason: null, node: 'vm', exitCode: null, signal: null,
    timeLimitSeconds: 3600, timeLeftSeconds: 290, submitTime: null, startTime: null, endTime: null, outputPath: null, gres: null, priority: null, pendingPosition: null,
    engineId: 'ssh-login', profileId: 'p1', port: 10086, limitWarning: null, outputTail: [], readAt: new Date(NOW).toISOString(), ...over,
  };
}

describe('the time-limit warning', () => {
  it("counts down from Slurm's time left when read, else from the warning's lead", () => {
    expect(secondsToLimit(view({}), NOW + 10_000)).toBe(280);
    expect(secondsToLimit(view({ timeLeftSeconds: null, limitWarning: { at: new Date(NOW - 20_000).toISOString(), seconds: 300 } }), NOW)).toBe(280);
    expect(limitWarningText(view({}), NOW)).toEqual({
      title: 'Slurm job 42 reaches its time limit in ~290 s',
      body: 'Slurm job 42 (profile p1) reaches its time limit in ~290 s: training stops then; save a checkpoint or restart with a longer limit.',
    });
  });

  it('is told once per running job, as a notification and in the log; not for a job without a warning', async () => {
    const notes: AppNotification[] = [];
    const logged: string[] = [];
    let views = [view({ id: '41' }), view({ id: '42', limitWarning: { at: new Date(NOW).toISOString(), seconds: 300 } })];
    const watcher = new SlurmLimitWarnings({
      sources: () => [{ engineId: 'ssh-login', jobViews: () => Promise.resolve(views) }],
      notifier: { notify: (n) => notes.push(n) },
      logger: { warn: (m) => logged.push(m) },
      intervalMs: 0,
      idleIntervalMs: 0,
      now: () => NOW,
    });
    await watcher.pollDue();
    await watcher.pollDue();
    expect(notes).toEqual([{ kind: 'slurm-time-limit', engineId: 'ssh-login', containerId: '42', ...limitWarningText(views[1]!, NOW) }]);
    expect(logged).toEqual([notes[0]!.body]);
    // A login node that does not answer is skipped, not fatal.
    views = [];
    const failing = new SlurmLimitWarnings({ sources: () => [{ engineId: 'x', jobViews: () => Promise.reject(new Error('down')) }], notifier: { notify: (n) => notes.push(n) }, logger: { warn: () => undefined } });
    await expect(failing.pollDue()).resolves.toBeUndefined();
    expect(notes).toHaveLength(1);
  });
});
