import type { InvokeChannel } from '../../../../electron/shared/contract';
import type { Result } from '../../../../electron/shared/result';
import { replayTable } from './replay';

/**
 * Reads that may share one request: every replayed snapshot, and the two per-engine reads the
 * replay's invalidations ask for again (`swarm:containers-changed` → `swarm:list`). Never a write:
 * two identical starts must both reach the backend.
 */
const SHAREABLE: ReadonlySet<InvokeChannel> = new Set<InvokeChannel>([...replayTable.map((row) => row.request), 'swarm:list', 'engines:health']);

/** A stuck connect (no open, no close) must not keep the page's first calls waiting longer than this. */
export const FIRST_OPEN_WAIT_MS = 3_000;

type Send = (channel: InvokeChannel, request: unknown) => Promise<Result<unknown>>;

/**
 * Each list once per page load (issue 35). On its socket's open the browser client fetches every
 * replayed snapshot (replay.ts); without this, the stores' own first fetches, that replay, and the
 * refetches its events trigger asked for the same lists two to four times.
 *   - Until the socket first opens, calls wait (a few ms on loopback), then go out after the open: every
 *     answer the page gets is newer than the open, so the first replay's "read again" events are not needed.
 *   - From an open until its replay has been dispatched, identical reads share one request: a read
 *     sent after the open already includes every change the replayed events stand for.
 * A first open that fails (or takes longer than FIRST_OPEN_WAIT_MS) lets the waiting reads go at once.
 */
export class SharedReads {
  private waiting: (() => void)[] = [];
  private holding = false;
  private firstOpenSettled = false;
  private window: Map<string, Promise<Result<unknown>>> | null = null;

  constructor(private readonly send: Send) {}

  /** The event socket was asked to open: calls wait for its first open. */
  socketRequested(): void {
    if (this.firstOpenSettled || this.holding) return;
    this.holding = true;
    globalThis.setTimeout(() => this.firstOpenFailed(), FIRST_OPEN_WAIT_MS);
  }

  call(channel: InvokeChannel, request: unknown): Promise<Result<unknown>> {
    if (this.holding) return new Promise((resolve) => this.waiting.push(() => resolve(this.call(channel, request))));
    if (!this.window || !SHAREABLE.has(channel)) return this.send(channel, request);
    const key = `${channel} ${JSON.stringify(request ?? {})}`;
    let shared = this.window.get(key);
    if (!shared) {
      shared = this.send(channel, request);
      this.window.set(key, shared);
    }
    return shared;
  }

  /** True until the first open (or its failure): no call has gone out yet. */
  get beforeFirstOpen(): boolean {
    return !this.firstOpenSettled;
  }

  /** The socket opened: reads from now on share, until `replayed`. Call `release` after starting the replay's reads. */
  opened(): void {
    this.window = new Map();
    this.firstOpenSettled = true;
    this.holding = false;
  }

  /** Lets the waiting reads go; in the window they join the replay's requests. */
  release(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  /** The replay of this open has been dispatched: later reads are fresh requests again. */
  replayed(): void {
    this.window = null;
  }

  /** The first open failed or is slow: nothing waits for it any longer. */
  firstOpenFailed(): void {
    if (this.firstOpenSettled) return;
    this.firstOpenSettled = true;
    this.holding = false;
    this.release();
  }
}
