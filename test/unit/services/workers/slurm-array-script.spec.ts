import { describe, expect, it } from 'vitest';
import { slurmArrayScript, slurmArraySubmitCommand, slurmArraySubmitScript, slurmPollScript, slurmStopScript } from '../../../../electron/services/workers/slurm-array-script';
import { WorkerPlacement } from '../../../../electron/shared/schemas-workers';

const placement = WorkerPlacement.parse({ kind: 'slurm', serverId: 'hpc', python: 'source ~/ajet/bin/activate && python', partition: 'cpu', timeLimit: '2:00:00', cpusPerTask: 4 });
if (placement.kind !== 'slurm') throw new Error('not a Slurm placement');
const tasks = [0, 1, 2].map((i) => ({ shareEnv: { AGENTSWARM_WORKER_INDEX: String(i), AGENTSWARM_WORKER_COUNT: '3', AGENTSWARM_WORKER_BATCH_SHARE: i === 0 ? '2' : '1' } }));

describe('the Slurm array script of a pool\'s workers', () => {
  const script = slurmArrayScript({ poolId: 'pool-abc', runName: 'pool-abc-slurm-0', placement, workDir: "/home/u/.agentswarm/projects/my agent/0123", script: 'agent_roll.py', tasks });

  it('is one array of N tasks on the chosen CPU partition, never requeued, with each task\'s share as plain numbers', () => {
    expect(script.startsWith('#!/bin/bash -l\n')).toBe(true);
    expect(script).toContain('#SBATCH --array=0-2\n');
    expect(script).toContain('#SBATCH --partition=cpu\n');
    expect(script).toContain('#SBATCH --time=2:00:00\n');
    expect(script).toContain('#SBATCH --cpus-per-task=4\n');
    expect(script).toContain('#SBATCH --no-requeue\n');
    expect(script).not.toMatch(/--gres|--gpus/);
    expect(script).toContain("  0) export AGENTSWARM_WORKER_INDEX='0'; export AGENTSWARM_WORKER_COUNT='3'; export AGENTSWARM_WORKER_BATCH_SHARE='2' ;;");
    expect(script).toContain("cd '/home/u/.agentswarm/projects/my agent/0123' ||");
    expect(script).toContain(`#   ${slurmArraySubmitCommand('pool-abc-slurm-0')}`);
  });

  it('takes secrets only from each task\'s own 0600 env file, read and deleted at start; the env arrives on stdin', () => {
    expect(script).toContain('if [ -f "$DIR/env.$T" ]; then . "$DIR/env.$T"; rm -f "$DIR/env.$T"; fi');
    expect(script).not.toMatch(/AJET_SWARM_URL=|OPENAI_API_KEY/);
    const submit = slurmArraySubmitScript('pool-abc-slurm-0', script, 3);
    expect(submit).toContain('(umask 077 && cat >"$d/env.shared")');
    expect(submit).toContain('while [ $i -lt 3 ]');
    expect(submit).toContain('sbatch --parsable job.sh');
    // A refused submission leaves no env file on the cluster's disk.
    expect(submit).toContain('if [ "$rc" -ne 0 ]; then rm -f "$d"/env.*; fi');
  });

  it('stops one task by its task id only: SIGINT to its batch shell (forwarded to the worker), then scancel', () => {
    const stop = slurmStopScript('pool-abc-slurm-0', '812_1');
    expect(stop).toContain('scancel --batch --signal=INT 812_1');
    expect(stop).toContain('running && scancel 812_1');
    // While the worker ends its exit file is watched; the queue is asked once a second, then with growing waits.
    expect(stop).toContain('if [ $((i % 10)) -eq 9 ] && ! running; then break; fi; sleep 0.1');
    expect(stop).toContain('w=$((w * 2 > 50 ? 50 : w * 2))');
    expect(() => slurmStopScript('pool-abc-slurm-0', '812')).toThrow(/not a Slurm array task id/);
    expect(() => slurmArrayScript({ poolId: 'p', runName: '../x', placement, workDir: '/w', script: 'a.py', tasks })).toThrow(/cannot name/);
  });

  it('polls a task by its files only: its queue state comes from the login node\'s shared queue poll', () => {
    const poll = slurmPollScript('pool-abc-slurm-0', '812', 1, 120, 1000);
    expect(poll).not.toMatch(/squeue|scontrol|sacct/);
    expect(poll).toContain('if [ -f "$d/exit.$t" ]; then echo "@@exit $(cat "$d/exit.$t")"; else echo "@@noexit"; fi');
    expect(poll).toContain('f="$d/out/812_1.out"');
  });
});
