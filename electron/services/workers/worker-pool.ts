import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { AppError, isAppError } from '../../shared/errors';
import type { PoolSplitData, PoolStart, PoolViewData, WorkerPlacementData, WorkerViewData } from '../../shared/schemas-workers';
import type { EventSink } from '../events';
import { engineRestartCalls } from '../jobs/job-preflight';
import type { Notifier } from '../notifier';
import type { Logger } from '../util/logger';
import { redact } from '../util/redact';
import { splitParallelism, workerShareEnv } from './parallelism-split';
import { KEPT_ENDED_POOLS, PoolStore, type PoolRecordData, type WorkerRecordData } from './pool-store';
import type { WorkerBackend, WorkerEnd, WorkerStartSpec } from './worker-backend';
import { WorkerProgress } from './worker-progress';

export interface WorkerPoolOptions {
  /** `<data>/workers`. */
  dir: string;
  events: EventSink;
  notifier: Notifier;
  logger: Logger;
  backends: { local: WorkerBackend; ssh: WorkerBackend };
  /** The app's URL of a watched swarm server (the tunnel's for a remote one); null when not running. */
  swarmUrl: (engineId: string, containerId: string) => string | null;
  /** How often running workers are polled (default 1000 ms). */
  pollMs?: number;
  /** How often workers print their progress line (default 5 s). */
  progressEverySeconds?: number;
}

/** What the pool keeps of a worker only while the app runs. */
interface LiveWorker {
  progress: WorkerProgress;
  lines: string[];
  total: number;
  polling: boolean;
  stopping: boolean;
}

/** Lines of a worker's log kept in memory for `workers:log` (local workers' full log is their job's). */
const KEPT_LINES = 2000;

/**
 * Rollout worker pools (issue 34): one training run's `agent_roll.py` on N workers. Each worker is
 * started by its backend (this computer, an SSH host), polled for new log lines and for its end,
 * and shown with its state, client uuid, episodes and rate. A worker that dies is marked and the
 * user notified once; the others go on (killing a client does not hurt training, reference §6.2).
 * Pools are saved with every worker's pid and run folder, so an app restart finds them again.
 */
