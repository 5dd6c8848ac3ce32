/** Why the history file could not be written: the errno code and the file (the renderer words it). */
export interface HistorySaveFailure {
  code: string;
  file: string;
}

/** How often a history that could not be written is tried again (also at every job change). */
export const HISTORY_RETRY_MS = 30_000;

/**
 * Which runs are not on disk yet, and why. A run that ends while the disk is full must not be
 * reported "succeeded" and then be missing after a restart without a word: its view carries
 * `notSaved` until a write that holds it succeeds, the record stays in memory, and the write is
 * tried again on a timer as well as at the next change.
 */
export class HistorySaveState {
  private readonly unsaved = new Set<string>();
  private failure: HistorySaveFailure | null = null;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly tryAgain: () => void,
    private readonly retryMs = HISTORY_RETRY_MS,
  ) {}

  /** The run changed: it is unsaved until a write that carries it succeeds. */
  touch(jobId: string): void {
    this.unsaved.add(jobId);
  }

  /** The run was dropped from the history (pruned). */
  forget(jobId: string): void {
    this.unsaved.delete(jobId);
  }

  of(jobId: string): HistorySaveFailure | null {
    return this.failure !== null && this.unsaved.has(jobId) ? { ...this.failure } : null;
  }

  /** What a write that starts now carries (its text is made synchronously when it starts). */
  carried(): string[] {
    return [...this.unsaved];
  }

  /** A write succeeded; returns the runs whose view changes (they were shown as not saved). */
  saved(carried: readonly string[]): string[] {
    const shown = this.failure !== null ? [...this.unsaved] : [];
    for (const id of carried) this.unsaved.delete(id);
    this.failure = null;
    this.stopRetry();
    return shown;
  }

  /** A write failed; returns the runs whose view changes (now shown as not saved). */
  failed(carried: readonly string[], failure: HistorySaveFailure): string[] {
    const changed = this.failure === null || this.failure.code !== failure.code ? [...this.unsaved] : carried.filter((id) => this.unsaved.has(id));
    this.failure = failure;
    if (this.retry === null) {
      this.retry = setTimeout(() => {
        this.retry = null;
        this.tryAgain();
      }, this.retryMs);
      this.retry.unref?.();
    }
    return changed;
  }

  dispose(): void {
    this.stopRetry();
  }

  private stopRetry(): void {
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
  }
}
