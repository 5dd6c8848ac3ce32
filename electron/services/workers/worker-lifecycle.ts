import { isAppError } from '../../shared/errors';
import type { WorkerPlacementData } from '../../shared/schemas-workers';
import type { EventSink } from '../events';
import type { Notifier } from '../notifier';
import type { Logger } from '../util/logger';
import { redact } from '../util/redact';
import { isActive } from './pool-records';
import type { PoolRecordData, WorkerRecordData } from './pool-store';
import type { WorkerBackend, WorkerEnd, WorkerHandle, WorkerStartSpec } from './worker-backend';
import { WorkerProgress } from './worker-progress';
import type { WorkerNote } from '../../shared/schemas-workers';
import { noteText, notesLine } from './worker-notes';

/** What the pool keeps of a worker only while the app runs. */
export interface LiveWorker {
  progress: WorkerProgress;
  lines: string[];
  total: number;
  polling: boolean;
  stopping: boolean;
}

/** Lines of a worker's log kept in memory for `workers:log` (local workers' full log is their job's). */
const KEPT_LINES = 2000;

export interface WorkerLifecycleOptions {
  events: EventSink;
  notifier: Notifier;
  logger: Logger;
  backendOf: (placement: WorkerPlacementData) => WorkerBackend;
  /** A worker of `pool` changed: the pool's snapshot goes out and is saved. */
  changed: (pool: PoolRecordData) => void;
}

/**
 * One worker's life, whatever its backend: started, polled for new log lines and its end, stopped;
 * its progress line read into episodes, rate, client uuid and LLM calls; a death marked and told once.
 */
export class WorkerLifecycle {
  private readonly live = new Map<string, LiveWorker>();

  constructor(private readonly options: WorkerLifecycleOptions) {}

  backend(worker: WorkerRecordData): WorkerBackend {
    return this.options.backendOf(worker.placement);
  }

  spec(pool: PoolRecordData, worker: WorkerRecordData): WorkerStartSpec {
    const name = pool.label ?? 'Training';
    return {
      poolId: pool.poolId,
      index: worker.index,
      request: pool.request,
      placement: worker.placement,
      shareEnv: worker.shareEnv,
      label: `Worker ${worker.index + 1}/${pool.workers.length} · ${name}`,
    };
  }

  liveOf(poolId: string, index: number): LiveWorker {
    const key = `${poolId}/${index}`;
    let live = this.live.get(key);
    if (!live) {
      live = { progress: new WorkerProgress(), lines: [], total: 0, polling: false, stopping: false };
      this.live.set(key, live);
    }
    return live;
  }

  async start(pool: PoolRecordData, worker: WorkerRecordData, why: WorkerNote | null): Promise<void> {
    this.begin(pool, worker, why);
    try {
      this.started(pool, worker, await this.backend(worker).start(this.spec(pool, worker)), why);
    } catch (error) {
      this.notStarted(pool, worker, error);
    }
    this.options.changed(pool);
  }

  /**
   * Starts `workers` (each with its reason): those of a backend that starts groups (a Slurm job array: one
   * submission) together per placement, the others one by one.
   */
  async startMany(pool: PoolRecordData, workers: readonly { worker: WorkerRecordData; why: WorkerNote | null }[], runTag?: string): Promise<void> {
    const groups = new Map<string, { worker: WorkerRecordData; why: WorkerNote | null }[]>();
    const single: Promise<void>[] = [];
    for (const item of workers) {
      if (!this.backend(item.worker).startGroup) single.push(this.start(pool, item.worker, item.why));
      else {
        const key = JSON.stringify(item.worker.placement);
        groups.set(key, [...(groups.get(key) ?? []), item]);
      }
    }
    const grouped = [...groups.values()].map(async (items) => {
      for (const { worker, why } of items) this.begin(pool, worker, why);
      try {
        const handles = await this.backend(items[0]!.worker).startGroup!(items.map(({ worker }) => ({ ...this.spec(pool, worker), ...(runTag ? { runTag } : {}) })));
        items.forEach(({ worker, why }, i) => this.started(pool, worker, handles[i]!, why));
      } catch (error) {
        for (const { worker } of items) this.notStarted(pool, worker, error);
      }
      this.options.changed(pool);
    });
    await Promise.all([...single, ...grouped]);
  }

