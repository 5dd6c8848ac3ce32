import type { Socket } from 'node:net';

export interface ConnectionGuardLimits {
  /** Connections that have not shown the token yet, at once; past it the oldest one is closed. */
  maxUnauthenticated: number;
  /** A connection that has not shown the token must send its first request's headers within this time. */
  unauthenticatedHeadersTimeoutMs: number;
}

interface Unauthenticated {
  /** A request is being answered on it: closed only when every other unauthenticated one is busy too. */
  busy: boolean;
  timer: NodeJS.Timeout | null;
}

/**
 * Keeps idle or slow local sockets from locking the user out of the browser host. A plain cap on
 * connections (Node's maxConnections) refuses newcomers, so 64 slow sockets kept a real tab out, and
 * an attacker who reopens them kept it out for good. Here only connections that have not shown the
 * token count against a small cap, and a newcomer is always let in: the oldest unauthenticated
 * connection is closed to make room, idle ones before ones being answered. A browser sends its
 * request at once, so its connection is the newest and busy while it is served; sockets that hold
 * a connection without finishing a request go first, and go anyway after a short header deadline.
 * A connection that showed the token leaves the count for good (it is our page), and an event
 * WebSocket leaves the tracking altogether. Which socket is which is all this keeps: no token.
 */
export class ConnectionGuard {
  /** In arrival order (a Map iterates in insertion order): the first entry is the oldest. */
  private readonly unauthenticated = new Map<Socket, Unauthenticated>();
  private readonly authenticated = new Set<Socket>();

  constructor(private readonly limits: ConnectionGuardLimits) {}

  /** A new TCP connection (the server's 'connection' event). */
  admit(socket: Socket): void {
    const timer = setTimeout(() => socket.destroy(), this.limits.unauthenticatedHeadersTimeoutMs);
    timer.unref();
    this.unauthenticated.set(socket, { busy: false, timer });
    socket.once('close', () => this.forget(socket));
    this.makeRoom(socket);
  }

  /** A request's headers arrived on `socket`; `withToken` when it carried the right token. */
  requestStarted(socket: Socket, withToken: boolean): void {
    const entry = this.unauthenticated.get(socket);
    if (!entry) return;
    this.stopTimer(entry);
    if (withToken) {
      this.unauthenticated.delete(socket);
      this.authenticated.add(socket);
      return;
    }
    entry.busy = true;
  }

  /** The response on `socket` is done: an unauthenticated keep-alive connection is idle again. */
  requestEnded(socket: Socket): void {
    const entry = this.unauthenticated.get(socket);
    if (entry) entry.busy = false;
  }

  /** The socket became an authenticated event WebSocket: long-lived by design, counted nowhere. */
  upgraded(socket: Socket): void {
    this.forget(socket);
  }

  get counts(): { unauthenticated: number; authenticated: number } {
    return { unauthenticated: this.unauthenticated.size, authenticated: this.authenticated.size };
  }

  private makeRoom(newcomer: Socket): void {
    while (this.unauthenticated.size > this.limits.maxUnauthenticated) {
      const victim = this.oldest(newcomer, true) ?? this.oldest(newcomer, false);
      if (!victim) return;
      this.forget(victim);
      victim.destroy();
    }
  }

  private oldest(except: Socket, idleOnly: boolean): Socket | null {
    for (const [socket, entry] of this.unauthenticated) {
      if (socket !== except && (!idleOnly || !entry.busy)) return socket;
    }
    return null;
  }

  private forget(socket: Socket): void {
    const entry = this.unauthenticated.get(socket);
    if (entry) this.stopTimer(entry);
    this.unauthenticated.delete(socket);
    this.authenticated.delete(socket);
  }

  private stopTimer(entry: Unauthenticated): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
  }
}
