// The job script: its #SBATCH lines and shell text for each way the server runs, the quoting of hostile
// values, and the script itself run by real bash (no Slurm needed: Slurm only adds #SBATCH parsing and the
// signals, which the test sends as Slurm would) with the fake swarm server as `ajet-swarm` (TEST DOUBLE).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../../../electron/shared/errors';
import { canListen } from '../../../../support/helpers';
import { SlurmJobIdentity, SlurmJobOptions, type SlurmJobOptionsInput } from '../../../../../electron/shared/schemas-slurm';
import {
  parseJobComment,
  parseTimeWarning,
  sbatchCommand,
  sbatchOptions,
  slurmJobComment,
  slurmJobScript,
  slurmOutputPath,
} from '../../../../../electron/services/engines/slurm/job-script';

const identity = SlurmJobIdentity.parse({ profileId: 'qwen-7b', appVersion: '0.1.0' });
const options = (input: Partial<SlurmJobOptionsInput> = {}) => SlurmJobOptions.parse({ run: { mode: 'native', activate: null }, ...input });

describe('#SBATCH lines', () => {
  it('name, comment, output folder, resources, the USR1 warning, in a fixed order', () => {
    const o = options({ partition: 'gpu', account: 'proj1', qos: 'high', timeLimit: '1-00:00:00', gpus: { flag: 'gres', count: 2, type: 'a100' }, cpusPerTask: 8, memoryGb: 64, warnBeforeLimitSeconds: 600 });
    expect(sbatchOptions(identity, o)).toEqual([
      '--job-name=agentswarm-qwen-7b',
      '--comment="agentswarm profile=qwen-7b app=0.1.0"',
      '--output=out/%j.out',
      '--nodes=1',
      '--ntasks=1',
      '--partition=gpu',
      '--account=proj1',
      '--qos=high',
      '--time=1-00:00:00',
      '--gres=gpu:a100:2',
      '--cpus-per-task=8',
      '--mem=64G',
      '--signal=B:USR1@600',
      '--no-requeue',
    ]);
  });

  it('--gpus with and without a type; nothing for what is left to the cluster', () => {
    expect(sbatchOptions(identity, options({ gpus: { flag: 'gpus', count: 1 } }))).toContain('--gpus=1');
    expect(sbatchOptions(identity, options({ gpus: { flag: 'gpus', count: 4, type: 'h100' } }))).toContain('--gpus=h100:4');
    const bare = sbatchOptions(identity, options());
    expect(bare.filter((l) => /^--(partition|account|qos|time|gres|gpus|cpus-per-task|mem)=/.test(l))).toEqual([]);
    expect(bare).toContain('--signal=B:USR1@300');
  });

  it('the comment round-trips; comments of others are not ours', () => {
    expect(parseJobComment(slurmJobComment(identity))).toEqual({ profileId: 'qwen-7b', appVersion: '0.1.0' });
    expect(parseJobComment('agentswarm profile=qwen-7b')).toBeNull();
    expect(parseJobComment('my run')).toBeNull();
    expect(parseJobComment(null)).toBeNull();
  });

  it('refuses a profile id or env name that is not one (callers that skip the schema)', () => {
    expect(() => slurmJobScript({ ...identity, profileId: 'x --wrap=id' }, options())).toThrow(AppError);
    expect(() => slurmJobScript({ ...identity, envNames: ['A;id'] }, options({ run: { mode: 'podman', image: 'ghcr.io/a/b:1' } }))).toThrow(/not a valid environment variable/);
  });
});

