import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors';
import type {
  PoolSplitData,
  PoolStart,
  PoolViewData,
  SlurmAddPreviewAnswerData,
  SlurmAddShownData,
  SlurmArrayPreviewData,
  SlurmPreviewAnswerData,
  WorkerPlacementData,
} from '../../shared/schemas-workers';
import type { EventSink } from '../events';
import type { Notifier } from '../notifier';
import type { Logger } from '../util/logger';
import { splitParallelism } from './parallelism-split';
import { isActive, newPoolId, newWorkerRecord, rebalance, refuseEngineRestart, shareSettings } from './pool-records';
import { KEPT_ENDED_POOLS, PoolStore, type PoolRecordData, type WorkerRecordData } from './pool-store';
import { poolView } from './pool-view';
import type { WorkerBackend } from './worker-backend';
import { WorkerLifecycle } from './worker-lifecycle';
import { notesLine, workerNote } from './worker-notes';

export type SlurmPreviewer = (
  request: PoolStart,
  poolId: string,
  tasks: { index: number; shareEnv: Record<string, string> }[],
  placement: Extract<WorkerPlacementData, { kind: 'slurm' }>,
  /** Names the run folder of an array added to a running pool (null: the pool's first start). */
  tag: string | null,
) => Promise<SlurmArrayPreviewData>;

export interface WorkerPoolOptions {
  /** `<data>/workers`. */
  dir: string;
  events: EventSink;
  notifier: Notifier;
  logger: Logger;
  /** One backend per kind of placement. */
  backends: Record<WorkerPlacementData['kind'], WorkerBackend>;
  /** The app's URL of a watched swarm server (the tunnel's for a remote one); null when not running. */
  swarmUrl: (engineId: string, containerId: string) => string | null;
  /** How often running workers are polled (default 1000 ms). */
  pollMs?: number;
  /** How often workers print their progress line (default 5 s). */
  progressEverySeconds?: number;
}

/** How long a change of nothing but the workers' log offsets may wait to be written (saveChanged). */
export const OFFSETS_SAVE_MS = 10_000;

/** The pools without their log offsets: a change of it is one a restart needs at once. */
function durableShape(pools: readonly PoolRecordData[]): string {
  return JSON.stringify(pools, (key, value: unknown) => (key === 'logOffset' ? undefined : value));
}

/**
 * Rollout worker pools (issue 34): one training run's `agent_roll.py` on N workers. Each worker is
 * started by its backend (this computer, an SSH host, a Slurm array task) and followed by
 * WorkerLifecycle. Pools are saved with every worker's pid and run folder, so an app restart finds
 * them again. Workers joining a pool (added, restarted) get their share from `rebalance`: the
 * pool never claims more than one batch.
 */
