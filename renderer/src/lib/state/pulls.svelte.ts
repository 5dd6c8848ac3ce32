import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { PullView } from '../../../../electron/shared/schemas-profiles';

/** Image pulls of one engine: the newest per image, live from `images:pull-progress`; start and cancel. */
export class PullsState {
  /** By image reference: the newest pull of it on this engine. */
  byImage = $state<Record<string, PullView>>({});
  error = $state<AppErrorShape | null>(null);

  constructor(
    private readonly api: ExposedApi,
    readonly engineId: string,
  ) {}

  start(): () => void {
    void this.api.images.pulls().then((result) => {
      if (result.ok) for (const pull of result.value) this.take(pull);
    });
    return this.api.events.on('images:pull-progress', (pull) => this.take(pull));
  }

  /** True while a pull of `image` runs on this engine. */
  active(image: string): boolean {
    const pull = this.byImage[image];
    return pull !== undefined && !['done', 'failed', 'cancelled'].includes(pull.phase);
  }

  async pull(image: string): Promise<PullView | null> {
    this.error = null;
    const result = await this.api.images.pull({ engineId: this.engineId, image });
    if (!result.ok) {
      this.error = result.error;
      return null;
    }
    this.take(result.value);
    return result.value;
  }

  async cancel(image: string): Promise<void> {
    const pull = this.byImage[image];
    if (!pull) return;
    const result = await this.api.images.cancelPull({ pullId: pull.pullId });
    if (result.ok) this.take(result.value);
    else this.error = result.error;
  }

  private take(pull: PullView): void {
    if (pull.engineId !== this.engineId) return;
    const current = this.byImage[pull.image];
    // Events of an older pull of the same image must not replace the newer one.
    if (current && current.pullId !== pull.pullId && current.startedAt > pull.startedAt) return;
    // The same pull seen out of order: in the browser host the answer of images:pull (HTTP) can
    // arrive after progress events (WebSocket), even after the last one of a quick pull. A pull only
    // moves forward, so an earlier phase never replaces a later one, and nothing replaces its end.
    if (current && current.pullId === pull.pullId && phaseRank(pull) < phaseRank(current)) return;
    this.byImage[pull.image] = pull;
  }
}

function phaseRank(pull: PullView): number {
  return { resolving: 0, downloading: 1, extracting: 2, done: 3, failed: 3, cancelled: 3 }[pull.phase];
}