describe('script text', () => {
  it('native: a login bash, every #SBATCH line before the first command, the activate line quoted for eval', () => {
    const activate = `echo "it's" && export PATH=$HOME/x:$PATH; #SBATCH --wrap=id $(id) \`id\``;
    const script = slurmJobScript(identity, options({ run: { mode: 'native', activate } }));
    const lines = script.split('\n');
    expect(lines[0]).toBe('#!/bin/bash -l');
    const firstCommand = lines.findIndex((l) => l.trim() !== '' && !l.startsWith('#'));
    expect(lines.filter((l) => l.startsWith('#SBATCH')).every((l) => lines.indexOf(l) < firstCommand)).toBe(true);
    // The hostile text is one single-quoted word: a later #SBATCH or $(…) in it is never seen by sbatch or the shell.
    expect(script).toContain(`eval 'echo "it'"'"'s" && export PATH=$HOME/x:$PATH; #SBATCH --wrap=id $(id) \`id\`'`);
    expect(lines.filter((l) => l.startsWith('#SBATCH'))).toHaveLength(sbatchOptions(identity, options()).length);
    expect(script).toContain('ajet-swarm start --swarm-port "$PORT" &');
    expect(script).not.toContain('podman');
  });

  it('a working folder with spaces is quoted; ~/ stays in the home', () => {
    expect(slurmJobScript(identity, options({ workDir: '~/my runs' }))).toContain(`cd "$HOME"/'my runs' ||`);
    // The schema refuses quotes in paths; the script quotes whatever it is given all the same.
    expect(slurmJobScript(identity, { ...options(), workDir: "~/it's" })).toContain(`cd "$HOME"/'it'"'"'s' ||`);
    expect(slurmJobScript(identity, options({ workDir: '/scratch/a b' }))).toContain(`cd '/scratch/a b' ||`);
  });

  it('podman: detached run, the TERM trap that stops and removes it, podman wait; env passed by name only', () => {
    const script = slurmJobScript({ ...identity, envNames: ['SWANLAB_API_KEY'] }, options({ run: { mode: 'podman', image: 'ghcr.io/modelscope/agentjet:main' } }));
    expect(script).toContain(`IMAGE='ghcr.io/modelscope/agentjet:main'`);
    expect(script).toMatch(/podman run -d --name "\$CONTAINER" .*--env SWANLAB_API_KEY .*"\$IMAGE" ajet-swarm start --swarm-port "\$PORT"/);
    expect(script).toContain('stop_container() { podman stop -t "$STOP_SECONDS" "$CONTAINER" >/dev/null 2>&1; podman rm -f "$CONTAINER" >/dev/null 2>&1; }');
    const trap = `trap 'say "stop requested (SIGTERM)"; stop_container; exit 143' TERM`;
    expect(script).toContain(trap);
    // Before the run: a cancel while `podman run -d` works left the container behind (measured on the test bed).
    expect(script.indexOf(trap), 'the TERM trap is set before podman run').toBeLessThan(script.indexOf('podman run -d'));
    expect(script).toContain('podman wait "$CONTAINER" >/dev/null &');
    expect(script).not.toMatch(/exec podman|--rm/);
    // The app's labels on the container: `podman ps` (and the test bed's cleanup) tell the app's containers and their profile.
    expect(script).toContain(`--label 'io.agentswarm.managed=true' --label 'io.agentswarm.app-version=${identity.appVersion}' --label 'io.agentswarm.profile=${identity.profileId}'`);
  });

  it('the command the user is shown, and where the output lands', () => {
    expect(sbatchCommand('qwen-7b')).toBe('mkdir -p ~/.agentswarm/slurm/agentswarm-qwen-7b/out && cd ~/.agentswarm/slurm/agentswarm-qwen-7b && sbatch --parsable job.sh');
    expect(sbatchCommand('qwen-7b', { hold: true })).toContain('sbatch --parsable --hold job.sh');
    expect(slurmOutputPath('qwen-7b', '42')).toBe('~/.agentswarm/slurm/agentswarm-qwen-7b/out/42.out');
    expect(slurmJobScript(identity, options())).toContain(`#   ${sbatchCommand('qwen-7b')}`);
  });

  it('bash accepts every variant', () => {
    for (const run of [{ mode: 'native' as const, activate: `source ~/v/bin/activate && echo "it's"` }, { mode: 'podman' as const, image: 'ghcr.io/a/b:1' }]) {
      const check = spawnSync('bash', ['-n'], { input: slurmJobScript(identity, options({ run, timeLimit: '10', gpus: { flag: 'gres', count: 1 } })) });
      expect(check.status, check.stderr.toString()).toBe(0);
    }
  });
});

