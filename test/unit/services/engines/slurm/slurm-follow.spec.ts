// What following a Slurm job's output costs the cluster's controller (issue 31: one watched job cost 201 slurmctld
// requests a minute, 177 of them the follower's `squeue -j` every second). The follower now asks squeue nothing of
// its own: the job's end comes from the client's newest queue answer, shared while it is young enough.
// The login node below is a TEST DOUBLE (the real Slurm runs in test/integration/slurm-*.spec.ts): it answers
// `squeue --json` with the job's state of the moment and serves a growing output file; its clock is a fake one that
// moves 10 ms per command, so the counts are exact however loaded the machine is.
import { describe, expect, it } from 'vitest';
import type { EngineLogLine, HostExecResult } from '../../../../../electron/services/engines/container-engine';
import { SlurmClient } from '../../../../../electron/services/engines/slurm/slurm-client';
import { followJobOutput } from '../../../../../electron/services/engines/slurm/slurm-log';

const ok = (stdout: string): HostExecResult => ({ code: 0, stdout, stderr: '' });

function squeueJson(state: string): string {
  const job = { job_id: 77, name: 'agentswarm-p1', comment: 'agentswarm profile=p1 app=1.0.0', user_name: 'alice', partition: 'debug', job_state: state, state_reason: 'None', nodes: 'vm', exit_code: 0, time_limit: 60, submit_time: 1, start_time: 2, end_time: 0, priority: 1 };
  return JSON.stringify({ jobs: [job] });
}

/** TEST DOUBLE of a login node: a job whose output grows by one line per read, and whose state the test sets. */
function loginNode() {
  let clock = 1_796_428_800_000;
  const node = { state: 'RUNNING', output: '', scripts: [] as string[], squeues: 0 };
  const exec = (script: string): Promise<HostExecResult> => {
    clock += 10;
    node.scripts.push(script);
    if (script === 'id -un') return Promise.resolve(ok('alice\n'));
    if (script === 'squeue --json') {
      node.squeues += 1;
      return Promise.resolve(ok(squeueJson(node.state)));
    }
    const chunk = /tail -c \+(\d+)/.exec(script);
    if (script.includes('@@follow')) {
      const from = chunk ? Number(chunk[1]) - 1 : 0;
      return Promise.resolve(ok(`@@follow - ${Buffer.byteLength(node.output)}\n${node.output.slice(from)}`));
    }
    return Promise.resolve({ code: 1, stdout: '', stderr: `unexpected script: ${script}` });
  };
  const client = new SlurmClient({ exec, host: 'login', now: () => clock });
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
    expect((await client.job('77', { maxAgeMs: 100 }))?.state).toBe('COMPLETED');
    expect(node.squeues).toBe(3);
    // A fresh caller (maxAgeMs 0, the default) is never handed an older answer.
    await client.job('77');
    expect(node.squeues).toBe(4);
  });

  it('does not share a failed answer: the next caller asks again', async () => {
    let fail = true;
    let calls = 0;
    const client = new SlurmClient({
      host: 'login',
      now: () => 0,
      exec: (script) => {
        if (script === 'id -un') return Promise.resolve(ok('alice\n'));
        calls += 1;
        return Promise.resolve(fail ? { code: 1, stdout: '', stderr: 'squeue: error: Unable to contact slurm controller (connect failure)\n' } : ok(squeueJson('RUNNING')));
      },
    });
    await expect(client.queue({ maxAgeMs: 60_000 })).rejects.toMatchObject({ code: 'ENGINE_UNREACHABLE' });
    fail = false;
    expect((await client.queue({ maxAgeMs: 60_000 })).ours.map((j) => j.id)).toEqual(['77']);
    expect(calls).toBe(2);
  });
});

describe('following a job output', () => {
  it('sends no squeue with its reads and asks the queue at most once per maxAge, then ends with every line', async () => {
    const { node, exec, client } = loginNode();
    const seen: EngineLogLine[] = [];
    const controller = new AbortController();
    let reads = 0;
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
    await followJobOutput(run, { client, jobId: '77', queueMaxAgeMs: 50 }, '~/.agentswarm/slurm/agentswarm-p1/out/77.out', { signal: controller.signal, onLines: (lines) => seen.push(...lines) }, 0);
    expect(seen.map((l) => l.text)).toEqual([...Array.from({ length: 39 }, (_, i) => `line ${i + 1}`), 'last words']);
    const chunks = node.scripts.filter((s) => s.includes('@@follow'));
    expect(chunks.length).toBeGreaterThanOrEqual(40);
    expect(chunks.filter((s) => s.includes('squeue'))).toEqual([]);
    // Each command moves the clock 10 ms: a 50 ms-old answer serves about five reads. One squeue a read before.
    expect(node.squeues).toBeLessThanOrEqual(Math.ceil(chunks.length / 4));
    expect(node.squeues).toBeGreaterThan(1);
  });

  it('rides on a caller that keeps the answer fresh (the engine event poll): no squeue of its own', async () => {
    const { node, exec, client } = loginNode();
    const controller = new AbortController();
    let reads = 0;
    let eventPolls = 0;
    const run = async (script: string) => {
      if (script.includes('@@follow')) {
        reads += 1;
        if (reads === 30) node.state = 'COMPLETED';
        // The event poll's own squeue between two reads (every third read here).
        if (reads % 3 === 0) {
          eventPolls += 1;
          await client.queue();
        }
      }
      return exec(script);
    };
    await followJobOutput(run, { client, jobId: '77', queueMaxAgeMs: 1_000 }, 'out/77.out', { signal: controller.signal, onLines: () => undefined }, 0);
    // The follower's first look (nothing shared yet) is its only squeue; it saw the end through the event poll's.
    expect(reads).toBe(31);
    expect(node.squeues - eventPolls).toBe(1);
  });
});
