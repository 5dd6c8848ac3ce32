import type { EventChannel, EventPayload } from '../shared/contract';
import { redactPayload } from './util/redact';

/**
 * Where services push events. Electron main queues them until the window is ready; the browser
 * host fans them out to its WebSockets; tests collect them.
 */
export interface EventSink {
  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void;
}

type Listener = (channel: EventChannel, payload: unknown) => void;

/** A tiny fan-out sink: services emit once, every transport (window, sockets, tests) listens. */
export class EventHub implements EventSink {
  private readonly listeners = new Set<Listener>();

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    // Redacted once here, for every transport (browser-host sockets, tests): see `redactPayload`.
    const safe = redactPayload(payload);
    for (const listener of this.listeners) {
      try {
        listener(channel, safe);
      } catch {
        // One broken transport must not stop the others from getting the event.
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * A sink that forwards every event and lets services in the same process follow some of them
 * (the server-state store follows `swarm:status` and `swarm:containers-changed`), so a domain
 * learns what another one published without a second path for the same news.
 */
export class ObservableSink implements EventSink {
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();

  constructor(private readonly inner: EventSink) {}

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    this.inner.emit(channel, payload);
    for (const listener of this.listeners.get(channel) ?? []) {
      try {
        listener(payload);
      } catch {
        // A follower's bug must not stop the event from reaching the transports or other followers.
      }
    }
  }

  on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void {
    const set = this.listeners.get(channel) ?? new Set();
    this.listeners.set(channel, set);
    const wrapped = listener as (payload: unknown) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }
}