  private begin(pool: PoolRecordData, worker: WorkerRecordData, why: WorkerNote | null): void {
    const notes = why ? [why] : [];
    Object.assign(worker, { state: 'starting', exitCode: null, signal: null, handle: null, startedAt: new Date().toISOString(), endedAt: null, lastError: null, note: notesLine(notes), notes });
    const live = this.liveOf(pool.poolId, worker.index);
    live.progress = new WorkerProgress();
    live.stopping = false;
    this.options.changed(pool);
  }

  private started(pool: PoolRecordData, worker: WorkerRecordData, handle: WorkerHandle, why: WorkerNote | null): void {
    const live = this.liveOf(pool.poolId, worker.index);
    handle.notes ??= [];
    worker.handle = handle as NonNullable<WorkerRecordData['handle']>;
    worker.state = 'running';
    // "Stop all" came while it started: it is stopped now that there is a process to stop.
    if (live.stopping) void this.stop(pool, worker);
    if (handle.notes?.length) {
      worker.notes = [...(why ? [why] : []), ...handle.notes];
      worker.note = notesLine(worker.notes);
    } else if (handle.note) worker.note = [why ? noteText(why) : null, handle.note].filter(Boolean).join('; ');
    const ids = [handle.pid !== null ? `pid ${handle.pid}` : null, handle.jobId ? `job ${handle.jobId}` : null].filter(Boolean).join(', ');
    this.appendLines(pool, worker, [`app: started (${ids || 'no pid yet'})`]);
  }

  private notStarted(pool: PoolRecordData, worker: WorkerRecordData, error: unknown): void {
    const message = isAppError(error) ? error.message : 'The worker could not be started; the app log has the details.';
    if (!isAppError(error)) this.options.logger.warn('a worker could not be started', { poolId: pool.poolId, index: worker.index, message: (error as Error).message });
    this.ended(pool, worker, { exitCode: null, signal: null, startError: message });
  }

  async stop(pool: PoolRecordData, worker: WorkerRecordData): Promise<void> {
    const live = this.liveOf(pool.poolId, worker.index);
    live.stopping = true;
    if (worker.handle) await this.backend(worker).stop(worker.handle, this.spec(pool, worker));
    // Lines written while it stopped (the episodes it gave back).
    if (worker.handle) await this.poll(pool, worker, true).catch(() => undefined);
    if (isActive(worker.state)) {
      Object.assign(worker, { state: 'stopped', endedAt: new Date().toISOString() });
      live.progress.ended();
      this.options.changed(pool);
    }
  }

  async pollAll(pools: readonly PoolRecordData[]): Promise<void> {
    const work: Promise<void>[] = [];
    for (const pool of pools) {
      for (const worker of pool.workers) {
        if (worker.state === 'running' && worker.handle) work.push(this.poll(pool, worker, false).catch(() => undefined));
      }
    }
    await Promise.all(work);
  }

  async poll(pool: PoolRecordData, worker: WorkerRecordData, force: boolean): Promise<void> {
    const live = this.liveOf(pool.poolId, worker.index);
    if (live.polling && !force) return;
    live.polling = true;
    try {
      const before = live.progress.signature();
      const { lines, end } = await this.backend(worker).poll(worker.handle!, this.spec(pool, worker));
      this.appendLines(pool, worker, lines);
      if (end && worker.state === 'running') this.ended(pool, worker, end);
      if (end || before !== live.progress.signature() || lines.length > 0) this.options.changed(pool);
    } catch (error) {
      // A host that does not answer right now (SSH reconnecting): the worker is not known to be dead.
      this.options.logger.info?.('a worker could not be polled', { poolId: pool.poolId, index: worker.index, message: (error as Error).message });
    } finally {
      live.polling = false;
    }
  }

  appendLines(pool: PoolRecordData, worker: WorkerRecordData, lines: string[]): void {
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
      title: `Rollout worker ${worker.index + 1} of ${pool.workers.length} stopped`,
      body: `${this.backend(worker).where(worker.placement)}: ${how}. The other workers go on; "Restart failed" starts it again.`,
      engineId: pool.request.swarm.engineId,
      containerId: pool.request.swarm.containerId,
    });
  }

  log(poolId: string, index: number, from: number, limit: number): { poolId: string; index: number; lines: { n: number; stream: 'out' | 'err' | 'app'; text: string }[]; total: number } {
    const live = this.liveOf(poolId, index);
    const firstKept = live.total - live.lines.length;
    const start = Math.max(from, firstKept);
    const lines = live.lines.slice(start - firstKept, start - firstKept + limit).map((text, i) => ({ n: start + i, stream: 'out' as const, text }));
    return { poolId, index, lines, total: live.total };
  }
}
