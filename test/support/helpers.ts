import net from 'node:net';
import type { EventChannel, EventPayload } from '../../electron/shared/contract';
import type { EventHub } from '../../electron/services/events';

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves with the first event on `channel` that satisfies `predicate`, or fails after `timeoutMs`. */
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
