/**
 * What each open page (an Electron window, a browser tab of the browser host) holds, for a while.
 * A page renews what it holds every `PAGE_LEASE_RENEW_MS` (electron/shared/schemas-watch.ts); a
 * page that stops renewing (closed, crashed, its tab frozen, its backend connection lost) lets go
 * when the lease runs out, so a page that disconnects counts as gone without a per-transport hook.
 */
export class PageLeases {
  /** page id → key → when its lease ends (ms). */
  private readonly pages = new Map<string, Map<string, NodeJS.Timeout>>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly leaseMs: number) {}

  /** `pageId` holds `key` (for the next `leaseMs`), or lets go of it. */
  set(pageId: string, key: string, held: boolean): void {
    const keys = this.pages.get(pageId);
    const old = keys?.get(key);
    if (old) clearTimeout(old);
    if (!held) {
      if (!old) return;
      keys!.delete(key);
      if (keys!.size === 0) this.pages.delete(pageId);
      this.changed();
      return;
    }
    const timer = setTimeout(() => this.set(pageId, key, false), this.leaseMs);
    // A lease must not keep the backend process alive on its own.
    timer.unref?.();
    const pageKeys = keys ?? new Map<string, NodeJS.Timeout>();
    pageKeys.set(key, timer);
    this.pages.set(pageId, pageKeys);
    if (!old) this.changed();
  }

  /** Whether any page holds `key`. */
  has(key: string): boolean {
    for (const keys of this.pages.values()) if (keys.has(key)) return true;
    return false;
  }

  /** Calls `listener` whenever a page takes or lets go of a key (renewals are no change); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    for (const keys of this.pages.values()) for (const timer of keys.values()) clearTimeout(timer);
    this.pages.clear();
    this.listeners.clear();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // One listener's bug must not keep the others from hearing it.
      }
    }
  }
}
