// The test bed's Slurm (test/testbed/slurm.sh), used the way the app will use a cluster: over SSH to the login node (the
// test bed's sshd) as its user, with the plain key, running Slurm's own commands in non-interactive exec sessions.
// Needs `bash test/testbed/testbed.sh up`. The node is this machine: a port a job opens on 127.0.0.1 is the node's.
// The GPU cases need the node to themselves: run beside other Slurm suites under `flock /tmp/agentswarm-slurm.lock`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, poll } from '../support/helpers';
import { loadTestbedWithSlurm } from '../testbed/testbed';

const tb = loadTestbedWithSlurm();
const slurm = tb.slurm;
// Job names and the output folder of this run, so it touches only its own jobs and files.
const run = `tbslurm-${process.pid}-${Date.now().toString(36)}`;
const outDir = `testbed-slurm/${run}`;

let conn: Client;
const submitted: string[] = [];

interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(command: string): Promise<Exec> {
  return new Promise((resolve, reject) => {
    conn.exec(command, (err, stream) => {
      if (err) return reject(err);
      let stdout = '';
      let stderr = '';
      stream.on('data', (d: Buffer) => (stdout += d.toString()));
      stream.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      stream.on('close', (code: number | null) => resolve({ code, stdout, stderr }));
    });
  });
}

