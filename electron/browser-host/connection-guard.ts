import type { Socket } from 'node:net';

export interface ConnectionGuardLimits {
  /** Connections that have not shown the token yet, at once; past it the oldest one past its grace is closed. */
  maxUnauthenticated: number;
  /** A new connection is not closed to make room for this long: time to send its request (a browser needs milliseconds). */
  unauthenticatedGraceMs: number;
  /** Past this many in all, young ones too: the oldest goes whatever its age (bounds what a flood can hold). */
  maxUnauthenticatedBurst: number;
  /** A connection that has not shown the token must send its first request's headers within this time. */
  unauthenticatedHeadersTimeoutMs: number;
}

interface Unauthenticated {
  admittedAt: number;
  /** A request is being answered on it: closed only when every other unauthenticated one is busy too. */
  busy: boolean;
  timer: NodeJS.Timeout | null;
}

/**
 * Keeps idle or slow local sockets from locking the user out of the browser host. A plain cap on
 * connections (Node's maxConnections) refuses newcomers, so 64 slow sockets kept a real tab out, and
 * an attacker who reopens them kept it out for good. Here only connections that have not shown the
 * token count against a small cap, and a newcomer is always let in: the oldest unauthenticated
 * connection past a short grace is closed to make room, idle ones before ones being answered. A
 * browser sends its request at once, so its connection is busy (or shows the token) within its
 * grace; sockets that hold a connection without finishing a request go first, and go anyway after a
 * short header deadline.
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
    this.unauthenticated.set(socket, { admittedAt: Date.now(), busy: false, timer });
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

  /**
   * Closes the oldest unauthenticated connections past the cap. One younger than the grace is spared
   * (the cap may be exceeded for it) until the burst limit: on a loaded machine a whole batch of
   * accepted connections can be handled before any of them is read, and a newcomer must not be closed
   * by the ones that arrived just after it before it could show its request.
   */
  private makeRoom(newcomer: Socket): void {
    while (this.unauthenticated.size > this.limits.maxUnauthenticated) {
      const graceEnded = Date.now() - this.limits.unauthenticatedGraceMs;
      const overBurst = this.unauthenticated.size > this.limits.maxUnauthenticatedBurst;
      const victim =
        this.oldest(newcomer, (e) => !e.busy && e.admittedAt <= graceEnded) ??
        this.oldest(newcomer, (e) => e.admittedAt <= graceEnded) ??
        (overBurst ? this.oldest(newcomer, () => true) : null);
      if (!victim) return;
      this.forget(victim);
      victim.destroy();
    }
  }

  /** The oldest connection (Map order is arrival order) other than `except` that `which` accepts. */
  private oldest(except: Socket, which: (entry: Unauthenticated) => boolean): Socket | null {
    for (const [socket, entry] of this.unauthenticated) {
      if (socket !== except && which(entry)) return socket;
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
