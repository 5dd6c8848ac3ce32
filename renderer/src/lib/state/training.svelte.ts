import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { TrainingSeries, TrainingView } from '../../../../electron/shared/schemas-profiles';
import { PAGE_LEASE_RENEW_MS } from '../../../../electron/shared/schemas-watch';
import { PAGE_ID } from '../page-id';

/**
 * The training picture of one swarm server: its live view (from `training:view`, then every
 * `training:changed` for it) and the current run's series, re-read when a step closes, the status
 * changes or a new run begins (the backend sends views, not series). While started it tells the
 * backend this page shows the dashboard (`training:interest`, renewed): the pool information
 * (rewards, batch fill, episodes) is asked of the server only then.
 */
export class TrainingState {
  view = $state<TrainingView | null>(null);
  series = $state<TrainingSeries | null>(null);
  error = $state<AppErrorShape | null>(null);
  loaded = $state(false);
  private seriesRequest = 0;

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
    readonly containerId: string,
  ) {}

  private mine(view: { engineId: string; containerId: string }): boolean {
    return view.engineId === this.engineId && view.containerId === this.containerId;
  }

  start(): () => void {
    const stopInterest = this.showInterest();
    const offChanged = this.api.events.on('training:changed', (view) => {
      if (!this.mine(view)) return;
      const before = this.view;
      this.view = view;
      this.error = null;
      this.loaded = true;
      if (!before || before.runId !== view.runId || before.globalStep !== view.globalStep || before.engineStatus !== view.engineStatus) {
        void this.loadSeries();
      }
    });
    void this.api.training.view({ engineId: this.engineId, containerId: this.containerId }).then((result) => {
      this.loaded = true;
      if (!result.ok) {
        // Not watched (stopped): the series below may still show the last run.
        if (!this.view) this.error = result.error;
        return;
      }
      // An event may have overtaken this answer: keep the newer view.
      if (!this.view || this.view.checkedAt < result.value.checkedAt) this.view = result.value;
    });
    void this.loadSeries();
    return () => {
      offChanged();
      stopInterest();
    };
  }

  /** Says this page shows the dashboard, renewed until the returned function withdraws it. */
  private showInterest(): () => void {
    const say = (shown: boolean): void =>
      void this.api.training.interest({ pageId: PAGE_ID, engineId: this.engineId, containerId: this.containerId, shown }).catch(() => undefined);
    say(true);
    const renew = setInterval(() => say(true), PAGE_LEASE_RENEW_MS);
    return () => {
      clearInterval(renew);
      say(false);
    };
  }

  /** Newest request wins: a slow answer must not replace a newer series. */
  async loadSeries(): Promise<void> {
    const request = ++this.seriesRequest;
    const result = await this.api.training.series({ engineId: this.engineId, containerId: this.containerId });
    if (request !== this.seriesRequest || !result.ok) return;
    this.series = result.value;
  }
}
