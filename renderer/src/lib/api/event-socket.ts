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
const MAX_RETRY_MS = 10_000;

/**
 * One WebSocket for all push events, opened on the first subscription and reopened with
 * exponential backoff whenever it closes (backend restart, laptop sleep). The delay resets once a
 * connection opens, so a flaky network does not leave the UI waiting ten seconds forever.
 */
export class EventSocket {
  private socket: WebSocketLike | null = null;
  private retryHandle: unknown = null;
  private delay = FIRST_RETRY_MS;

  /**
   * `onOpen` runs on every successful open, the first one included: events sent before the socket
   * was connected (or while it was down) are gone, so the caller refreshes what it shows instead of
   * trusting a snapshot taken before the socket was listening.
   */
  constructor(
    private readonly url: string,
    private readonly host: Timers,
    private readonly onMessage: (message: unknown) => void,
    private readonly onOpen: () => void = () => {},
  ) {}

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
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
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
      this.onMessage(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.scheduleRetry();
    };
    // Errors are always followed by a close event, which is where reconnection happens.
    socket.onerror = () => {};
  }

  private scheduleRetry(): void {
    const delay = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_RETRY_MS);
    this.retryHandle = this.host.setTimeout(() => this.open(), delay);
  }
}