/** Single-quoted for the login shell. */
function q(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** `sbatch --parsable` with the script on stdin (as the app will send it): resolves with the job id. */
async function submit(name: string, script: string, options = ''): Promise<string> {
  const r = await exec(`cd && sbatch --parsable --job-name=${run}-${name} --output=${outDir}/%x-%j.out ${options} <<'EOS'\n${script}\nEOS`);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const id = r.stdout.trim();
  expect(id).toMatch(/^\d+$/);
  submitted.push(id);
  return id;
}

interface SqueueJob {
  job_id: number;
  name: string;
  user_name: string;
  job_state: string;
  state_reason: string;
  exit_code: number;
  nodes: string;
}

/** The job in `squeue --json`, which on 22.05 ignores -j and lists every job: filtered here, as the app must. */
async function job(id: string): Promise<SqueueJob | undefined> {
  const r = await exec('squeue --json');
  expect(r.code).toBe(0);
  const data = JSON.parse(r.stdout) as { jobs: SqueueJob[] };
  return data.jobs.find((j) => String(j.job_id) === id);
}

function jobIn(id: string, state: string, reason?: string, timeoutMs = 30_000): Promise<SqueueJob> {
  return poll(`job ${id} ${state}${reason ? ` (${reason})` : ''}`, timeoutMs, async () => {
    const j = await job(id);
    return j?.job_state === state && (reason === undefined || j.state_reason === reason) ? j : undefined;
  }, 100);
}

async function output(id: string, name: string): Promise<string> {
  const r = await exec(`cat ${outDir}/${run}-${name}-${id}.out`);
  expect(r.code).toBe(0);
  return r.stdout;
}

/** One HTTP/1.0 GET through the SSH connection's direct-tcpip channel to 127.0.0.1:<port> of the login node. */
function getThroughSsh(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    conn.forwardOut('127.0.0.1', 0, '127.0.0.1', port, (err, stream) => {
      if (err) return reject(err);
      let raw = '';
      stream.on('data', (d: Buffer) => (raw += d.toString()));
      stream.on('close', () => {
        const [head = '', body = ''] = raw.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), body });
      });
      stream.end(`GET ${path} HTTP/1.0\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    });
  });
}

function fingerprint(key: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
}

beforeAll(async () => {
  conn = await new Promise<Client>((resolve, reject) => {
    const c = new Client();
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({
      host: tb.ssh.host,
      port: tb.ssh.port,
      username: slurm.loginUser,
      privateKey: readFileSync(tb.ssh.plainKeyPath),
      hostVerifier: (key: Buffer) => fingerprint(key) === tb.ssh.hostKeyFingerprint,
      readyTimeout: 20_000,
    });
  });
  expect((await exec(`mkdir -p ${outDir}`)).code).toBe(0);
  // Jobs of an earlier suite may still hold the GPUs for a moment (KillWait): start from an idle node.
  // The controller's own word (scontrol), not sinfo's: after a job cancelled while its batch shell
  // handled USR1, sinfo kept saying "mix" until the job record was purged (MinJobAge, 60 s) although
  // the node was IDLE with nothing allocated.
  await poll('the Slurm node to be idle (jobs of another suite? run under flock /tmp/agentswarm-slurm.lock)', 60_000, async () => {
    const r = await exec(`scontrol -o show node ${slurm.node}`);
    return /\bState=IDLE\b/.test(r.stdout) && /\bCPUAlloc=0\b/.test(r.stdout) ? true : undefined;
  }, 200);
});

afterAll(async () => {
  if (!conn) return;
  if (submitted.length > 0) await exec(`scancel ${submitted.join(' ')}`);
  await exec(`rm -rf ${q(outDir)}; rmdir testbed-slurm 2>/dev/null`);
  conn.end();
});

describe('test bed: Slurm over SSH as the login user', () => {
  it('finds the configuration without SLURM_CONF and shows the node idle with two fake GPUs', async () => {
    const env = await exec('echo "SLURM_CONF=${SLURM_CONF-unset}"; command -v sbatch; readlink /etc/slurm/slurm.conf');
    expect(env.stdout.split('\n').slice(0, 2)).toEqual(['SLURM_CONF=unset', `${slurm.bin}/sbatch`]);
    expect(env.stdout.split('\n')[2]).toMatch(/\/slurm\/slurm\.conf$/);
    expect(slurm.conf).toBe('/etc/slurm/slurm.conf');
    const info = await exec('sinfo -h -N -o "%N|%P|%t|%G"');
    expect(info.stderr).toBe('');
    // The second node (its partition not the default) may be running another file's jobs: its state is any.
    const second = slurm.second!;
    expect(info.stdout.trim().split('\n')).toEqual([
      `${slurm.node}|${slurm.partition}*|idle|gpu:fake:${slurm.gpusPerNode}`,
      expect.stringMatching(new RegExp(`^${second.node}\\|${second.partition}\\|(idle|mix|alloc|comp)\\|gpu:fake:${slurm.gpusPerNode}$`)),
    ]);
    const version = await exec('sinfo --version');
    expect(version.stdout.trim()).toBe(`slurm-wlm ${slurm.version}`);
    const node = await exec(`scontrol -o show node ${slurm.node}`);
    expect(node.stdout).toContain('NodeAddr=127.0.0.1 ');
  });

  it('runs a job PENDING -> RUNNING -> COMPLETED as the login user, with its output file in the home folder', async () => {
    // Held at submission, so PENDING is seen for sure (unheld, the scheduler starts it within ~1 s).
    const id = await submit('life', '#!/bin/bash\necho "user=$(id -un) node=$(hostname -s) job=$SLURM_JOB_ID"\nsleep 2\necho done', '--hold');
    const pending = await jobIn(id, 'PENDING', 'JobHeldUser');
    expect(pending.user_name).toBe(slurm.loginUser);
    expect(pending.name).toBe(`${run}-life`);
    expect((await exec(`scontrol release ${id}`)).code).toBe(0);
    const running = await jobIn(id, 'RUNNING');
    expect(running.nodes).toBe(slurm.node);
    const done = await jobIn(id, 'COMPLETED');
    expect(done.exit_code).toBe(0);
    expect(await output(id, 'life')).toBe(`user=${slurm.loginUser} node=${slurm.node} job=${id}\ndone\n`);
  });

  it('gives each --gres=gpu:1 job its own GPU and queues a third one (Resources)', async () => {
    const gpuJob = '#!/bin/bash\necho "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"\nsleep 60';
    const first = await submit('gpu', gpuJob, '--gres=gpu:1');
    const second = await submit('gpu', gpuJob, '--gres=gpu:1');
    await jobIn(first, 'RUNNING');
    await jobIn(second, 'RUNNING');
    const third = await submit('gpu', gpuJob, '--gres=gpu:1');
    await jobIn(third, 'PENDING', 'Resources');
    const seen = await poll('both GPU jobs to print their device', 10_000, async () => {
      const lines = [await output(first, 'gpu'), await output(second, 'gpu')];
      return lines.every((l) => l.endsWith('\n')) ? lines : undefined;
    });
    expect(seen.sort()).toEqual(['CUDA_VISIBLE_DEVICES=0\n', 'CUDA_VISIBLE_DEVICES=1\n']);
    // The first to end frees its GPU: the queued job gets it.
    expect((await exec(`scancel ${first}`)).code).toBe(0);
    await jobIn(third, 'RUNNING');
    expect((await exec(`scancel ${second} ${third}`)).code).toBe(0);
    await jobIn(third, 'CANCELLED');
  });

  it('refuses more GPUs than the node has at submission', async () => {
    const r = await exec(`cd && sbatch --parsable --job-name=${run}-toomany --output=${outDir}/%x-%j.out --gres=gpu:${slurm.gpusPerNode + 1} --wrap true`);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('sbatch: error: Batch job submission failed: Requested node configuration is not available');
  });

  it('cancels a running job: CANCELLED, with the notice in its output file', async () => {
    const id = await submit('cancel', '#!/bin/bash\necho started\nsleep 300');
    await jobIn(id, 'RUNNING');
    // RUNNING comes before the batch script's first line has run (CI 2026-12-05: the file held only the notice): the
    // cancel comes once the script has printed.
    await poll(`job ${id} printed "started"`, 30_000, async () => ((await exec(`cat ${outDir}/${run}-cancel-${id}.out`)).stdout.startsWith('started\n') ? true : undefined), 100);
    const r = await exec(`scancel ${id}`);
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    await jobIn(id, 'CANCELLED');
    expect(await output(id, 'cancel')).toMatch(new RegExp(`^started\\n.*\\*\\*\\* JOB ${id} ON ${slurm.node} CANCELLED AT `, 's'));
  });

  it('runs the native fake swarm server in a job, reached through forwardOut to the node; scancel stops it', async () => {
    // The node is this machine: a port free here is free on the node.
    const port = await freePort();
    const script = `#!/bin/bash\n${tb.native.sshUserActivate}\nexec ajet-swarm start --swarm-port ${port}`;
    const id = await submit('swarm', script);
    await jobIn(id, 'RUNNING');
    const status = await poll('the fake swarm server in the job', 30_000, () => getThroughSsh(port, '/get_engine_status'), 200);
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({ engine_status: 'ENGINE.OFFLINE' });
    expect(await output(id, 'swarm')).toContain('Interchange server is running');
    expect((await exec(`scancel ${id}`)).code).toBe(0);
    await jobIn(id, 'CANCELLED');
    const closed = await getThroughSsh(port, '/get_engine_status').then(
      () => 'still answering',
      (e: Error) => e.message,
    );
    expect(closed).toBe('(SSH) Channel open failure: Connection refused');
  });
});
