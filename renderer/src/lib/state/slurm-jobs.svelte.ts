import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { SlurmJobView } from '../../../../electron/shared/schemas-slurm';
import { REFETCH_DEBOUNCE_MS } from './containers.svelte';

/**
 * `squeue` on a busy cluster is heavy for the controller (and every poll is an SSH round trip): the
 * panel refreshes this often while it is visible, and not faster.
 */
export const SLURM_JOBS_POLL_MS = 10_000;

/**
 * The app's jobs on one Slurm login node as its server card shows them (`slurm:jobs`): read when the
 * panel shows, on `swarm:containers-changed` for this engine (debounced), and every ~10 s while the
 * page is visible. Cancel goes through the profile's Stop (or `swarm:stop` for a job without a
 * profile), so the monitor and the profile card see it like any other stop.
 */
export class SlurmJobsState {
  items = $state<SlurmJobView[]>([]);
  loaded = $state(false);
  error = $state<AppErrorShape | null>(null);
  /** Jobs whose cancel is under way, by job id. */
  cancelling = $state<Record<string, boolean>>({});
  /** The last failed cancel's error per job id, until the next try. */
  cancelErrors = $state<Record<string, AppErrorShape>>({});
  private latestRequest = 0;
  private debounce: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
    private readonly pollMs = SLURM_JOBS_POLL_MS,
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

  /** Loads now, on change events and on a timer while the document is visible; returns the teardown. */
  start(): () => void {
    void this.load();
    const off = this.api.events.on('swarm:containers-changed', ({ engineId }) => {
      if (engineId !== this.engineId) return;
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => void this.load(), REFETCH_DEBOUNCE_MS);
    });
    const visible = () => typeof document === 'undefined' || document.visibilityState !== 'hidden';
    const timer = setInterval(() => {
      if (visible()) void this.load();
    }, this.pollMs);
    // Back from a hidden window: what it shows may be minutes old.
    const onVisibility = () => {
      if (visible()) void this.load();
    };
    if (typeof document !== 'undefined') document.addEventListener('visibilitychange', onVisibility);
    return () => {
      off();
      clearTimeout(this.debounce);
      clearInterval(timer);
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
}
