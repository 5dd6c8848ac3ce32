import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { SlurmJobView } from '../../../../electron/shared/schemas-slurm';
import { SLURM_ACTIVE_STATES } from '../../../../electron/shared/schemas-slurm';
import { REFETCH_DEBOUNCE_MS } from './containers.svelte';

/** Queued or running: not clearable. */
function isActiveJob(state: string): boolean {
  return (SLURM_ACTIVE_STATES as readonly string[]).includes(state);
}

/**
 * The app's jobs on one Slurm login node as its server card shows them (`slurm:jobs`): read when the
 * panel shows, when the window is shown again, and on `swarm:containers-changed` for this engine (debounced),
 * which the backend sends when its one queue poll sees a change. No timer of its own: every window polling
 * squeue cost the cluster's controller requests for nothing (issue 31), and `slurm:jobs` reads the poll's answer.
 * Cancel goes through the profile's Stop (or `swarm:stop` for a job without a profile), so the monitor and the
 * profile card see it like any other stop. Clear removes ended jobs' records (`slurm:clear`).
 */
export class SlurmJobsState {
  items = $state<SlurmJobView[]>([]);
  loaded = $state(false);
  error = $state<AppErrorShape | null>(null);
  /** Jobs whose cancel is under way, by job id. */
  cancelling = $state<Record<string, boolean>>({});
  /** The last failed cancel's error per job id, until the next try. */
  cancelErrors = $state<Record<string, AppErrorShape>>({});
  /** Jobs being cleared, by job id. */
  clearing = $state<Record<string, boolean>>({});
  /** The last failed clear's error, until the next try. */
  clearError = $state<AppErrorShape | null>(null);
  private latestRequest = 0;
  private debounce: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
  ) {}

  async load(): Promise<void> {
    // Only the newest answer counts: a slow squeue must not overwrite a fresher one.
    const request = ++this.latestRequest;
    const result = await this.api.slurm.jobs({ engineId: this.engineId });
    if (request !== this.latestRequest) return;
    this.loaded = true;
    if (result.ok) {
      this.items = result.value;
      this.error = null;
    } else {
      this.error = result.error;
    }
  }

  /** Loads now, on change events and when the document is shown again; returns the teardown. */
  start(): () => void {
    void this.load();
    const off = this.api.events.on('swarm:containers-changed', ({ engineId }) => {
      if (engineId !== this.engineId) return;
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => void this.load(), REFETCH_DEBOUNCE_MS);
    });
    const visible = () => typeof document === 'undefined' || document.visibilityState !== 'hidden';
    // Back from a hidden window: what it shows may be minutes old.
    const onVisibility = () => {
      if (visible()) void this.load();
    };
    if (typeof document !== 'undefined') document.addEventListener('visibilitychange', onVisibility);
    return () => {
      off();
      clearTimeout(this.debounce);
      if (typeof document !== 'undefined') document.removeEventListener('visibilitychange', onVisibility);
    };
  }

  /** Cancels the job (scancel through the engine's stop); true when the backend took it. */
  async cancel(job: SlurmJobView): Promise<boolean> {
    if (this.cancelling[job.id]) return false;
    this.cancelling[job.id] = true;
    delete this.cancelErrors[job.id];
    const byContainer = () => this.api.swarm.stop({ engineId: this.engineId, containerId: job.id });
    let result = job.profileId ? await this.api.profiles.stop({ profileId: job.profileId }) : await byContainer();
    // The profile was removed while its job still ran: cancel the job itself.
    if (!result.ok && result.error.code === 'PROFILE_NOT_FOUND') result = await byContainer();
    delete this.cancelling[job.id];
    if (!result.ok) this.cancelErrors[job.id] = result.error;
    await this.load();
    return result.ok;
  }

  /** Clears ended jobs (`jobIds` absent: every ended one); true when the backend took it. */
  async clear(jobIds?: string[]): Promise<boolean> {
    const ids = jobIds ?? this.items.filter((j) => !isActiveJob(j.state)).map((j) => j.id);
    if (ids.length === 0 || ids.some((id) => this.clearing[id])) return false;
    for (const id of ids) this.clearing[id] = true;
    this.clearError = null;
    const result = await this.api.slurm.clear(jobIds ? { engineId: this.engineId, jobIds } : { engineId: this.engineId });
    for (const id of ids) delete this.clearing[id];
    if (!result.ok) this.clearError = result.error;
    await this.load();
    return result.ok;
  }
}
