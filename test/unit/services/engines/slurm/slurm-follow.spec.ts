// What watching and following Slurm jobs costs the cluster's controller (issue 31: one watched job cost 201 slurmctld
// requests a minute, 177 of them the follower's `squeue -j` every second). The queue is asked with one
// `squeue --local -u $USER -n <our names> -O …` shared by every reader while it is young; an ended job's exit code is
// asked once with scontrol and kept; the follower asks nothing of its own. The login node below is a TEST DOUBLE (the
// real Slurm runs in test/integration/slurm-*.spec.ts): it answers in 22.05's `-o` format with the job's state of the
// moment and serves a growing output file; its clock is a fake one that moves 10 ms per command, so counts are exact.
import { describe, expect, it } from 'vitest';
import type { EngineLogLine, HostExecResult } from '../../../../../electron/services/engines/container-engine';
import { SlurmClient } from '../../../../../electron/services/engines/slurm/slurm-client';
import { followJobOutput } from '../../../../../electron/services/engines/slurm/slurm-log';
import { asLong } from './squeue-lines';

const ok = (stdout: string): HostExecResult => ({ code: 0, stdout, stderr: '' });

/** One job in SQUEUE_FORMAT (`%i|%j|%u|%P|%T|%r|%N|%l|%L|%V|%S|%e|%Q|%b|%k`), as 22.05 prints it. */
function squeueLine(id: string, state: string, reason = 'None', name = 'agentswarm-p1'): string {
  return `${id}|${name}|alice|debug|${state}|${reason}|vm|1:00:00|59:00|1796428000|1796428010|1796431610|4294901741|N/A|agentswarm profile=${name.slice('agentswarm-'.length)} app=1.0.0`;
}

/** TEST DOUBLE of a login node: a job whose output grows by one line per read, and whose state the test sets. */
function loginNode() {
  let clock = 1_796_428_800_000;
  const node = { state: 'RUNNING', output: '', scripts: [] as string[], squeues: 0, scontrols: 0 };
  const exec = (script: string): Promise<HostExecResult> => {
    clock += 10;
    node.scripts.push(script);
    if (script === 'id -un') return Promise.resolve(ok('alice\n'));
    if (/squeue --local -u 'alice' -n 'agentswarm-p1' -h -t all -O /.test(script)) {
      node.squeues += 1;
      return Promise.resolve(ok(asLong(squeueLine('77', node.state))));
    }
    if (/scontrol --local -o show job 77$/.test(script)) {
      node.scontrols += 1;
      return Promise.resolve(ok(`JobId=77 JobName=agentswarm-p1 UserId=alice(1000) JobState=${node.state} Reason=None ExitCode=0:0 Partition=debug NodeList=vm\n`));
    }
    if (script.includes('@@follow')) {
      const chunk = /tail -c \+(\d+)/.exec(script);
      const from = chunk ? Number(chunk[1]) - 1 : 0;
      return Promise.resolve(ok(`@@follow - ${Buffer.byteLength(node.output)}\n${node.output.slice(from)}`));
    }
    return Promise.resolve({ code: 1, stdout: '', stderr: `unexpected script: ${script}` });
  };
  const client = new SlurmClient({ exec, host: 'login', now: () => clock, jobNames: () => Promise.resolve(['agentswarm-p1']) });
  return { node, exec, client, advance: (ms: number) => void (clock += ms) };
}

