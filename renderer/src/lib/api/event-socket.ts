/** The part of the browser WebSocket the event client uses; tests provide a fake with the same shape. */
export interface WebSocketLike {
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  close(): void;
}

interface Timers {
  createWebSocket: (url: string) => WebSocketLike;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const FIRST_RETRY_MS = 500;
/** A restarted backend is found within 5 s (it was 10 s, and the page said nothing meanwhile). */
export const MAX_RETRY_MS = 5_000;

/**
 * A socket whose host sends heartbeats (the browser host's, every second) and then says nothing this long is taken
 * as lost: a frozen backend, or a link that died without a close. A host that never sent one is never called silent.
 */
export const SILENCE_MS = 3_000;

/** Why the socket is not open, for whoever shows the link: whether it had opened, and when it tries again. */
export interface SocketClosed {
  /** It had been open (a loss), not a try that failed. */
  wasOpen: boolean;
  retryInMs: number;
}

/**
 * One WebSocket for all push events, opened on the first subscription and reopened with
 * exponential backoff whenever it closes (backend restart, laptop sleep). The delay resets once a
 * connection opens, so a flaky network does not leave the UI waiting ten seconds forever.
 */
export class EventSocket {
  private socket: WebSocketLike | null = null;
  private retryHandle: unknown = null;
  private silenceHandle: unknown = null;
  private delay = FIRST_RETRY_MS;

  /**
   * `onOpen` runs on every successful open, the first one included: events sent before the socket
   * was connected (or while it was down) are gone, so the caller refreshes what it shows instead of
   * trusting a snapshot taken before the socket was listening.
   */
  constructor(
    private url: string,
    private readonly host: Timers,
    private readonly onMessage: (message: unknown) => void,
    private readonly onOpen: () => void = () => {},
    private readonly onClosed: (closed: SocketClosed) => void = () => {},
  ) {}

  /** The address for the next open (a new token); the open socket, if any, is left alone. */
  setUrl(url: string): void {
    this.url = url;
  }

  /**
   * Opens a new socket now, whatever the backoff said: a new token arrived, or the user asked. An open socket is
   * replaced (it may carry an old token that the next restart of the host would refuse).
   */
  reconnectNow(): void {
    this.quiet();
    if (this.retryHandle !== null) this.host.clearTimeout(this.retryHandle);
    this.retryHandle = null;
    this.delay = FIRST_RETRY_MS;
    const old = this.socket;
    this.socket = null;
    old?.close();
    this.open();
  }

  ensureOpen(): void {
    if (this.socket || this.retryHandle !== null) return;
    this.open();
  }

  private open(): void {
    this.retryHandle = null;
    let socket: WebSocketLike;
    try {
      socket = this.host.createWebSocket(this.url);
    } catch {
      this.onClosed({ wasOpen: false, retryInMs: this.scheduleRetry() });
      return;
    }
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.delay = FIRST_RETRY_MS;
      this.onOpen();
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let message: unknown;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      // Any message shows the host is alive; its heartbeats arm the watch in the first place.
      if (this.silenceHandle !== null || isHeartbeat(message)) this.watchSilence(socket);
      if (isHeartbeat(message)) return;
      this.onMessage(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.quiet();
      this.socket = null;
      this.onClosed({ wasOpen: opened, retryInMs: this.scheduleRetry() });
    };
    // Errors are always followed by a close event, which is where reconnection happens.
    socket.onerror = () => {};
  }

  private watchSilence(socket: WebSocketLike): void {
    this.quiet();
    this.silenceHandle = this.host.setTimeout(() => {
      this.silenceHandle = null;
      if (this.socket !== socket) return;
      // Gone quiet: give it up (its close event is then ignored) and try again as after a close.
      this.socket = null;
      socket.close();
      this.onClosed({ wasOpen: true, retryInMs: this.scheduleRetry() });
    }, SILENCE_MS);
  }

  private quiet(): void {
    if (this.silenceHandle !== null) this.host.clearTimeout(this.silenceHandle);
    this.silenceHandle = null;
  }

  /** Returns the delay until the next try. */
  private scheduleRetry(): number {
    const delay = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_RETRY_MS);
    this.retryHandle = this.host.setTimeout(() => this.open(), delay);
    return delay;
  }
}

function isHeartbeat(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'heartbeat' in message && !('channel' in message);
}
