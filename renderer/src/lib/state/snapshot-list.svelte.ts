import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { Result } from '../../../../electron/shared/result';

/**
 * A list the backend sends as snapshots (a `*:list` call, then a `*:changed` event with the whole
 * list after each change) plus action answers that carry one item. The SSH servers and the swarm
 * profiles both follow it; subclasses add their actions and per-item state.
 */
export abstract class SnapshotList<V extends { profile: { id: string } }> {
  items = $state<V[]>([]);
  loaded = $state(false);
  loadError = $state<AppErrorShape | null>(null);
  /** Bumped by every snapshot event: an answer older than an event must not win. */
  protected snapshots = 0;

  protected abstract subscribe(listener: (views: V[]) => void): () => void;
  protected abstract fetch(): Promise<Result<V[]>>;

  /** Which items of a snapshot this list shows (default: all). */
  protected keeps(_view: V): boolean {
    return true;
  }

  /** Per-item state (errors, reports) of items no longer listed would show on nothing: drop it. */
  protected forgetMissing(_ids: readonly string[]): void {}

  /** Loads the list and follows its snapshot event; returns the teardown. */
  start(): () => void {
    const off = this.subscribe((views) => {
      this.snapshots += 1;
      this.apply(views);
    });
    void this.load();
    return off;
  }

  async load(): Promise<void> {
    const seen = this.snapshots;
    const result = await this.fetch();
    // An event that arrived while this request ran is newer than its answer.
    if (seen !== this.snapshots) return;
    if (result.ok) {
      this.loadError = null;
      this.apply(result.value);
    } else {
      this.loadError = result.error;
      this.loaded = true;
    }
  }

  find(id: string): V | undefined {
    return this.items.find((view) => view.profile.id === id);
  }

  protected apply(views: V[]): void {
    this.items = views.filter((view) => this.keeps(view));
    this.loaded = true;
    this.forgetMissing(this.items.map((view) => view.profile.id));
  }

  /**
   * Puts an action's answer into the list, unless a snapshot event arrived after the request was
   * sent: the item may have moved on (a link up → degraded) and the event is the newer word.
   */
  protected upsert(view: V, snapshotsBefore: number): void {
    if (!this.keeps(view)) {
      this.items = this.items.filter((item) => item.profile.id !== view.profile.id);
      return;
    }
    if (snapshotsBefore !== this.snapshots) return;
    const index = this.items.findIndex((item) => item.profile.id === view.profile.id);
    if (index === -1) this.items = [...this.items, view];
    else this.items[index] = view;
  }
}
