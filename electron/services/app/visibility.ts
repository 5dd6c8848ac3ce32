import { PAGE_LEASE_MS } from '../../shared/schemas-watch';
import { PageLeases } from './page-leases';

/** Whether any window shows the app: pollers slow down while none does. */
export interface Visibility {
  shown(): boolean;
  /** Calls `listener` with the new answer when it changes; returns the unsubscribe. */
  onChange(listener: (shown: boolean) => void): () => void;
}

const SHOWN = 'shown';

/**
 * Each page reports whether it is shown (`app:visibility`: the document is visible); the app is
 * shown while any page is. A page that stops reporting (closed, disconnected) counts as hidden once
 * its lease runs out (page-leases.ts). Nothing shown at start: a backend without a window is hidden.
 */
export class PageVisibility implements Visibility {
  private readonly leases: PageLeases;
  private last = false;
  private readonly listeners = new Set<(shown: boolean) => void>();

  constructor(leaseMs = PAGE_LEASE_MS) {
    this.leases = new PageLeases(leaseMs);
    this.leases.onChange(() => {
      const now = this.shown();
      if (now === this.last) return;
      this.last = now;
      for (const listener of [...this.listeners]) {
        try {
          listener(now);
        } catch {
          // One poller's bug must not keep the others at the wrong pace.
        }
      }
    });
  }

  /** A page says whether it is shown; answers whether the app is shown now (by any page). */
  report(pageId: string, shown: boolean): boolean {
    this.leases.set(pageId, SHOWN, shown);
    return this.shown();
  }

  shown(): boolean {
    return this.leases.has(SHOWN);
  }

  onChange(listener: (shown: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.leases.dispose();
    this.listeners.clear();
  }
}

/** For tools and tests that run pollers without pages: always shown. */
export const ALWAYS_SHOWN: Visibility = { shown: () => true, onChange: () => () => undefined };
