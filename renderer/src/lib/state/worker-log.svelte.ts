import type { ExposedApi } from '../../../../electron/shared/api';

/** One worker's log, followed like a job log: read on from the last line on every `workers:log-appended` of it. */
export class WorkerLogFollower {
  lines = $state<{ n: number; text: string }[]>([]);
  private total = 0;
  private reading = false;

  constructor(
    private readonly api: ExposedApi,
    private readonly poolId: string,
    private readonly index: number,
  ) {}

  /** Reads what is there and follows; returns the unsubscribe. */
  start(): () => void {
    void this.more();
    return this.api.events.on('workers:log-appended', (event) => {
      if (event.poolId === this.poolId && event.index === this.index && event.total > this.total) void this.more();
    });
  }

  private async more(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const result = await this.api.workers.log({ poolId: this.poolId, index: this.index, from: this.total, limit: 500 });
      if (result.ok && result.value.lines.length > 0) {
        // The last 1,000 lines: a worker's log may run for days.
        this.lines = [...this.lines, ...result.value.lines].slice(-1000);
        this.total = result.value.lines.at(-1)!.n + 1;
      }
    } finally {
      this.reading = false;
    }
  }
}
