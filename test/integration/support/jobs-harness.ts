import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventSink } from '../../../electron/services/events';
import { JobRunner, type JobRunnerOptions } from '../../../electron/services/jobs/job-runner';
import { procStat } from '../../../electron/services/jobs/process-tree';
import type { EventChannel, EventPayload } from '../../../electron/shared/contract';
import { MemoryVault } from '../../support/memory-vault';
import { JobEvents, type EventSource } from './jobs-fixtures';

/** Keeps what the runner emits, for JobEvents (the app's EventHub is for startTestApp only). */
export class RecordingSink implements EventSink, EventSource {
  private readonly listeners = new Set<(channel: EventChannel, payload: unknown) => void>();
  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) listener(channel, payload);
  }
  subscribe(listener: (channel: EventChannel, payload: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export interface RunnerHarness {
  runner: JobRunner;
  events: JobEvents;
  vault: MemoryVault;
  dir: string;
  /** Every app-log entry the runner wrote (message + meta as JSON). */
  logged: string[];
  /** The swarm servers the runner sees as watched: `engineId:containerId` → local URL. */
  swarms: Map<string, string>;
  close(): Promise<void>;
}

/**
 * The JobRunner on its own (what `registerJobs` builds), over a temp folder, with short tuning and
 * the swarm URLs a test sets: the monitor-less seam `swarmUrl` of JobRunnerOptions. Processes are real.
 */
export async function startRunner(options: Partial<Omit<JobRunnerOptions, 'dir' | 'events' | 'vault' | 'logger' | 'swarmUrl'>> = {}): Promise<RunnerHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-runner-'));
  const sink = new RecordingSink();
  const events = new JobEvents(sink);
  const vault = new MemoryVault();
  const logged: string[] = [];
  const swarms = new Map<string, string>();
  const runner = new JobRunner({
    dir: join(dir, 'jobs'),
    events: sink,
    vault,
    logger: {
      warn: (message, meta) => logged.push(`${message} ${JSON.stringify(meta ?? {})}`),
      info: (message, meta) => logged.push(`${message} ${JSON.stringify(meta ?? {})}`),
    },
    swarmUrl: (engineId, containerId) => swarms.get(`${engineId}:${containerId}`) ?? null,
    killTimeouts: { intMs: 400, termMs: 400 },
    disposeKillTimeouts: { intMs: 300, termMs: 300 },
    // A healthy server's answer must not lose to the machine's load (0.5 s ran out under CI's load average of 10);
    // the preflight spec shortens it where it waits for a server that never answers.
    healthTimeoutMs: 5000,
    logBatchMs: 50,
    ...options,
  });
  await runner.load();
  return {
    runner,
    events,
    vault,
    dir,
    logged,
    swarms,
    async close() {
      events.unsubscribe();
      await runner.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Whether `pid` runs (a zombie does not: it holds nothing and waits only to be reaped). */
export function isRunning(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
}

/** A `/health` that answers 200 like a swarm server's, on 127.0.0.1. */
export async function startHealthServer(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: HttpServer = createHttpServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url === '/health') response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    else response.writeHead(404).end();
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, hits, close: () => closeServer(server) };
}

/** A port that accepts connections and never answers (a hung server, a tunnel to nowhere). */
export async function startSilentServer(): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await closeServer(server);
    },
  };
}

function listen(server: Server | HttpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

function closeServer(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
