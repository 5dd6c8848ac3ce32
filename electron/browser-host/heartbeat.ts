import type { WebSocket } from 'ws';

/**
 * A message every `intervalMs` on the event sockets that asked for it (`?heartbeat=1`, the page's own), so a page
 * can tell a backend that stopped answering (frozen, a dead link that does not close) from one with nothing to say:
 * it calls the backend lost after a few silent intervals. Runs only while such a socket is open: an app with no page
 * open pays nothing. The message has no `channel`, so it is never taken for an event.
 */
export class Heartbeat {
  private readonly sockets = new Set<WebSocket>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly intervalMs: number) {}

  add(ws: WebSocket): void {
    this.sockets.add(ws);
    const remove = () => this.remove(ws);
    ws.once('close', remove);
    ws.once('error', remove);
    // One at once: the page's watch is armed from the start, not a second later.
    this.send(ws, JSON.stringify({ heartbeat: Date.now() }));
    if (this.timer) return;
    this.timer = setInterval(() => this.beat(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sockets.clear();
  }

  private remove(ws: WebSocket): void {
    this.sockets.delete(ws);
    if (this.sockets.size === 0) this.stop();
  }

  private beat(): void {
    const message = JSON.stringify({ heartbeat: Date.now() });
    for (const ws of this.sockets) this.send(ws, message);
  }

  private send(ws: WebSocket, message: string): void {
    if (ws.readyState === ws.OPEN) ws.send(message);
  }
}
