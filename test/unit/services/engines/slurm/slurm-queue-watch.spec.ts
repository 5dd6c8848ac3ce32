// The one queue poll of a login node (issue 31): paced by whether a window shows the server, silent while none of the
// app's jobs there can change, an end asked once. The login node is a TEST DOUBLE (22.05's `-o` and scontrol output,
// the job folders' records); time is vitest's fake clock, so the counts are exact. The real Slurm: scripts/bench-watch-slurm.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineHost, HostExecResult } from '../../../../../electron/services/engines/container-engine';
import { SlurmClient } from '../../../../../electron/services/engines/slurm/slurm-client';
import { SlurmQueueWatch } from '../../../../../electron/services/engines/slurm/slurm-queue-watch';
import { RECORD_MARK } from '../../../../../electron/services/engines/slurm/slurm-state';

const ok = (stdout: string): HostExecResult => ({ code: 0, stdout, stderr: '' });
const line = (state: string) => `77|agentswarm-p1|alice|debug|${state}|None|vm|1:00:00|59:00|1796428000|1796428010|1796431610|4294901741|N/A|N/A|agentswarm profile=p1 app=1.0.0|\n`;

function loginNode(withRecord: boolean) {
  const node = { state: 'RUNNING', squeues: 0, scontrols: 0, recordReads: 0 };
  const exec = (script: string): Promise<HostExecResult> => {
    if (script === 'id -un') return Promise.resolve(ok('alice\n'));
    if (script.includes('labels.json; do')) {
      node.recordReads += 1;
      return Promise.resolve(ok(withRecord ? `${RECORD_MARK}\n${JSON.stringify({ jobId: '77', name: 'agentswarm-p1', key: 'p1', labels: {}, image: '', createdAt: '2026-12-04T11:00:00Z' })}\n` : ''));
    }
    if (script.includes('squeue')) {
      node.squeues += 1;
      return Promise.resolve(ok(line(node.state)));
    }
    if (script.includes('show job 77')) {
      node.scontrols += 1;
      return Promise.resolve(ok(`JobId=77 JobName=agentswarm-p1 UserId=alice(1000) JobState=${node.state} Reason=None ExitCode=0:0 NodeList=vm\n`));
    }
    return Promise.resolve({ code: 1, stdout: '', stderr: `unexpected script: ${script}` });
  };
  return { node, exec };
}

function watchOf(withRecord: boolean, isShown: () => boolean) {
  const { node, exec } = loginNode(withRecord);
  const host: EngineHost = { kind: 'ssh', label: 'login', exec };
  let watch: SlurmQueueWatch | null = null;
  const client = new SlurmClient({ exec, host: 'login', jobNames: () => watch!.activeNames() });
  watch = new SlurmQueueWatch({ host, client, isShown, now: () => Date.now() });
  return { node, watch };
}

describe('the queue poll of a login node', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-12-05T06:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('every 30 s while a window shows the server, every 60 s while none does; readers share its answer', async () => {
    let shown = true;
    const { node, watch } = watchOf(true, () => shown);
    const answers: string[] = [];
    const off = watch.subscribe((a) => answers.push(a.jobs[0]?.state ?? 'none'));
    await vi.advanceTimersByTimeAsync(100);
    expect(node.squeues).toBe(1);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(node.squeues).toBe(5);
    // Readers in between (a listing, the jobs panel, a log follower) take the poll's answer.
    for (let i = 0; i < 10; i += 1) await watch.read();
    expect(node.squeues).toBe(5);
    shown = false;
    await vi.advanceTimersByTimeAsync(30_000);
    const before = node.squeues;
    await vi.advanceTimersByTimeAsync(240_000);
    expect(node.squeues - before).toBe(4);
    expect(answers.every((s) => s === 'RUNNING')).toBe(true);
    // The job folders are read every 5 minutes, not with every poll (the app's own writes clear them).
    expect(node.recordReads).toBe(2);
    off();
    watch.dispose();
  });

  it('asks an ended job once (its exit code), then nothing while no job of ours can change', async () => {
    const { node, watch } = watchOf(true, () => true);
    const off = watch.subscribe(() => undefined);
    await vi.advanceTimersByTimeAsync(100);
    node.state = 'COMPLETED';
    await vi.advanceTimersByTimeAsync(30_000);
    expect(node.scontrols).toBe(1);
    const squeues = node.squeues;
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    expect(node.squeues).toBe(squeues);
    expect(node.scontrols).toBe(1);
    expect((await watch.read()).jobs[0]).toMatchObject({ id: '77', state: 'COMPLETED', exitCode: 0 });
    off();
    watch.dispose();
  });

  it('no job folder of ours: no squeue at all, the folders read every 5 minutes', async () => {
    const { node, watch } = watchOf(false, () => true);
    const off = watch.subscribe(() => undefined);
    await vi.advanceTimersByTimeAsync(10 * 60_000 + 100);
    expect(node.squeues).toBe(0);
    expect(node.recordReads).toBe(3);
    off();
    watch.dispose();
  });
});
