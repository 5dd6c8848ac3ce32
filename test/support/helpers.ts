import net from 'node:net';
import { invokeChannels, invokeContract, type EventChannel, type EventPayload, type InvokeChannel } from '../../electron/shared/contract';
import type { Handlers } from '../../electron/services/ipc/handlers';
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
