/**
 * `npm run bench -- logs`: stored, followed logs against the Docker CLI, in one run on the test bed's
 * dockerd. The backend runs in a process of its own (scripts/bench-logs-child.ts) behind the browser
 * host; this process is its browser-host client (HTTP for `logs:read`, WebSocket for events).
 * 1. A container prints 200,000 lines as fast as it can: the time until the client holds every line
 *    in order, against `docker logs --follow` of the same container to /dev/null, both from the
 *    same trigger.
 * 2. `docker kill` of a running (fake) swarm server: the delay until `swarm:status` says so on the socket.
 * 3. 1,000,000 lines pass (followed, stored, paged by the client): the backend's RSS growth.
 * The last line is machine-readable:
 * `BENCH logs delivery_vs_docker_cli=… lines_lost=… rss_growth_mb_per_1m_lines=… crash_report_ms=…`
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import WebSocket from 'ws';
import { LABEL_MANAGED, LABEL_NETWORK, LABEL_PORT, LABEL_ROLE } from '../electron/services/engines/container-engine';
import type { LogAppended, LogLine, LogWindow } from '../electron/shared/schemas-profiles';
import type { SwarmStatus } from '../electron/shared/schemas';
import { freePort } from '../test/support/helpers';
import { TEST_CONTAINER_LABELS } from '../test/support/test-app';
import { loadTestbed } from '../test/testbed/testbed';

const DELIVERY_LINES = Number(process.env.BENCH_LOGS_LINES ?? 200_000);
const MEMORY_LINES = Number(process.env.BENCH_LOGS_MEMORY_LINES ?? 1_000_000);
const tb = loadTestbed();
const docker = new Docker({ socketPath: tb.dockerSocket });
const created: string[] = [];
let child: ChildProcess | null = null;
/** The backend's own pid (tsx runs it under the process we spawned). */
let backendPid: number | null = null;

/** Waits for /tmp/go, prints `line 0`… as fast as the pipe takes them, then exits. */
const PRINTER = `
const fs = require('fs');
const N = Number(process.env.N);
async function run() {
  let i = 0;
  while (i < N) {
    let s = '';
    const end = Math.min(N, i + 20000);
    for (; i < end; i++) s += 'line ' + i + '\\n';
    if (!process.stdout.write(s)) await new Promise((r) => process.stdout.once('drain', r));
  }
  process.stdout.write('', () => process.exit(0));
}
const go = setInterval(() => { if (fs.existsSync('/tmp/go')) { clearInterval(go); run(); } }, 5);
`;

async function printer(lines: number): Promise<string> {
  const container = await docker.createContainer({
    Image: tb.fakeSwarmImage,
    Entrypoint: ['node'],
    Cmd: ['-e', PRINTER],
    Env: [`N=${lines}`],
    Labels: { ...TEST_CONTAINER_LABELS, [LABEL_MANAGED]: 'true', [LABEL_ROLE]: 'swarm-server', [LABEL_PORT]: String(await freePort()), [LABEL_NETWORK]: 'host' },
    HostConfig: { NetworkMode: 'host', Init: true },
  });
  created.push(container.id);
  await container.start();
  return container.id;
}

async function trigger(id: string): Promise<void> {
  const exec = await docker.getContainer(id).exec({ Cmd: ['node', '-e', "require('fs').writeFileSync('/tmp/go', '')"] });
  const stream = await exec.start({});
  await new Promise<void>((done) => {
    stream.on('end', done);
    stream.on('close', done);
    stream.resume();
  });
}