// Real bash and node processes that start servers: 5 s (vitest's default) ran out on a loaded two-core machine (the
// second test polls for up to 15 s by design), so these tests get 30 s.
describe('the script run by bash as Slurm would run it (fake swarm server as ajet-swarm: TEST DOUBLE)', { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'slurm-job-'));
  const bin = join(root, 'bin');
  const jobs: ChildProcess[] = [];
  // Ports away from 10086, which the machine's other tests use: each run its own range of the script's 100.
  const portBase = 20_000 + Math.floor(Math.random() * 400) * 100;
  let blocker: Server | null = null;

  beforeAll(() => {
    mkdirSync(bin);
    const cli = resolve(import.meta.dirname, '../../../../fixtures/fake-swarm/cli.mjs');
    // Like the real ajet-swarm, it binds its port a while after it starts (Python imports take seconds): the
    // window in which a second job on the node would find the same port free.
    writeFileSync(join(bin, 'ajet-swarm'), `#!/bin/sh\nsleep 1\nexec '${process.execPath}' '${cli}' "$@"\n`);
    chmodSync(join(bin, 'ajet-swarm'), 0o755);
  });
  afterEach(async () => {
    for (const job of jobs.splice(0)) if (job.exitCode === null && job.pid) process.kill(-job.pid, 'SIGKILL');
    await new Promise<void>((r) => (blocker ? blocker.close(() => r()) : r()));
    blocker = null;
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    // The jobs' port locks (in /tmp, as on a node): only those of this run's range.
    for (let p = portBase; p <= portBase + 100; p++) rmSync(`/tmp/agentswarm-port-${p}.lock`, { force: true });
  });

  /** Starts the script as slurmstepd would: its own process group, output to the job's file. */
  function runJob(profileId: string, jobId: string): { child: ChildProcess; dir: string; output: string } {
    const id = SlurmJobIdentity.parse({ profileId, appVersion: '0.1.0' });
    const script = slurmJobScript(id, SlurmJobOptions.parse({ run: { mode: 'native', activate: `export PATH=${bin}:$PATH` }, warnBeforeLimitSeconds: 50 }), { portBase });
    const dir = join(root, '.agentswarm/slurm', `agentswarm-${profileId}`);
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(join(dir, 'job.sh'), script);
    const output = join(dir, 'out', `${jobId}.out`);
    writeFileSync(join(dir, 'env'), `export SECRET_TOKEN='s3cr3t value'\n`, { mode: 0o600 });
    const fd = openSync(output, 'a');
    const child = spawn('bash', [join(dir, 'job.sh')], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { HOME: root, PATH: process.env.PATH, SLURM_JOB_ID: jobId, SLURMD_NODENAME: 'node-1' },
    });
    closeSync(fd);
    jobs.push(child);
    return { child, dir, output };
  }

  async function until<T>(what: string, probe: () => T | null | undefined, ms = 15_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = probe();
      if (value !== null && value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const endpointOf = (dir: string) => {
    const file = join(dir, 'endpoint');
    if (!existsSync(file)) return null;
    return Object.fromEntries(readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split('=') as [string, string]));
  };

  it('writes the endpoint, serves on that port, warns on USR1, stops on TERM and leaves nothing behind', async () => {
    const { child, dir, output } = runJob('bash-run', '501');
    const endpoint = await until('the endpoint file', () => endpointOf(dir));
    expect(endpoint).toMatchObject({ job: '501', node: 'node-1' });
    const port = Number(endpoint.port);
    expect(port).toBeGreaterThanOrEqual(portBase);
    const answer = await pollHttp(`http://127.0.0.1:${port}/get_engine_status`);
    expect(answer).toMatchObject({ engine_status: 'ENGINE.OFFLINE' });
    expect(existsSync(join(dir, 'env')), 'the env file is deleted once read').toBe(false);

    process.kill(child.pid!, 'SIGUSR1');
    const warning = await until('the warning file', () => (existsSync(join(dir, 'warning')) ? readFileSync(join(dir, 'warning'), 'utf8') : null));
    expect(warning).toMatch(/^\d+ 50\n$/);
    expect(readFileSync(output, 'utf8').split('\n').map(parseTimeWarning)).toContain(50);
    // USR1 must not end the server (bash's wait returns early on a trapped signal: the script waits again).
    expect(await pollHttp(`http://127.0.0.1:${port}/get_engine_status`)).toMatchObject({ engine_status: 'ENGINE.OFFLINE' });

    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    process.kill(child.pid!, 'SIGTERM');
    expect(await exited).toBe(143);
    expect(readFileSync(output, 'utf8')).toMatch(/stop requested \(SIGTERM\)[\s\S]*ajet-swarm exited with code 143/);
    expect(readFileSync(output, 'utf8'), 'the secret value is never printed').not.toContain('s3cr3t');
    expect(existsSync(join(dir, 'endpoint')), 'the endpoint is removed at exit').toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/get_engine_status`)).rejects.toThrow();
  });

  it('two jobs starting together on one node, and a port taken by someone else: three different ports', async () => {
    const taken = await freePortFrom(portBase);
    blocker = createServer().listen(taken, '0.0.0.0');
    const a = runJob('bash-a', '601');
    // The second job starts once the first has chosen its port, before its server listens on it.
    await until('the first endpoint', () => endpointOf(a.dir));
    const b = runJob('bash-b', '602');
    const [pa, pb] = await Promise.all([a, b].map(async ({ dir }) => Number((await until('an endpoint', () => endpointOf(dir))).port)));
    expect(new Set([pa, pb, taken]).size).toBe(3);
    await Promise.all([pa, pb].map((p) => pollHttp(`http://127.0.0.1:${p}/get_engine_status`)));
  });

  it('the line the app reads for the warning', () => {
    expect(parseTimeWarning('2026-12-04T19:18:21Z [agentswarm] time limit in 50 s: Slurm will stop the server then')).toBe(50);
    expect(parseTimeWarning('time limit in 50 s')).toBeNull();
  });
});

async function pollHttp(url: string, ms = 15_000): Promise<unknown> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const response = await fetch(url);
      return await response.json();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The lowest port from `base` nobody listens on (the test occupies it to push the jobs further up). */
async function freePortFrom(base: number): Promise<number> {
  for (let port = base; port < base + 100; port++) if (await canListen(port, '0.0.0.0')) return port;
  throw new Error(`no free port from ${base}`);
}