describe('SlurmClient: one queue answer shared by callers that can take its age', () => {
  it('asks anew by default, shares an answer younger than maxAgeMs, and asks again once it is older', async () => {
    const { node, client, advance } = loginNode();
    await client.queue();
    await client.queue();
    expect(node.squeues).toBe(2);
    expect(await client.job('77', { maxAgeMs: 100 })).toMatchObject({ id: '77', state: 'RUNNING' });
    expect(node.squeues).toBe(2);
    node.state = 'COMPLETED';
    // Still young: the shared answer (the job's end is learnt on the next squeue).
    expect((await client.job('77', { maxAgeMs: 100 }))?.state).toBe('RUNNING');
    advance(100);
    // Ended: its exit code (not in squeue's -o format) is asked once with scontrol, then kept.
    expect(await client.job('77', { maxAgeMs: 100 })).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(node.squeues).toBe(3);
    expect(node.scontrols).toBe(1);
    await client.job('77');
    await client.job('77');
    expect(node.squeues + node.scontrols, 'an ended job is never asked again').toBe(4);
    expect(client.knownEnd('77')).toMatchObject({ state: 'COMPLETED' });
  });

  it('asks nothing at all when there are no job names to ask about', async () => {
    const calls: string[] = [];
    const client = new SlurmClient({ host: 'login', exec: (s) => (calls.push(s), Promise.resolve(ok(''))), jobNames: () => Promise.resolve([]) });
    expect(await client.queue()).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('does not share a failed answer: the next caller asks again', async () => {
    let fail = true;
    let calls = 0;
    const client = new SlurmClient({
      host: 'login',
      now: () => 0,
      jobNames: () => Promise.resolve(['agentswarm-p1']),
      exec: (script) => {
        if (script === 'id -un') return Promise.resolve(ok('alice\n'));
        calls += 1;
        return Promise.resolve(fail ? { code: 1, stdout: '', stderr: 'squeue: error: Unable to contact slurm controller (connect failure)\n' } : ok(asLong(squeueLine('77', 'RUNNING'))));
      },
    });
    await expect(client.queue({ maxAgeMs: 60_000 })).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE' });
    fail = false;
    expect((await client.queue({ maxAgeMs: 60_000 })).map((j) => j.id)).toEqual(['77']);
    expect(calls).toBe(2);
  });

  it('cancel waits with backoff (0.2, 0.4, 0.8 … s), one scontrol per look, not five squeues a second', async () => {
    const { node, exec } = loginNode();
    const waits: number[] = [];
    let looks = 0;
    const client = new SlurmClient({
      host: 'login',
      jobNames: () => Promise.resolve(['agentswarm-p1']),
      sleep: (ms) => (waits.push(ms), Promise.resolve()),
      exec: (script) => {
        if (script === 'scancel 77') return Promise.resolve(ok(''));
        if (script === 'scontrol show config') return Promise.resolve(ok('KillWait                = 30 sec\n'));
        if (/scontrol --local -o show job 77$/.test(script) && ++looks === 5) node.state = 'CANCELLED';
        return exec(script);
      },
    });
    expect(await client.cancel('77')).toMatchObject({ state: 'CANCELLED' });
    expect(waits).toEqual([200, 400, 800, 1600, 3200]);
    expect(node.squeues).toBe(0);
    // The end is kept: the queue shows it without asking again.
    expect(client.knownEnd('77')).toMatchObject({ state: 'CANCELLED' });
  });
});

describe('following a job output', () => {
  it('sends no Slurm command with its reads and ends with every line once told the job ended', async () => {
    const { node, exec } = loginNode();
    const seen: EngineLogLine[] = [];
    const controller = new AbortController();
    let reads = 0;
    let asked = 0;
    const run = (script: string) => {
      if (script.includes('@@follow')) {
        reads += 1;
        node.output += reads < 40 ? `line ${reads}\n` : '';
        // After 40 reads the job writes a last line without a newline and ends.
        if (reads === 40) {
          node.output += 'last words';
          node.state = 'COMPLETED';
        }
      }
      return exec(script);
    };
    // The engine answers from its queue poll; here: the state of the moment.
    const jobEnded = () => Promise.resolve((asked += 1) > 0 && node.state === 'COMPLETED');
    await followJobOutput(run, jobEnded, '~/.agentswarm/slurm/agentswarm-p1/out/77.out', { signal: controller.signal, onLines: (lines) => seen.push(...lines) }, 0);
    expect(seen.map((l) => l.text)).toEqual([...Array.from({ length: 39 }, (_, i) => `line ${i + 1}`), 'last words']);
    expect(node.scripts.filter((s) => /squeue|scontrol/.test(s))).toEqual([]);
    expect(asked).toBeGreaterThanOrEqual(40);
  });
});
