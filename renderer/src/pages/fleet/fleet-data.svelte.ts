import type { ExposedApi } from '../../../../electron/shared/api';
import type { EngineSummary } from '../../../../electron/shared/schemas';
import type { GpuSample } from '../../../../electron/shared/schemas-fleet';
import type { TrainingPoint, TrainingView } from '../../../../electron/shared/schemas-profiles';
import type { SlurmJobView } from '../../../../electron/shared/schemas-slurm';
import { PAGE_LEASE_RENEW_MS } from '../../../../electron/shared/schemas-watch';
import { serverKey, type ServerState } from '../../../../electron/shared/server-state';
import { PAGE_ID } from '../../lib/page-id';
import type { SwarmStatuses } from '../../lib/state/swarm-statuses.svelte';

/** A Slurm login node's jobs are read again at most this often on its servers' changes (the read costs the controller nothing: the queue poll's answer). */
const SLURM_READ_MS = 5_000;

/**
 * What the fleet home shows beside the server states (which come from the app-wide `SwarmStatuses`, not
 * fetched here): the GPU samples, the training monitor's views and series, and Slurm's time left. It only reads
 * what the backend already has: no poller. It tells the backend the home is shown (a lease it renews), so the
 * GPUs are sampled every 10 s instead of every 60 s while it is.
 */
export class FleetData {
  engines = $state<EngineSummary[]>([]);
  gpus = $state<Record<string, GpuSample>>({});
  views = $state<Record<string, TrainingView>>({});
  series = $state<Record<string, TrainingPoint[]>>({});
  slurmJobs = $state<Record<string, SlurmJobView>>({});
  /** The price per GPU-hour the user set for an engine on the Runs page (by engine id), read when the home opens. */
  rates = $state<Record<string, { perGpuHour: number; currency: string }>>({});
  // Bookkeeping only (nothing renders from them): plain records, not state.
  private readonly seriesSteps: Record<string, number | null> = {};
  private readonly slurmReadAt: Record<string, number> = {};

  constructor(
    private readonly api: ExposedApi,
    private readonly statuses: SwarmStatuses,
  ) {}

  start(): () => void {
    const offs = [
      this.api.events.on('gpus:sampled', (sample) => (this.gpus[sample.key] = sample)),
      this.api.events.on('training:changed', (view) => this.putView(view)),
      this.api.events.on('engines:changed', () => void this.loadEngines()),
      this.api.events.on('fleet:state-changed', (state) => this.stateChanged(state)),
    ];
    void this.loadEngines();
    void this.api.gpus.samples().then((r) => {
      if (r.ok) for (const sample of r.value) this.gpus[sample.key] = sample;
    });
    void this.api.training.views().then((r) => {
      if (r.ok) for (const view of r.value) this.putView(view);
    });
    void this.api.runs.settings().then((r) => {
      if (r.ok) this.rates = Object.fromEntries(r.value.rates.map((rate) => [rate.engineId, { perGpuHour: rate.perGpuHour, currency: rate.currency }]));
    });
    for (const state of Object.values(this.statuses.servers)) this.stateChanged(state);
    const stopShown = this.reportShown();
    return () => {
      for (const off of offs) off();
      stopShown();
    };
  }

  /** The GPUs of `samples` as a list, for lookups. */
  samples(): GpuSample[] {
    return Object.values(this.gpus);
  }

  private async loadEngines(): Promise<void> {
    const result = await this.api.engines.list();
    if (result.ok) this.engines = result.value;
  }

  private putView(view: TrainingView): void {
    const key = serverKey(view.engineId, view.containerId);
    this.views[key] = view;
    // A new step closed (or a new run began): its point is in the series now.
    if (!(key in this.seriesSteps) || this.seriesSteps[key] !== view.globalStep) {
      this.seriesSteps[key] = view.globalStep;
      void this.loadSeries(view.engineId, view.containerId);
    }
  }

  private async loadSeries(engineId: string, containerId: string): Promise<void> {
    const result = await this.api.training.series({ engineId, containerId });
    if (result.ok) this.series[serverKey(engineId, containerId)] = result.value.points;
  }

  private stateChanged(state: ServerState): void {
    if (!this.series[state.key] && state.container.startedAt) void this.loadSeries(state.engineId, state.containerId);
    if (state.engineKind !== 'slurm') return;
    const last = this.slurmReadAt[state.engineId] ?? 0;
    if (Date.now() - last < SLURM_READ_MS) return;
    this.slurmReadAt[state.engineId] = Date.now();
    void this.api.slurm.jobs({ engineId: state.engineId }).then((r) => {
      if (r.ok) for (const job of r.value) this.slurmJobs[serverKey(job.engineId, job.id)] = job;
    });
  }

  /** `gpus:home-shown` now, renewed while the document is visible, let go when the home closes or the page hides. */
  private reportShown(): () => void {
    const visible = () => typeof document === 'undefined' || document.visibilityState !== 'hidden';
    const report = (shown: boolean) => void this.api.gpus.homeShown({ pageId: PAGE_ID, shown }).catch(() => undefined);
    const onChange = () => report(visible());
    report(visible());
    const renew = setInterval(() => {
      if (visible()) report(true);
    }, PAGE_LEASE_RENEW_MS);
    document.addEventListener('visibilitychange', onChange);
    return () => {
      clearInterval(renew);
      document.removeEventListener('visibilitychange', onChange);
      report(false);
    };
  }
}
