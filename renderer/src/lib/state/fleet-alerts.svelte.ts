import type { ExposedApi } from '../../../../electron/shared/api';
import type { FleetAlert } from '../../../../electron/shared/schemas-fleet';

const ORDER = { open: 0, acknowledged: 1, resolved: 2 } as const;

/** The fleet's alerts from `alerts:list` and `alerts:changed`; components read `shown` and call `acknowledge`. */
export class FleetAlerts {
  alerts = $state<FleetAlert[]>([]);
  /** Open and acknowledged first, newest first within each, then the last resolved; at most 20. */
  readonly shown = $derived([...this.alerts].sort((a, b) => ORDER[a.state] - ORDER[b.state] || b.openedAt.localeCompare(a.openedAt)).slice(0, 20));

  constructor(private readonly api: ExposedApi) {}

  /**
   * Subscribes, then loads; returns the unsubscribe. An event carries the whole list, and in the browser
   * host it may arrive before an older list answered over HTTP: once an event came, the list is not taken.
   */
  start(): () => void {
    let eventCame = false;
    const off = this.api.events.on('alerts:changed', (list) => {
      eventCame = true;
      this.alerts = list;
    });
    void this.api.alerts.list().then((r) => {
      if (r.ok && !eventCame) this.alerts = r.value;
    });
    return off;
  }

  async acknowledge(id: string): Promise<void> {
    const result = await this.api.alerts.acknowledge({ id });
    if (result.ok) this.alerts = this.alerts.map((a) => (a.id === id ? result.value : a));
  }
}
