import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invokeChannels, invokeContract, type EventChannel, type EventPayload, type InvokeChannel } from '../../electron/shared/contract';
import type { Handlers } from '../../electron/services/ipc/handlers';
import type { EventHub } from '../../electron/services/events';

/**
 * Ports for test servers come from below the kernel's ephemeral range (ip_local_port_range), never from it: a port the
 * OS handed out by `listen(0)` can, a moment later, be given to some other process's outgoing connection as its source
 * port, and a server that binds it then (a native swarm server in a Slurm job binds 0.0.0.0) fails with EADDRINUSE.
 * With the whole suite's lanes opening SSH tunnels and HTTP connections, that happened in CI (2026-12-05).
 */
export const TEST_PORTS = { low: 20_000, high: ephemeralLow() - 1 };
const handedOut = new Set<number>();

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 21_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether `port` can be listened on at `host` right now (and is closed again at once). */
export function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The ports every test process on this machine was handed: one file per port, created exclusively. The bind check
 * alone cannot see a port another lane picked but does not listen on yet (a profile's port waits through its doctor,
 * a job through its queue): two lanes side by side could be handed the same one. A claim older than an hour is an
 * earlier run's (no test file holds a port that long) and is taken over.
 */
const CLAIMS_DIR = join(tmpdir(), 'agentswarm-port-claims');
const CLAIM_TTL_MS = 60 * 60 * 1000;

/** The file that claims `port` for one test process (exported for the claims' own test). */
export function portClaimFile(port: number): string {
  return join(CLAIMS_DIR, String(port));
}

function claimPort(port: number): boolean {
  mkdirSync(CLAIMS_DIR, { recursive: true });
  const file = portClaimFile(port);
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  try {
    if (Date.now() - statSync(file).mtimeMs < CLAIM_TTL_MS) return false;
    // Only one of two processes taking over the same stale claim gets to move it away (rename is atomic).
    const away = `${file}.stale-${process.pid}`;
    renameSync(file, away);
    unlinkSync(away);
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A port free a moment ago on every interface, outside the ephemeral range, claimed by no other test process (see
 * `claimPort`); random, so that processes side by side rarely try the same one.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = TEST_PORTS.low + Math.floor(Math.random() * (TEST_PORTS.high - TEST_PORTS.low + 1));
    if (handedOut.has(port)) continue;
    if ((await canListen(port, '0.0.0.0')) && (await canListen(port, '127.0.0.1')) && claimPort(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${TEST_PORTS.low} and ${TEST_PORTS.high} after 200 tries`);
}

/** Resolves with the first event on `channel` that satisfies `predicate`, or fails after `timeoutMs`. */
/**
 * Asks `fn` until it gives a value (an error counts as "not yet"), every `intervalMs`; for states
 * no event announces, such as a container's log or state seen through Docker itself.
 */
export async function poll<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Records swarm:status events from now on; `of(containerId, predicate)` resolves with the first one of that container
 * that `predicate` accepts, whether it came before the call (a start that reported while it returned) or after. For
 * tests whose engine may run other files' servers meanwhile (npm test's lanes): a predicate on the engine alone
 * could match theirs.
 */
export function recordSwarmStatuses(hub: EventHub): { of(containerId: string, predicate: (s: EventPayload<'swarm:status'>) => boolean, timeoutMs?: number): Promise<EventPayload<'swarm:status'>>; stop(): void } {
  const seen: EventPayload<'swarm:status'>[] = [];
  const waiters = new Set<(s: EventPayload<'swarm:status'>) => void>();
  const unsubscribe = hub.subscribe((name, payload) => {
    if (name !== 'swarm:status') return;
    seen.push(payload as EventPayload<'swarm:status'>);
    for (const waiter of [...waiters]) waiter(payload as EventPayload<'swarm:status'>);
  });
  return {
    of: (containerId, predicate, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const matches = (s: EventPayload<'swarm:status'>) => s.containerId === containerId && predicate(s);
        const earlier = seen.find(matches);
        if (earlier) return resolve(earlier);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching swarm:status of ${containerId} within ${timeoutMs} ms; saw ${JSON.stringify(seen.filter((s) => s.containerId === containerId).slice(-5))}`));
        }, timeoutMs);
        const waiter = (s: EventPayload<'swarm:status'>) => {
          if (!matches(s)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(s);
        };
        waiters.add(waiter);
      }),
    stop: unsubscribe,
  };
}

export function waitForEvent<E extends EventChannel>(
  hub: EventHub,
  channel: E,
  predicate: (payload: EventPayload<E>) => boolean,
  timeoutMs = 30_000,
): Promise<EventPayload<E>> {
  return new Promise((resolve, reject) => {
    const seen: unknown[] = [];
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no matching ${channel} event within ${timeoutMs} ms; saw ${JSON.stringify(seen.slice(-5))}`));
    }, timeoutMs);
    const unsubscribe = hub.subscribe((name, payload) => {
      if (name !== channel) return;
      seen.push(payload);
      if (predicate(payload as EventPayload<E>)) {
        clearTimeout(timer);
        unsubscribe();
        resolve(payload as EventPayload<E>);
      }
    });
  });
}

/**
 * Wraps the app's handlers so every response is checked against the contract's response schema:
 * a service that drifts from what the UI was promised fails the test that called it.
 */
export function contractCheckedHandlers(handlers: Handlers): Handlers {
  const checked = {} as Record<InvokeChannel, (request: unknown) => Promise<unknown>>;
  for (const channel of invokeChannels) {
    const handler = handlers[channel] as (request: unknown) => Promise<unknown>;
    checked[channel] = async (request: unknown) => invokeContract[channel].response.parse(await handler(request));
  }
  return checked as unknown as Handlers;
}
