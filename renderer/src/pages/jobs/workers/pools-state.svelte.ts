import type { ExposedApi } from '../../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../../electron/shared/errors';
import type { Result } from '../../../../../electron/shared/result';
import type { PoolStartInput, PoolViewData, SlurmAddPreviewAnswerData, SlurmAddShownData, WorkerPlacementData } from '../../../../../electron/shared/schemas-workers';

export type PoolAction = 'stop-all' | 'restart-failed' | 'add' | 'stop-one' | 'start';

/**
 * The worker pools (issue 34) as the Jobs page and the wizard's Train step show them: `workers:list`
 * once, then every `workers:changed` snapshot (one pool each), and the pool actions with their busy
 * flags and the last error per pool.
 */
export class PoolsState {
  items = $state<PoolViewData[]>([]);
  loaded = $state(false);
  busy = $state<Record<string, true>>({});
  errors = $state<Record<string, AppErrorShape>>({});

  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    const off = this.api.events.on('workers:changed', (pool) => this.put(pool));
    void this.load();
    return off;
  }

  async load(): Promise<void> {
    const result = await this.api.workers.list();
    if (result.ok) {
      // Snapshots that came while the list was on its way are newer than the list's: keep them.
      const known: Record<string, PoolViewData> = Object.fromEntries(this.items.map((p) => [p.poolId, p]));
      this.items = result.value.map((p) => known[p.poolId] ?? p);
    } else this.errors = { ...this.errors, list: result.error };
    this.loaded = true;
  }

  private put(pool: PoolViewData): void {
    const at = this.items.findIndex((p) => p.poolId === pool.poolId);
    this.items = at < 0 ? [pool, ...this.items] : this.items.map((p, i) => (i === at ? pool : p));
  }

  forServer(engineId: string, containerId: string): PoolViewData[] {
    return this.items.filter((p) => p.swarm.engineId === engineId && p.swarm.containerId === containerId);
  }

  isBusy(poolId: string, action: PoolAction): boolean {
    return this.busy[`${action}:${poolId}`] === true;
  }

  stopAll(poolId: string): Promise<unknown> {
    return this.act(poolId, 'stop-all', () => this.api.workers.stopAll({ poolId }));
  }

  restartFailed(poolId: string): Promise<unknown> {
    return this.act(poolId, 'restart-failed', () => this.api.workers.restartFailed({ poolId }));
  }

  /** `shown`: for Slurm placements, what `previewSlurmAdd` answered (they are submitted only as shown). */
  add(poolId: string, placements: WorkerPlacementData[], shown: SlurmAddShownData | null = null): Promise<unknown> {
    return this.act(poolId, 'add', () => this.api.workers.add({ poolId, placements, shown }));
  }

  /** The Slurm arrays adding `placements` would submit, and the new split; null (the error shown under the pool) when refused. */
  async previewSlurmAdd(poolId: string, placements: WorkerPlacementData[]): Promise<SlurmAddPreviewAnswerData | null> {
    const { [poolId]: _cleared, ...rest } = this.errors;
    this.errors = rest;
    const result = await this.api.workers.slurmAddPreview({ poolId, placements });
    if (result.ok) return result.value;
    this.errors = { ...this.errors, [poolId]: result.error };
    return null;
  }

  stopOne(poolId: string, index: number): Promise<unknown> {
    return this.act(poolId, 'stop-one', () => this.api.workers.stop({ poolId, index }));
  }

  /** `key`: where the error shows (the start form has no pool yet). */
  async startPool(key: string, request: PoolStartInput): Promise<boolean> {
    const result = await this.act(key, 'start', () => this.api.workers.start(request));
    return result?.ok === true;
  }

  private async act(poolId: string, action: PoolAction, call: () => Promise<Result<PoolViewData>>): Promise<Result<PoolViewData> | null> {
    const key = `${action}:${poolId}`;
    if (this.busy[key]) return null;
    this.busy = { ...this.busy, [key]: true };
    const { [poolId]: _cleared, ...rest } = this.errors;
    this.errors = rest;
    try {
      const result = await call();
      if (result.ok) this.put(result.value);
      else this.errors = { ...this.errors, [poolId]: result.error };
      return result;
    } finally {
      const { [key]: _done, ...left } = this.busy;
      this.busy = left;
    }
  }
}
