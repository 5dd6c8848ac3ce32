import type { EventChannel, InvokeChannel } from '../../../../electron/shared/contract';
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

/**
 * Snapshot reads whose event carries the whole snapshot again on every change: an answer of the
 * replay's window stays current until that event comes, so it may be handed to one later read.
 */
export const HANDED_ON: Readonly<Partial<Record<InvokeChannel, EventChannel>>> = {
  'wizard:state': 'wizard:changed',
  'vault:state': 'vault:changed',
  'secrets:list': 'secrets:changed',
  'settings:get': 'settings:changed',
  'servers:list': 'servers:changed',
  'profiles:list': 'profiles:changed',
  'dryrun:view': 'dryrun:changed',
  'updates:state': 'updates:state-changed',
};

/** The events that carry a whole snapshot again (each HANDED_ON read's): the newest one received is the current state. */
const SNAPSHOT_EVENTS: ReadonlySet<string> = new Set(Object.values(HANDED_ON));

/** A handed-on answer older than this is not used: the page that mounts after the landing does so within seconds. */
export const HAND_ON_MS = 10_000;

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
  /** Answers of the last window that a later read may take once (HANDED_ON), with when the window closed. */
  private handedOn = new Map<string, { channel: InvokeChannel; answer: Promise<Result<unknown>>; at: number }>();
  /** Events that came while the window was open: an answer shared in it may predate them. */
  private windowEvents = new Set<string>();

  constructor(private readonly send: Send) {}

  /** The event socket was asked to open: calls wait for its first open. */
  socketRequested(): void {
    if (this.firstOpenSettled || this.holding) return;
    this.holding = true;
    globalThis.setTimeout(() => this.firstOpenFailed(), FIRST_OPEN_WAIT_MS);
  }

  call(channel: InvokeChannel, request: unknown): Promise<Result<unknown>> {
    if (this.holding) return new Promise((resolve) => this.waiting.push(() => resolve(this.call(channel, request))));
    const key = `${channel} ${JSON.stringify(request ?? {})}`;
    const handed = this.handedOn.get(key);
    if (handed) {
      this.handedOn.delete(key);
      if (Date.now() - handed.at <= HAND_ON_MS) return handed.answer;
    }
    if (!this.window || !SHAREABLE.has(channel)) return this.send(channel, request);
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
    this.windowEvents = new Set();
    // Events may have been missed while the socket was down: nothing of an earlier open is handed on.
    this.handedOn = new Map();
    this.firstOpenSettled = true;
    this.holding = false;
  }

  /** Lets the waiting reads go; in the window they join the replay's requests. */
  release(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  /**
   * The replay of this open has been dispatched: later reads are fresh requests again, except one
   * read of each HANDED_ON snapshot, which takes the window's answer until its event says it changed.
   * A page shown after the landing decided (the wizard of a new user) mounts after the replay: without
   * this it read the wizard's, the vault's and the secrets' state a second time (issue 32).
   */
  replayed(): void {
    const window = this.window;
    this.window = null;
    this.handedOn = new Map();
    const at = Date.now();
    for (const [key, answer] of window ?? []) {
      const channel = key.slice(0, key.indexOf(' ')) as InvokeChannel;
      const event = HANDED_ON[channel];
      if (event && !this.windowEvents.has(event)) this.handedOn.set(key, { channel, answer, at });
    }
  }

  /**
   * A whole snapshot's event came over the socket since this open: it is at least as new as the replay's answer of that
   * snapshot (whose request may have been read before the change), so the replay must not dispatch the answer after it.
   */
  snapshotEventCame(event: string): boolean {
    return SNAPSHOT_EVENTS.has(event) && this.windowEvents.has(event);
  }

  /** An event came over the socket: a handed-on answer of the snapshot it replaces is out of date. */
  eventArrived(event: string): void {
    if (this.window) this.windowEvents.add(event);
    for (const [key, handed] of this.handedOn) if (HANDED_ON[handed.channel] === event) this.handedOn.delete(key);
  }

  /** The first open failed or is slow: nothing waits for it any longer. */
  firstOpenFailed(): void {
    if (this.firstOpenSettled) return;
    this.firstOpenSettled = true;
    this.holding = false;
    this.release();
  }
}
