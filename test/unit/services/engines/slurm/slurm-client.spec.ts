// SlurmClient paths the test bed's Slurm 22.05 cannot take: a Slurm without `--local` (older than 17.11),
// `sbatch --parsable` with a cluster suffix; the queue questions it sends; and what must never be in the script (argv on the
// host): the env values. The exec below is a TEST DOUBLE that answers with real 22.05 output from
// fixtures/ (the real Slurm runs in test/integration/slurm-client.spec.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostExecResult } from '../../../../../electron/services/engines/container-engine';
import { SlurmClient, parseEndpoint, type SlurmExec } from '../../../../../electron/services/engines/slurm/slurm-client';
import { asLong } from './squeue-lines';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const ok = (stdout: string): HostExecResult => ({ code: 0, stdout, stderr: '' });

/** TEST DOUBLE of the login node: the first rule whose pattern matches the script answers; every call is recorded. */
function loginNode(rules: [RegExp, HostExecResult][]): { exec: SlurmExec; calls: { script: string; stdin?: string }[] } {
  const calls: { script: string; stdin?: string }[] = [];
  const exec: SlurmExec = (script, options) => {
    calls.push({ script, ...(options?.stdin === undefined ? {} : { stdin: options.stdin }) });
    const rule = rules.find(([pattern]) => pattern.test(script));
    return Promise.resolve(rule ? rule[1] : { code: 127, stdout: '', stderr: `sh: 1: ${script.split(' ')[0]}: not found` });
  };
  return { exec, calls };
}

describe('SlurmClient queue questions', () => {
  it("asks the user's jobs of our names with --local, and every user's pending jobs only for our pending ones' places", async () => {
    const lines = fixture('squeue-o-22.05.txt');
    const node = loginNode([
      [/^id -un$/, ok('swarmtest\n')],
      [/squeue --local -u 'swarmtest' -h -t all -O /, ok(asLong(lines))],
      [/squeue --local -h -t PD -p 'debug' -o /, ok(lines.split('\n').filter((l) => l.includes('|PENDING|')).join('\n'))],
    ]);
    const client = new SlurmClient({ exec: node.exec, host: 'login', now: () => 1796412046_000 });
    const jobs = await client.jobs();
    expect(jobs.map((j) => j.id)).toEqual(['41', '39', '38', '37', '36', '35', '30', '28', '27', '26', '25', '22', '19']);
    expect(jobs.find((j) => j.id === '38')).toMatchObject({ state: 'PENDING', reason: 'Resources', pendingPosition: 1 });
    await client.jobs({ maxAgeMs: 0 });
    // Places are kept for 3 minutes: the second look asked the queue, not every user's pending jobs again.
    expect(node.calls.filter((c) => c.script.includes('-t PD'))).toHaveLength(1);
    expect(node.calls.filter((c) => c.script.includes('-t all'))).toHaveLength(2);
  });

  it('takes the GPUs of a --gpus job from tres-per-job (the -o form has only tres-per-node)', async () => {
    const line = '50|agentswarm-p1|swarmtest|debug|RUNNING|None|vm|10:00|9:59|1796449391|1796449392|1796449992|4294901687|N/A|agentswarm profile=p1 app=0.1.0';
    const node = loginNode([
      [/^id -un$/, ok('swarmtest\n')],
      [/squeue --local -u 'swarmtest' -h -t all -O /, ok(asLong(line, 'gres:gpu:1'))],
    ]);
    expect(await new SlurmClient({ exec: node.exec, host: 'login' }).jobs()).toMatchObject([{ id: '50', gres: 'gres:gpu:1', comment: 'agentswarm profile=p1 app=0.1.0', timeLeftSeconds: 599 }]);
  });

  it('a Slurm without --local (older than 17.11) is asked again without it, for good', async () => {
    const node = loginNode([
      [/^id -un$/, ok('swarmtest\n')],
      [/squeue --local /, { code: 1, stdout: '', stderr: "squeue: unrecognized option '--local'\nTry \"squeue --help\" for more information\n" }],
      [/squeue -u 'swarmtest' -h -t all -O /, ok('')],
    ]);
    const client = new SlurmClient({ exec: node.exec, host: 'login' });
    expect(await client.jobs()).toEqual([]);
    await client.jobs();
    expect(node.calls.filter((c) => c.script.includes('--local'))).toHaveLength(1);
  });

  it('any other squeue failure is mapped, not taken for an old Slurm', async () => {
    const node = loginNode([
      [/^id -un$/, ok('swarmtest\n')],
      [/squeue/, { code: 1, stdout: '', stderr: 'squeue: error: Unable to contact slurm controller (connect failure)\n' }],
    ]);
    await expect(new SlurmClient({ exec: node.exec, host: 'login' }).jobs()).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE' });
  });
});

describe('SlurmClient.submit', () => {
  it('writes the script and the env file (values through stdin only), then sbatch --parsable from the job folder', async () => {
    const node = loginNode([[/sbatch --parsable --hold job\.sh\b/, ok('4242;cluster-a\n')]]);
    const client = new SlurmClient({ exec: node.exec, host: 'login' });
    const result = await client.submit('#!/bin/bash -l\necho hi\n', { profileId: 'qwen', hold: true, env: { SWANLAB_API_KEY: "s3cr3t 'value'" } });
    expect(result).toEqual({ jobId: '4242', scriptPath: '~/.agentswarm/slurm/agentswarm-qwen/job.sh', outputDir: '~/.agentswarm/slurm/agentswarm-qwen/out' });
    const [call] = node.calls;
    expect(call?.script).toContain(`d="$HOME"/.agentswarm/slurm/'agentswarm-qwen'`);
    expect(call?.script).toContain('mkdir -p "$d/out"');
    expect(call?.script).toContain('#!/bin/bash -l\necho hi\n');
    expect(call?.script).not.toContain('s3cr3t');
    expect(call?.stdin).toBe(`export SWANLAB_API_KEY='s3cr3t '"'"'value'"'"''\n`);
  });

  it('refuses a profile id or env name that would break out of the script', async () => {
    const client = new SlurmClient({ exec: loginNode([]).exec, host: 'login' });
    await expect(client.submit('x', { profileId: "a'; id; '" })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(client.submit('x', { profileId: 'a', env: { 'A;id': '1' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(client.cancel('1; id')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(client.nodeAddr('vm; id')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('the endpoint file', () => {
  it('reads the lines the job writes; refuses a half-written or foreign file', () => {
    expect(parseEndpoint('job=36\nnode=vm\nhost=vm.cluster\nport=10087\nstarted=1796412044\n')).toEqual({
      jobId: '36',
      node: 'vm',
      host: 'vm.cluster',
      port: 10087,
      startedAt: '2026-12-04T19:20:44.000Z',
    });
    expect(parseEndpoint('job=36\n')).toBeNull();
    expect(parseEndpoint('job=x\nport=1\n')).toBeNull();
    expect(parseEndpoint('')).toBeNull();
  });
});