export class WorkerPool {
  private pools: PoolRecordData[] = [];
  private readonly store: PoolStore;
  private readonly lifecycle: WorkerLifecycle;
  private timer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();
  private disposed = false;
  /** The pools as last written, log offsets left out (saveChanged). */
  private savedShape = '';
  private offsetsTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: WorkerPoolOptions) {
    this.store = new PoolStore(options.dir);
    this.lifecycle = new WorkerLifecycle({
      events: options.events,
      notifier: options.notifier,
      logger: options.logger,
      backendOf: (placement) => options.backends[placement.kind],
      changed: (pool) => this.changed(pool),
    });
  }

  /** Loads saved pools: SSH and Slurm workers are polled again by pid or job; local workers the app's close stopped start again. */
  async load(): Promise<void> {
    const { pools, note } = await this.store.load();
    if (note) this.options.logger.warn(note);
    this.pools = pools;
    const resumes: Promise<void>[] = [];
    for (const pool of this.pools) {
      for (const worker of pool.workers) {
        if (worker.resumeOnStart && worker.placement.kind === 'local') {
          worker.resumeOnStart = false;
          resumes.push(this.lifecycle.start(pool, worker, workerNote('resumed')));
        }
      }
    }
    await Promise.all(resumes);
    this.timer = setInterval(() => void this.lifecycle.pollAll(this.pools), this.options.pollMs ?? 1000);
    this.save();
  }

  split(batchSize: number, grpoN: number, workers: number): PoolSplitData {
    return splitParallelism({ batchSize, grpoN, workers });
  }

  list(): PoolViewData[] {
    const views = this.pools.map((p) => poolView(p, this.lifecycle));
    return [...views.filter((v) => v.state === 'running'), ...views.filter((v) => v.state !== 'running')].reverse();
  }

  get(poolId: string): PoolViewData {
    return poolView(this.pool(poolId), this.lifecycle);
  }

  async start(request: PoolStart): Promise<PoolViewData> {
    this.requireOpen();
    const split = splitParallelism({ batchSize: request.batchSize, grpoN: request.grpoN, workers: request.placements.length });
    await refuseEngineRestart(request);
    const every = this.progressEvery();
    if (request.poolId !== null && this.pools.some((p) => p.poolId === request.poolId)) {
      throw new AppError('VALIDATION_FAILED', `Pool ${request.poolId} was started already: preview the Slurm array again for a new pool.`);
    }
    const pool: PoolRecordData = {
      poolId: request.poolId ?? newPoolId(),
      label: request.label,
      createdAt: new Date().toISOString(),
      request,
      split,
      swarmUrl: this.options.swarmUrl(request.swarm.engineId, request.swarm.containerId),
      workers: request.placements.map((placement, index) => newWorkerRecord(placement, index, shareSettings(split, index, every))),
    };
    this.pools.push(pool);
    this.prune();
    this.changed(pool);
    await this.lifecycle.startMany(pool, pool.workers.map((worker) => ({ worker, why: null })));
    return this.get(pool.poolId);
  }

  /** The Slurm arrays `request` would submit (one per Slurm placement), for a pool id chosen now. */
  async slurmPreview(request: PoolStart, preview: SlurmPreviewer): Promise<SlurmPreviewAnswerData> {
    const split = splitParallelism({ batchSize: request.batchSize, grpoN: request.grpoN, workers: request.placements.length });
    const poolId = newPoolId();
    const groups = new Map<string, { placement: Extract<WorkerPlacementData, { kind: 'slurm' }>; tasks: { index: number; shareEnv: Record<string, string> }[] }>();
    request.placements.forEach((placement, index) => {
      if (placement.kind !== 'slurm') return;
      const key = JSON.stringify(placement);
      const group = groups.get(key) ?? { placement, tasks: [] };
      group.tasks.push({ index, shareEnv: shareSettings(split, index, this.progressEvery()).shareEnv });
      groups.set(key, group);
    });
    const arrays = await Promise.all([...groups.values()].map((g) => preview(request, poolId, g.tasks, g.placement, null)));
    return { poolId, arrays };
  }

  /**
   * What `add` would submit for Slurm placements, shown first (the same rules as a new pool's array): the arrays of the
   * joining workers, with the running Slurm workers whose share shrinks (they restart in the same array), grouped as
   * `join` starts them; the new split; and the tag and revision `add` must send back.
   */
  async slurmAddPreview(poolId: string, placements: WorkerPlacementData[], preview: SlurmPreviewer): Promise<SlurmAddPreviewAnswerData> {
    const pool = this.pool(poolId);
    if (!placements.some((p) => p.kind === 'slurm')) throw new AppError('VALIDATION_FAILED', 'None of the workers to add runs on Slurm: there is no job script to show.');
    const added = this.newMembers(pool, placements);
    const plan = rebalance(pool, added);
    const every = this.progressEvery();
    const groups = new Map<string, { placement: Extract<WorkerPlacementData, { kind: 'slurm' }>; tasks: { index: number; shareEnv: Record<string, string> }[] }>();
    // The order `join` hands them to startMany: the restarted ones first, then the joining ones; one array per placement.
    for (const worker of [...plan.shrink, ...added]) {
      if (worker.placement.kind !== 'slurm') continue;
      const key = JSON.stringify(worker.placement);
      const group = groups.get(key) ?? { placement: worker.placement, tasks: [] };
      group.tasks.push({ index: worker.index, shareEnv: shareSettings(plan.split, plan.slotOf.get(worker)!, every).shareEnv });
      groups.set(key, group);
    }
    const tag = randomBytes(4).toString('hex');
    const arrays = await Promise.all([...groups.values()].map((g) => preview(pool.request, pool.poolId, g.tasks, g.placement, tag)));
    return { poolId, arrays, split: plan.split, shown: { tag, revision: joinRevision(pool, placements) } };
  }

  /**
   * More workers: the split over the active workers and the new ones (see `join`). Slurm workers only as shown by
   * `slurmAddPreview` (`shown`): refused when the pool changed since (the script would not be the one shown).
   */
  async add(poolId: string, placements: WorkerPlacementData[], shown: SlurmAddShownData | null = null): Promise<PoolViewData> {
    this.requireOpen();
    const pool = this.pool(poolId);
    const slurm = placements.some((p) => p.kind === 'slurm');
    if (slurm && !shown) throw new AppError('VALIDATION_FAILED', 'Slurm workers are submitted only as shown: show their job script first.');
    if (slurm && shown!.revision !== joinRevision(pool, placements)) {
      throw new AppError('VALIDATION_FAILED', 'The pool changed since its job script was shown (a worker ended, joined or restarted): show the script again.');
    }
    const added = this.newMembers(pool, placements);
    await this.join(pool, added, 'added', () => pool.workers.push(...added), slurm ? shown!.tag : undefined);
    return this.get(poolId);
  }

  /** Failed workers start again, with their share of the split over the active workers and them. */
  async restartFailed(poolId: string): Promise<PoolViewData> {
    this.requireOpen();
    const pool = this.pool(poolId);
    const failed = pool.workers.filter((w) => w.state === 'failed');
    for (const worker of failed) worker.notified = false;
    // A restarted Slurm array gets a run folder of its own (the failed tasks' exit files stay in the old one).
    await this.join(pool, failed, 'restarted', () => undefined, randomBytes(4).toString('hex'));
    return this.get(poolId);
  }

  private newMembers(pool: PoolRecordData, placements: WorkerPlacementData[]): WorkerRecordData[] {
    const first = pool.workers.length;
    return placements.map((placement, i) => newWorkerRecord(placement, first + i, { shareEnv: {}, batchShare: 1, parallelEpisodes: 1 }));
  }

  /**
   * Workers join: running workers whose share shrinks are stopped (giving their episodes back) and
   * started again with it first, then the joining ones start, so the pool never claims more than one
   * batch. Refused (nothing changes) when the batch has fewer tasks than members.
   */
  private async join(pool: PoolRecordData, joining: WorkerRecordData[], why: string, commit: () => void, runTag?: string): Promise<void> {
    if (joining.length === 0) return;
    const plan = rebalance(pool, joining);
    commit();
    pool.split = plan.split;
    const every = this.progressEvery();
    const members = plan.split.workers;
    for (const worker of plan.grow) {
      worker.notes = [workerNote('keepsShare', { share: worker.batchShare, workers: members, splitShare: plan.split.shares[plan.slotOf.get(worker)!]!.batchShare })];
      worker.note = notesLine(worker.notes);
    }
    await Promise.all(plan.shrink.map((w) => this.lifecycle.stop(pool, w)));
    for (const worker of [...plan.shrink, ...joining]) Object.assign(worker, shareSettings(plan.split, plan.slotOf.get(worker)!, every));
    this.changed(pool);
    await this.lifecycle.startMany(pool, [
      ...plan.shrink.map((worker) => ({ worker, why: workerNote('reshared', { share: worker.batchShare, workers: members }) })),
      ...joining.map((worker) => ({ worker, why: why === 'restarted' ? workerNote('restarted') : null })),
    ], runTag);
  }

  async stopAll(poolId: string): Promise<PoolViewData> {
    const pool = this.pool(poolId);
    await Promise.all(pool.workers.filter((w) => isActive(w.state)).map((w) => this.lifecycle.stop(pool, w)));
    return this.get(poolId);
  }

  async stopOne(poolId: string, index: number): Promise<PoolViewData> {
    const pool = this.pool(poolId);
    const worker = this.worker(pool, index);
    if (isActive(worker.state)) await this.lifecycle.stop(pool, worker);
    return this.get(poolId);
  }

  log(poolId: string, index: number, from: number, limit: number): ReturnType<WorkerLifecycle['log']> {
    this.worker(this.pool(poolId), index);
    return this.lifecycle.log(poolId, index, from, limit);
  }

  /** App close: polling ends; local workers (stopped with the job runner) are marked to start again next time; SSH and Slurm workers keep running. */
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

  private progressEvery(): number {
    return this.options.progressEverySeconds ?? 5;
  }

  private changed(pool: PoolRecordData): void {
    this.options.events.emit('workers:changed', poolView(pool, this.lifecycle));
    this.saveChanged();
  }

  /**
   * What a restart needs (where each worker runs, its pid, state, share) is written at once; a change of nothing but
   * the log offsets (every poll that brings lines: 4 workers wrote the file 16 times a second in the workers bench)
   * waits up to OFFSETS_SAVE_MS. A crash then re-reads at most that much of a worker's log.
   */
  private saveChanged(): void {
    const shape = durableShape(this.pools);
    if (shape !== this.savedShape || this.disposed) this.save(shape);
    else if (!this.offsetsTimer) {
      this.offsetsTimer = setTimeout(() => this.save(), OFFSETS_SAVE_MS);
      this.offsetsTimer.unref();
    }
  }

  /** Writes are chained: the file always ends with the newest state. `shape`: durableShape(this.pools), when the caller has it. */
  private save(shape = durableShape(this.pools)): void {
    if (this.offsetsTimer) clearTimeout(this.offsetsTimer);
    this.offsetsTimer = null;
    this.savedShape = shape;
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

/** The pool's members and shares, and the placements joining: an added Slurm array's script depends on nothing else. */
function joinRevision(pool: PoolRecordData, placements: WorkerPlacementData[]): string {
  const members = pool.workers.filter((w) => isActive(w.state)).map((w) => [w.index, w.batchShare]);
  return createHash('sha256').update(JSON.stringify({ n: pool.workers.length, members, placements })).digest('hex').slice(0, 32);
}