function startBackend(dataDir: string): Promise<{ port: number; token: string; pid: number }> {
  return new Promise((ok, fail) => {
    const tsx = resolve(import.meta.dirname, '../node_modules/.bin/tsx');
    child = spawn(tsx, [resolve(import.meta.dirname, 'bench-logs-child.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /READY (\d+) (\w+) (\d+)/.exec(out);
      if (ready) ok({ port: Number(ready[1]), token: ready[2]!, pid: Number(ready[3]) });
    });
    child.once('exit', (code) => fail(new Error(`the backend exited with ${code} before it was ready`)));
  });
}

/** The backend process's resident memory in MB (Linux /proc). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

class HostClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });
  private readonly listeners = new Set<(channel: string, payload: unknown) => void>();
  private socket: WebSocket | null = null;

  constructor(private readonly port: number, private readonly token: string) {}

  async connect(): Promise<void> {
    const socket = new WebSocket(`ws://127.0.0.1:${this.port}/api/events?token=${this.token}`);
    await new Promise<void>((ok, fail) => {
      socket.once('open', () => ok());
      socket.once('error', fail);
    });
    socket.on('message', (data: Buffer) => {
      const { channel, payload } = JSON.parse(data.toString()) as { channel: string; payload: unknown };
      for (const listener of this.listeners) listener(channel, payload);
    });
    this.socket = socket;
  }

  on(listener: (channel: string, payload: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  invoke<T>(channel: string, body: unknown): Promise<T> {
    return new Promise((ok, fail) => {
      const req = request(
        { host: '127.0.0.1', port: this.port, method: 'POST', path: `/api/invoke/${channel}`, agent: this.agent, headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const result = JSON.parse(Buffer.concat(chunks).toString()) as { ok: boolean; value?: T; error?: { code: string; message: string } };
            if (result.ok) ok(result.value as T);
            else fail(new Error(`${channel}: ${result.error?.code} ${result.error?.message}`));
          });
        },
      );
      req.on('error', fail);
      req.end(JSON.stringify(body));
    });
  }

  close(): void {
    this.socket?.close();
    this.agent.destroy();
  }
}

/**
 * Follows one container's stored log as a viewer at the bottom would: the newest lines from
 * `logs:appended`, a `logs:read` window whenever an event skipped some. Resolves when `expected`
 * lines are held (or at the timeout), with how many are missing or out of place.
 */
function collect(client: HostClient, containerId: string, expected: number, timeoutMs: number): Promise<{ ms: number; doneAt: number; lost: number }> {
  const started = Date.now();
  let have = 0;
  let correct = 0;
  let known = 0;
  let pumping = false;
  const take = (lines: LogLine[]) => {
    for (const line of lines) {
      if (line.n !== have) continue;
      if (line.text === `line ${have}`) correct += 1;
      have += 1;
    }
  };
  return new Promise((done) => {
    const finish = () => {
      off();
      clearInterval(check);
      clearTimeout(timer);
      done({ ms: Date.now() - started, doneAt: Date.now(), lost: expected - correct });
    };
    const pump = async () => {
      if (pumping) return;
      pumping = true;
      try {
        while (have < known) {
          const window = await client.invoke<LogWindow>('logs:read', { engineId: 'local', containerId, from: have, count: 5000, filter: { text: '', regex: false, stream: 'all' } });
          if (window.lines.length === 0) break;
          take(window.lines);
        }
      } finally {
        pumping = false;
      }
      if (have >= expected) finish();
    };
    const off = client.on((channel, payload) => {
      if (channel !== 'logs:appended') return;
      const event = payload as LogAppended;
      if (event.containerId !== containerId) return;
      known = Math.max(known, event.total);
      if (!pumping && event.lines.length > 0 && event.lines[0]!.n <= have) take(event.lines);
      if (have >= expected) finish();
      else void pump();
    });
    // A safety net, not the path: an event the socket dropped must not stall the count.
    const check = setInterval(() => {
      void client.invoke<LogWindow>('logs:read', { engineId: 'local', containerId, from: -1, count: 1, filter: { text: '', regex: false, stream: 'all' } }).then((w) => {
        known = Math.max(known, w.total);
        void pump();
      }, () => undefined);
    }, 500);
    const timer = setTimeout(finish, timeoutMs);
  });
}

/** Resolves with the time `docker logs --follow` ended (the container exited and every line was read). */
function dockerCliFollow(id: string): Promise<number> {
  return new Promise((ok, fail) => {
    const cli = spawn('docker', ['logs', '--follow', '--timestamps', id], { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, DOCKER_HOST: `unix://${tb.dockerSocket}` } });
    const guard = setTimeout(() => cli.kill(), 180_000);
    cli.once('exit', (code) => {
      clearTimeout(guard);
      if (code === 0) ok(Date.now());
      else fail(new Error(`docker logs exited with ${code ?? 'a signal'} (killed after 180 s without the container ending?)`));
    });
  });
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agentswarm-bench-logs-'));
  try {
    // Created before the backend starts, so it finds them by their labels and follows them (idle until triggered).
    const delivery = await printer(DELIVERY_LINES);
    const memory = await printer(MEMORY_LINES);
    const { port, token, pid } = await startBackend(dataDir);
    backendPid = pid;
    const client = new HostClient(port, token);
    await client.connect();
    await new Promise((r) => setTimeout(r, 1000));

    // 1. Delivery against `docker logs --follow`, from the same trigger.
    const appArrived = collect(client, delivery, DELIVERY_LINES, 120_000);
    const cliDone = dockerCliFollow(delivery);
    await new Promise((r) => setTimeout(r, 200));
    const triggeredAt = Date.now();
    await trigger(delivery);
    const app = await appArrived;
    const cliMs = (await cliDone) - triggeredAt;
    const appMs = app.doneAt - triggeredAt;
    console.log(`delivery: ${DELIVERY_LINES} lines; app (stored, paged over the browser host) ${appMs} ms, docker logs --follow ${cliMs} ms; lost ${app.lost}`);

    // 2. Crash report from Docker's event stream.
    const swarmPort = await freePort();
    const online = new Promise<string>((ok) => {
      const off = client.on((channel, payload) => {
        const s = payload as SwarmStatus;
        if (channel === 'swarm:status' && s.connection === 'online') {
          off();
          ok(s.containerId);
        }
      });
    });
    const started = await client.invoke<{ id: string }>('swarm:start', { engineId: 'local', image: tb.fakeSwarmImage, port: swarmPort, networkMode: 'host', gpus: false, shmSizeGb: 1 });
    created.push(started.id);
    await online;
    const crashed = new Promise<number>((ok) => {
      const off = client.on((channel, payload) => {
        const s = payload as SwarmStatus;
        if (channel === 'swarm:status' && s.containerId === started.id && s.connection === 'stopped' && s.exit) {
          off();
          ok(Date.now());
        }
      });
    });
    const killedAt = Date.now();
    await docker.getContainer(started.id).kill();
    const crashMs = (await crashed) - killedAt;
    console.log(`crash: docker kill → swarm:status with the exit code on the socket in ${crashMs} ms`);

    // 3. RSS growth of the backend while a million lines pass.
    const before = await rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => void rssMb(pid).then((mb) => (peak = Math.max(peak, mb)), () => undefined), 100);
    const memoryArrived = collect(client, memory, MEMORY_LINES, 600_000);
    await trigger(memory);
    const passed = await memoryArrived;
    clearInterval(sampler);
    peak = Math.max(peak, await rssMb(pid));
    const growth = ((peak - before) * 1_000_000) / MEMORY_LINES;
    console.log(`memory: ${MEMORY_LINES} lines in ${passed.ms} ms, lost ${passed.lost}; backend RSS ${before.toFixed(0)} MB → peak ${peak.toFixed(0)} MB`);

    client.close();
    const ratio = appMs / cliMs;
    console.log(`BENCH logs delivery_vs_docker_cli=${ratio.toFixed(2)} lines_lost=${app.lost + passed.lost} rss_growth_mb_per_1m_lines=${growth.toFixed(0)} crash_report_ms=${crashMs}`);
  } finally {
    child?.kill('SIGTERM');
    if (backendPid) {
      try {
        process.kill(backendPid, 'SIGTERM');
      } catch {
        // Already gone with its parent.
      }
    }
    await Promise.allSettled(created.map((id) => docker.getContainer(id).remove({ force: true })));
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  child?.kill('SIGTERM');
  process.exit(1);
});
