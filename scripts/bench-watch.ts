/**
 * `npm run bench -- watch [--seconds N] [--root DIR]`: what watching swarm servers costs with no window open.
 * Five fake swarm servers (TEST DOUBLE: test/fixtures/fake-swarm, in this process) count every HTTP request
 * and TCP connection they receive; the backend (scripts/bench-watch-child.ts: the swarm and training domains
 * of the checkout at --root, default this one) watches all five from a process of its own, with no page
 * connected. After a warm-up, over N seconds (default 120):
 *   status_requests_per_server_min  all requests one watched server receives per minute (every route)
 *   backend_idle_cpu_pct            the backend process's own CPU time (/proc/<pid>/stat utime+stime) in % of a core
 * Then the Slurm part on the test bed's Slurm (scripts/bench-watch-slurm.ts, `--slurm-seconds`, default 60):
 *   squeue_per_min_1job, squeue_per_min_5jobs_2windows  slurmctld requests a minute (sdiag-costed commands)
 * The last line is machine-readable:
 * `BENCH watch squeue_per_min_1job=… squeue_per_min_5jobs_2windows=… status_requests_per_server_min=… backend_idle_cpu_pct=…`
 * Before/after: run it from this checkout with `--root` at an older commit's worktree (the HTTP part).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeSwarmServer, type FakeSwarmHandle } from '../test/fixtures/fake-swarm/server.mjs';
import { measureSlurmWatch } from './bench-watch-slurm';

const SERVERS = 5;
/** Linux reports CPU times in clock ticks of 1/100 s (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_SECOND = 100;
const WARM_UP_MS = 5_000;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

interface Counter {
  requests: number;
  byPath: Map<string, number>;
  sockets: Set<unknown>;
}

function newCounter(): Counter {
  return { requests: 0, byPath: new Map(), sockets: new Set() };
}

/** utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat, after the command name). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

function startBackend(root: string, dataDir: string, urls: string[]): Promise<{ child: ChildProcess; pid: number }> {
  return new Promise((ok, fail) => {
    const tsx = resolve(import.meta.dirname, '../node_modules/.bin/tsx');
    const child = spawn(tsx, [resolve(import.meta.dirname, 'bench-watch-child.ts'), root, dataDir, ...urls], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /READY (\d+)/.exec(out);
      if (ready) ok({ child, pid: Number(ready[1]) });
    });
    child.once('exit', (code) => fail(new Error(`the backend exited with ${code} before it was ready`)));
  });
}

async function main(): Promise<{ perServer: number; cpuPct: number }> {
  const seconds = Number(option('seconds', '120'));
  const root = resolve(option('root', resolve(import.meta.dirname, '..')));
  let counting = false;
  const counters = Array.from({ length: SERVERS }, newCounter);
  const servers: FakeSwarmHandle[] = [];
  for (const counter of counters) {
    servers.push(
      await startFakeSwarmServer({
        port: 0,
        quiet: true,
        onRequest: (_method, path, socket) => {
          if (!counting) return;
          counter.requests += 1;
          counter.byPath.set(path, (counter.byPath.get(path) ?? 0) + 1);
          counter.sockets.add(socket);
        },
      }),
    );
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-bench-watch-'));
  const { child, pid } = await startBackend(root, dataDir, servers.map((s) => s.url));
  try {
    console.log(`backend of ${root} (pid ${pid}) watches ${SERVERS} fake swarm servers, no window; warm-up ${WARM_UP_MS / 1000} s, then ${seconds} s`);
    await new Promise((r) => setTimeout(r, WARM_UP_MS));
    counting = true;
    const cpuBefore = await cpuSeconds(pid);
    const started = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const cpuAfter = await cpuSeconds(pid);
    const elapsedS = (performance.now() - started) / 1000;
    counting = false;
    const minutes = elapsedS / 60;
    const perServer = counters.reduce((sum, c) => sum + c.requests, 0) / SERVERS / minutes;
    const connections = counters.reduce((sum, c) => sum + c.sockets.size, 0) / SERVERS / minutes;
    const paths = new Map<string, number>();
    for (const c of counters) for (const [path, n] of c.byPath) paths.set(path, (paths.get(path) ?? 0) + n);
    console.log('per server and minute, by route:');
    for (const [path, n] of [...paths].sort()) console.log(`  ${path.padEnd(48)} ${(n / SERVERS / minutes).toFixed(1)}`);
    console.log(`  TCP connections                                  ${connections.toFixed(1)}`);
    const cpuPct = ((cpuAfter - cpuBefore) / elapsedS) * 100;
    console.log(`backend CPU: ${(cpuAfter - cpuBefore).toFixed(2)} s over ${elapsedS.toFixed(1)} s`);
    return { perServer, cpuPct };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    for (const server of servers) await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The HTTP part, then the Slurm part on the test bed (`--slurm-seconds`, default 60): one line with all four numbers. */
async function all(): Promise<void> {
  const { perServer, cpuPct } = await main();
  const slurm = await measureSlurmWatch({ seconds: Number(option('slurm-seconds', '60')) });
  console.log(
    `BENCH watch squeue_per_min_1job=${slurm.squeue_per_min_1job} squeue_per_min_5jobs_2windows=${slurm.squeue_per_min_5jobs_2windows} status_requests_per_server_min=${perServer.toFixed(1)} backend_idle_cpu_pct=${cpuPct.toFixed(2)}`,
  );
}

all().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
