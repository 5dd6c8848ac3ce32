/**
 * What the page knows about its link to the browser host (`npm run web`), as a small state machine the transport
 * drives and the banner shows. Under Electron there is none: IPC does not drop.
 *
 *   connecting ──open──▶ connected ──close──▶ lost ──open──▶ connected (recovered: the page refetched its state)
 *        └─────close (first try failed)──────────┘  └─ token refused (the host answers 401: it restarted with a new
 *                                                      token; a new `#token=` in the address ends it)
 */
export type BackendLink =
  | { kind: 'connecting' }
  /** `recovered`: back after a loss, and the page's state was fetched again. */
  | { kind: 'connected'; recovered: boolean }
  /** `since`: epoch ms of the loss; `retryInMs`: until the next try (null while one is under way). */
  | { kind: 'lost'; since: number; attempts: number; retryInMs: number | null; tokenRefused: boolean };

export class BackendLinkMachine {
  private current: BackendLink = { kind: 'connecting' };
  private readonly listeners = new Set<(link: BackendLink) => void>();
  private wasLost = false;

  /** Runs on "Retry now": the transport's immediate reconnect (set by the transport that owns the socket). */
  reconnect: () => void = () => {};

  constructor(private readonly now: () => number = Date.now) {}

  get link(): BackendLink {
    return this.current;
  }

  /** Calls `listener` now and on every change; returns the unsubscribe. */
  subscribe(listener: (link: BackendLink) => void): () => void {
    this.listeners.add(listener);
    listener(this.current);
    return () => this.listeners.delete(listener);
  }

  /** The event socket opened. Still `recovered: false` after a loss until `caughtUp` (the state refetch) is done. */
  opened(): void {
    this.set({ kind: 'connected', recovered: false });
  }

  /** The state was fetched again after an open: after a loss, the page now shows current data, and says so. */
  caughtUp(): void {
    if (this.current.kind !== 'connected' || !this.wasLost) return;
    this.wasLost = false;
    this.set({ kind: 'connected', recovered: true });
  }

  /** The socket closed (or a try to open it failed); the next try is `retryInMs` away. */
  closed(retryInMs: number): void {
    this.wasLost = true;
    const lost = this.current.kind === 'lost' ? this.current : null;
    this.set({
      kind: 'lost',
      since: lost?.since ?? this.now(),
      attempts: (lost?.attempts ?? 0) + 1,
      retryInMs,
      tokenRefused: lost?.tokenRefused ?? false,
    });
  }

  /** The host is up but refuses this page's token (HTTP 401): only a new `#token=` helps. */
  tokenRefused(): void {
    if (this.current.kind !== 'lost' || this.current.tokenRefused) return;
    this.set({ ...this.current, tokenRefused: true });
  }

  /** A new token came from the address: the refusal no longer holds; a try starts now. */
  tokenChanged(): void {
    if (this.current.kind === 'lost') this.set({ ...this.current, tokenRefused: false, retryInMs: null });
  }

  /** "Retry now": a try starts at once (the socket's backoff starts over). */
  retryNow(): void {
    if (this.current.kind === 'lost') this.set({ ...this.current, retryInMs: null });
    this.reconnect();
  }

  private set(next: BackendLink): void {
    this.current = next;
    for (const listener of [...this.listeners]) listener(next);
  }
}