export class WorkerPool {
  private pools: PoolRecordData[] = [];
  private readonly live = new Map<string, LiveWorker>();
  private readonly store: PoolStore;
  private timer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.store = new PoolStore(options.dir);
  }

  /** Loads saved pools: SSH workers are polled again by pid; local workers the app's close stopped start again. */
  async load(): Promise<void> {
    const { pools, note } = await this.store.load();
    if (note) this.options.logger.warn(note);
    this.pools = pools;
    const resumes: Promise<void>[] = [];
    for (const pool of this.pools) {
      for (const worker of pool.workers) {
        if (worker.resumeOnStart && worker.placement.kind === 'local') {
          worker.resumeOnStart = false;
          resumes.push(this.startWorker(pool, worker, 'started again: the app was closed while it ran'));
        }
      }
    }
    await Promise.all(resumes);
    this.timer = setInterval(() => void this.pollAll(), this.options.pollMs ?? 1000);
    this.save();
  }

  split(batchSize: number, grpoN: number, workers: number): PoolSplitData {
    return splitParallelism({ batchSize, grpoN, workers });
  }

  list(): PoolViewData[] {
    const views = this.pools.map((p) => this.view(p));
    return [...views.filter((v) => v.state === 'running'), ...views.filter((v) => v.state !== 'running')].reverse();
  }

  get(poolId: string): PoolViewData {
    return this.view(this.pool(poolId));
  }

  async start(request: PoolStart): Promise<PoolViewData> {
    this.requireOpen();
    const split = splitParallelism({ batchSize: request.batchSize, grpoN: request.grpoN, workers: request.placements.length });
    await refuseEngineRestart(request);
    const pool: PoolRecordData = {
      poolId: newPoolId(),
      label: request.label,
      createdAt: new Date().toISOString(),
      request,
      split,
      swarmUrl: this.options.swarmUrl(request.swarm.engineId, request.swarm.containerId),
      workers: request.placements.map((placement, index) => this.newWorker(placement, split, index)),
    };
    this.pools.push(pool);
    this.prune();
    this.changed(pool);
    await Promise.all(pool.workers.map((w) => this.startWorker(pool, w, null)));
    return this.view(pool);
  }

  /** More workers: the split for the new count; the new ones take its shares, running ones keep theirs. */
  async add(poolId: string, placements: WorkerPlacementData[]): Promise<PoolViewData> {
    this.requireOpen();
    const pool = this.pool(poolId);
    const count = pool.workers.length + placements.length;
    const split = splitParallelism({ batchSize: pool.split.batchSize, grpoN: pool.split.grpoN, workers: count });
    const first = pool.workers.length;
    for (const worker of pool.workers) {
      if (isActive(worker.state) && worker.batchShare !== split.shares[worker.index]!.batchShare) {
        worker.note = `keeps its share of ${worker.batchShare} tasks from the split for ${pool.split.workers} workers until it is restarted (the split for ${count} gives it ${split.shares[worker.index]!.batchShare})`;
      }
    }
    pool.split = split;
    const added = placements.map((placement, i) => this.newWorker(placement, split, first + i));
    pool.workers.push(...added);
    this.changed(pool);
    await Promise.all(added.map((w) => this.startWorker(pool, w, null)));
    return this.view(pool);
  }

  async stopAll(poolId: string): Promise<PoolViewData> {
    const pool = this.pool(poolId);
    await Promise.all(pool.workers.filter((w) => isActive(w.state)).map((w) => this.stopWorker(pool, w)));
    return this.view(pool);
  }

  async stopOne(poolId: string, index: number): Promise<PoolViewData> {
    const pool = this.pool(poolId);
    const worker = this.worker(pool, index);
    if (isActive(worker.state)) await this.stopWorker(pool, worker);
    return this.view(pool);
  }

  /** Failed workers start again with the share of the pool's current split for their index. */
  async restartFailed(poolId: string): Promise<PoolViewData> {
    this.requireOpen();
    const pool = this.pool(poolId);
    const failed = pool.workers.filter((w) => w.state === 'failed');
    for (const worker of failed) {
      const share = pool.split.shares[worker.index];
      if (share) {
        worker.shareEnv = { ...workerShareEnv(pool.split, worker.index), AGENTSWARM_PROGRESS_EVERY_S: String(this.options.progressEverySeconds ?? 5) };
        worker.batchShare = share.batchShare;
        worker.parallelEpisodes = share.parallelEpisodes;
      }
      worker.notified = false;
    }
    await Promise.all(failed.map((w) => this.startWorker(pool, w, 'restarted')));
    return this.view(pool);
  }

  log(poolId: string, index: number, from: number, limit: number): { poolId: string; index: number; lines: { n: number; stream: 'out' | 'err' | 'app'; text: string }[]; total: number } {
    const pool = this.pool(poolId);
    this.worker(pool, index);
    const live = this.liveOf(pool.poolId, index);
    const firstKept = live.total - live.lines.length;
    const start = Math.max(from, firstKept);
    const lines = live.lines.slice(start - firstKept, start - firstKept + limit).map((text, i) => ({ n: start + i, stream: 'out' as const, text }));
    return { poolId, index, lines, total: live.total };
  }

  /** App close: polling ends; local workers (stopped with the job runner) are marked to start again next time; SSH workers keep running. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    for (const pool of this.pools) {
      for (const worker of pool.workers) {
        if (worker.placement.kind === 'local' && isActive(worker.state)) worker.resumeOnStart = true;
      }
    }
    this.save();
    await this.saving;
  }

  // ------------------------------------------------------------ workers

  private newWorker(placement: WorkerPlacementData, split: PoolSplitData, index: number): WorkerRecordData {
    const share = split.shares[index]!;
    return {
      index,
      placement,
      state: 'starting',
      exitCode: null,
      signal: null,
      shareEnv: { ...workerShareEnv(split, index), AGENTSWARM_PROGRESS_EVERY_S: String(this.options.progressEverySeconds ?? 5) },
      batchShare: share.batchShare,
      parallelEpisodes: share.parallelEpisodes,
      handle: null,
      startedAt: null,
      endedAt: null,
      note: null,
      lastError: null,
      notified: false,
      resumeOnStart: false,
    };
  }

  private spec(pool: PoolRecordData, worker: WorkerRecordData): WorkerStartSpec {
    const name = pool.label ?? 'Training';
    return {
      poolId: pool.poolId,
      index: worker.index,
      request: pool.request,
      placement: worker.placement,
      shareEnv: worker.shareEnv,
      label: `Worker ${worker.index + 1}/${pool.split.workers} · ${name}`,
    };
  }

  private backend(worker: WorkerRecordData): WorkerBackend {
    return worker.placement.kind === 'local' ? this.options.backends.local : this.options.backends.ssh;
  }

  private async startWorker(pool: PoolRecordData, worker: WorkerRecordData, why: string | null): Promise<void> {
    Object.assign(worker, { state: 'starting', exitCode: null, signal: null, handle: null, startedAt: new Date().toISOString(), endedAt: null, lastError: null, note: why });
    const live = this.liveOf(pool.poolId, worker.index);
    live.progress = new WorkerProgress();
    live.stopping = false;
    this.changed(pool);
    try {
      worker.handle = await this.backend(worker).start(this.spec(pool, worker));
      worker.state = 'running';
      // "Stop all" came while it started: it is stopped now that there is a process to stop.
      if (live.stopping) void this.stopWorker(pool, worker);
      if (worker.handle.note) worker.note = worker.handle.note;
      this.appendLines(pool, worker, [`app: started (pid ${worker.handle.pid ?? '?'}${worker.handle.jobId ? `, job ${worker.handle.jobId}` : ''})`]);
    } catch (error) {
      const message = isAppError(error) ? error.message : 'The worker could not be started; the app log has the details.';
      if (!isAppError(error)) this.options.logger.warn('a worker could not be started', { poolId: pool.poolId, index: worker.index, message: (error as Error).message });
      this.ended(pool, worker, { exitCode: null, signal: null, startError: message });
    }
    this.changed(pool);
  }

  private async stopWorker(pool: PoolRecordData, worker: WorkerRecordData): Promise<void> {
    const live = this.liveOf(pool.poolId, worker.index);
    live.stopping = true;
    if (worker.handle) await this.backend(worker).stop(worker.handle, this.spec(pool, worker));
    // Lines written while it stopped (the episodes it gave back).
    if (worker.handle) await this.pollWorker(pool, worker, true).catch(() => undefined);
    if (isActive(worker.state)) {
      Object.assign(worker, { state: 'stopped', endedAt: new Date().toISOString() });
      live.progress.ended();
      this.changed(pool);
    }
  }

  private async pollAll(): Promise<void> {
    const work: Promise<void>[] = [];
    for (const pool of this.pools) {
      for (const worker of pool.workers) {
        if (worker.state === 'running' && worker.handle) work.push(this.pollWorker(pool, worker, false).catch(() => undefined));
      }
    }
    await Promise.all(work);
  }

  private async pollWorker(pool: PoolRecordData, worker: WorkerRecordData, force: boolean): Promise<void> {
    const live = this.liveOf(pool.poolId, worker.index);
    if (live.polling && !force) return;
    live.polling = true;
    try {
      const before = `${live.progress.episodes}/${live.progress.clientUuid}/${live.progress.lastError}`;
      const { lines, end } = await this.backend(worker).poll(worker.handle!, this.spec(pool, worker));
      this.appendLines(pool, worker, lines);
      const after = `${live.progress.episodes}/${live.progress.clientUuid}/${live.progress.lastError}`;
      if (end && worker.state === 'running') this.ended(pool, worker, end);
      if (end || before !== after || lines.length > 0) this.changed(pool);
    } catch (error) {
      // A host that does not answer right now (SSH reconnecting): the worker is not known to be dead.
      this.options.logger.info?.('a worker could not be polled', { poolId: pool.poolId, index: worker.index, message: (error as Error).message });
    } finally {
      live.polling = false;
    }
  }

  private appendLines(pool: PoolRecordData, worker: WorkerRecordData, lines: string[]): void {
    if (lines.length === 0) return;
    const live = this.liveOf(pool.poolId, worker.index);
    const now = Date.now();
    for (const raw of lines) {
      const line = redact(raw);
      live.progress.see(line, now);
      live.lines.push(line);
      live.total += 1;
    }
    if (live.lines.length > KEPT_LINES) live.lines.splice(0, live.lines.length - KEPT_LINES);
    worker.lastError = live.progress.lastError ?? worker.lastError;
    this.options.events.emit('workers:log-appended', { poolId: pool.poolId, index: worker.index, total: live.total });
  }

  /** The worker's process is gone: exited (code 0), stopped (by the user), else failed, told once. */
  private ended(pool: PoolRecordData, worker: WorkerRecordData, end: WorkerEnd): void {
    const live = this.liveOf(pool.poolId, worker.index);
    live.progress.ended();
    const state = live.stopping ? 'stopped' : end.startError === null && end.exitCode === 0 ? 'exited' : 'failed';
    Object.assign(worker, { state, exitCode: end.exitCode, signal: end.signal, endedAt: new Date().toISOString() });
    if (end.startError) worker.lastError = redact(end.startError);
    if (state !== 'failed' || worker.notified) return;
    worker.notified = true;
    const how = end.startError ?? (end.signal ? `killed by ${end.signal}` : end.exitCode === null ? 'its process is gone' : `exit code ${end.exitCode}`);
    this.appendLines(pool, worker, [`app: failed: ${how}`]);
    this.options.notifier.notify({
      kind: 'worker-died',
      title: `Rollout worker ${worker.index + 1} of ${pool.split.workers} stopped`,
      body: `${this.backend(worker).where(worker.placement)}: ${how}. The other workers go on; "Restart failed" starts it again.`,
      engineId: pool.request.swarm.engineId,
      containerId: pool.request.swarm.containerId,
    });
  }

  // ------------------------------------------------------------ views and saving

  private view(pool: PoolRecordData): PoolViewData {
    const workers = pool.workers.map((w): WorkerViewData => {
      const live = this.liveOf(pool.poolId, w.index);
      const running = w.state === 'running';
      return {
        index: w.index,
        placement: w.placement,
        where: this.backend(w).where(w.placement),
        state: w.state,
        exitCode: w.exitCode,
        signal: w.signal,
        pid: w.handle?.pid ?? null,
        jobId: w.handle?.jobId ?? null,
        batchShare: w.batchShare,
        parallelEpisodes: w.parallelEpisodes,
        clientUuid: live.progress.clientUuid,
        episodes: live.progress.episodes,
        failedEpisodes: live.progress.failedEpisodes,
        episodesPerMinute: running ? live.progress.perMinute() : null,
        lastError: w.lastError,
        startedAt: w.startedAt,
        endedAt: w.endedAt,
        logLines: live.total,
        note: w.note,
      };
    });
    return {
      poolId: pool.poolId,
      label: pool.label,
      createdAt: pool.createdAt,
      state: pool.workers.some((w) => isActive(w.state)) ? 'running' : 'ended',
      swarm: pool.request.swarm,
      swarmUrl: pool.swarmUrl,
      split: pool.split,
      workers,
      episodesPerMinute: Math.round(workers.reduce((sum, w) => sum + (w.episodesPerMinute ?? 0), 0) * 10) / 10,
      episodes: workers.reduce((sum, w) => sum + w.episodes, 0),
    };
  }

  private changed(pool: PoolRecordData): void {
    this.options.events.emit('workers:changed', this.view(pool));
    this.save();
  }

  /** Writes are chained: the file always ends with the newest state. */
  private save(): void {
    const snapshot = structuredClone(this.pools);
    this.saving = this.saving
      .then(() => this.store.save(snapshot))
      .catch((error: unknown) => this.options.logger.warn('the worker pools could not be saved', { file: this.store.file, message: (error as Error).message }));
  }

  private prune(): void {
    const ended = this.pools.filter((p) => !p.workers.some((w) => isActive(w.state)));
    const drop = new Set(ended.slice(0, Math.max(0, ended.length - KEPT_ENDED_POOLS)).map((p) => p.poolId));
    this.pools = this.pools.filter((p) => !drop.has(p.poolId));
  }

  private liveOf(poolId: string, index: number): LiveWorker {
    const key = `${poolId}/${index}`;
    let live = this.live.get(key);
    if (!live) {
      live = { progress: new WorkerProgress(), lines: [], total: 0, polling: false, stopping: false };
      this.live.set(key, live);
    }
    return live;
  }

  private pool(poolId: string): PoolRecordData {
    const pool = this.pools.find((p) => p.poolId === poolId);
    if (!pool) throw new AppError('JOB_NOT_FOUND', `No worker pool "${poolId}" (ended pools are kept only for the newest ${KEPT_ENDED_POOLS}).`);
    return pool;
  }

  private worker(pool: PoolRecordData, index: number): WorkerRecordData {
    const worker = pool.workers[index];
    if (!worker) throw new AppError('JOB_NOT_FOUND', `The pool has no worker ${index + 1} (it has ${pool.workers.length}).`);
    return worker;
  }

  private requireOpen(): void {
    if (this.disposed) throw new AppError('INTERNAL', 'The app is closing: no worker was started.');
  }
}

function isActive(state: WorkerRecordData['state']): boolean {
  return state === 'starting' || state === 'running';
}

/** N copies of a script that restarts the engine would end everyone's training again and again. */
async function refuseEngineRestart(request: PoolStart): Promise<void> {
  const path = isAbsolute(request.script) ? request.script : resolve(request.cwd, request.script);
  const source = await readFile(path, 'utf8').catch(() => {
    throw new AppError('PROJECT_INVALID', `The script ${path} does not exist. Generate it in the wizard, or pick the file again.`);
  });
  const calls = engineRestartCalls(source);
  if (calls.length > 0) {
    throw new AppError(
      'JOB_NEEDS_CONFIRMATION',
      `${path} calls ${calls.join(' and ')}: every worker of a pool would end the training of every client again. Generate the script without the engine restart (or start the engine once with a single training run), then start the workers.`,
    );
  }
}

function newPoolId(): string {
  return `pool-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
