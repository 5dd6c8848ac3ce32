import { ipcMain, type IpcMainEvent, type IpcMainInvokeEvent } from 'electron';
import type { z } from 'zod';
import {
  EVENT_BRIDGE_CHANNEL,
  RENDERER_READY_CHANNEL,
  invokeChannels,
  invokeContract,
  type EventChannel,
  type EventPayload,
} from '../shared/contract';
import { fail } from '../shared/result';
import type { EventSink } from '../services/events';
import type { Handlers } from '../services/ipc/handlers';
import { runHandler } from '../services/ipc/run-handler';
import type { Logger } from '../services/util/logger';
import { redactPayload } from '../services/util/redact';
import { isAppUrl, type RendererTarget } from './security';

/** Decides whether an IPC message really comes from our renderer page. */
export type SenderCheck = (event: IpcMainInvokeEvent | IpcMainEvent) => boolean;

export interface IpcOptions {
  isTrustedSender: SenderCheck;
  logger?: Logger;
}

/**
 * Only the top frame of our own page may call the backend. `senderFrame` is null when the frame
 * has navigated away or gone, and a sub-frame (should one ever exist) is never trusted: the URL
 * check, not the fact that a message arrived, is what makes a caller ours.
 */
export function trustedSender(target: RendererTarget): SenderCheck {
  return (event) => {
    const frame = event.senderFrame;
    return frame !== null && frame !== undefined && frame.parent === null && isAppUrl(frame.url, target);
  };
}

/**
 * The one way a channel is registered: check the sender, validate with the contract schema (via
 * `runHandler`, shared with the browser host), run the service, and always resolve to the
 * `{ ok, value | error }` envelope. Nothing ever throws across IPC: Electron would keep only the
 * message of a thrown error, and that message might hold a path or a secret.
 */
export function handle<S extends z.ZodType, T>(
  channel: string,
  schema: S,
  fn: (request: z.infer<S>) => Promise<T>,
  options: IpcOptions,
): void {
  ipcMain.handle(channel, async (event, payload: unknown) => {
    if (!options.isTrustedSender(event)) {
      options.logger?.warn('refused an IPC call from outside the app window', { channel });
      return fail({ code: 'FORBIDDEN', message: 'This request did not come from the app window.' });
    }
    return runHandler(schema, payload, fn, options.logger, channel);
  });
}

/** Registers every contract channel with its handler. Returns a function that unregisters them. */
export function registerIpc(handlers: Handlers, options: IpcOptions): () => void {
  for (const channel of invokeChannels) {
    // TypeScript cannot correlate `invokeContract[channel]` with `handlers[channel]` across the
    // union of channels; both are keyed by the same contract, so widening here is sound.
    const fn = handlers[channel] as (request: unknown) => Promise<unknown>;
    handle(channel, invokeContract[channel].request, fn, options);
  }
  return () => {
    for (const channel of invokeChannels) ipcMain.removeHandler(channel);
  };
}

/** What the queue needs from a webContents (a structural subset, so tests can pass a fake). */
export interface BridgeTarget {
  readonly id: number;
  isDestroyed(): boolean;
  send(channel: string, ...args: unknown[]): void;
  once(event: 'destroyed', listener: () => void): unknown;
  on(
    event: 'did-start-navigation',
    listener: (details: { isMainFrame: boolean; isSameDocument: boolean }) => void,
  ): unknown;
}

export interface BridgeMessage {
  channel: EventChannel;
  payload: unknown;
}

/**
 * Default cap of buffered events. Bounded because a renderer that never says ready (crashed,
 * hung, an old UI build) must not make main grow without limit. Dropping the OLDEST is safe for
 * this contract: status events are full snapshots and "*-changed" events are invalidations, so
 * the newest events carry everything the UI needs and the oldest are already superseded.
 */
export const EVENT_QUEUE_LIMIT = 1000;

/**
 * Push events from services to the window over the single `EVENT_BRIDGE_CHANNEL`. Events are
 * buffered until a window is attached AND its page has sent `RENDERER_READY_CHANNEL` (i.e. it has
 * subscribed), then flushed in order; after that they go out live. A reload puts the queue back
 * into buffering until the new page reports ready. A destroyed window gets nothing: its pending
 * events are dropped, since a new window's UI fetches fresh state when it starts.
 */
export class EventQueue implements EventSink {
  private readonly pending: BridgeMessage[] = [];
  private target: BridgeTarget | null = null;
  private ready = false;
  /** How many events were dropped because the buffer was full (for logs and tests). */
  dropped = 0;

  constructor(
    private readonly limit = EVENT_QUEUE_LIMIT,
    private readonly logger?: Logger,
  ) {}

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    // Electron's one event path (no EventHub in front of it): redacted here, like the hub does.
    const message: BridgeMessage = { channel, payload: redactPayload(payload) };
    if (this.ready && this.target) {
      this.deliver(this.target, message);
      return;
    }
    if (this.pending.length >= this.limit) {
      this.pending.shift();
      this.dropped += 1;
    }
    this.pending.push(message);
  }

  /** Binds the queue to a window's webContents. Events still wait for `markReady`. */
  attach(target: BridgeTarget): void {
    this.target = target;
    this.ready = false;
    target.once('destroyed', () => {
      if (this.target !== target) return;
      this.target = null;
      this.ready = false;
      this.pending.length = 0;
    });
    target.on('did-start-navigation', (details) => {
      // A reload or navigation drops the page's subscriptions: buffer until it is ready again.
      if (this.target === target && details.isMainFrame && !details.isSameDocument) this.ready = false;
    });
  }

  /** The attached page has subscribed: flush what was buffered, in order, and go live. */
  markReady(senderId: number): void {
    const target = this.target;
    if (!target || target.id !== senderId) return;
    this.ready = true;
    const batch = this.pending.splice(0, this.pending.length);
    for (const message of batch) this.deliver(target, message);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  private deliver(target: BridgeTarget, message: BridgeMessage): void {
    if (target.isDestroyed()) return;
    try {
      target.send(EVENT_BRIDGE_CHANNEL, message);
    } catch (error) {
      // e.g. a payload that cannot be structured-cloned: drop that one event, keep the bridge alive.
      this.logger?.warn('could not send an event to the window', {
        channel: message.channel,
        name: error instanceof Error ? error.name : typeof error,
      });
    }
  }
}

/**
 * Listens for the renderer's ready signal. Only the attached window's own page counts, so a
 * foreign frame cannot trigger a flush of events meant for the UI.
 */
export function listenForRendererReady(queue: EventQueue, isTrustedSender: SenderCheck): () => void {
  const listener = (event: IpcMainEvent): void => {
    if (isTrustedSender(event)) queue.markReady(event.sender.id);
  };
  ipcMain.on(RENDERER_READY_CHANNEL, listener);
  return () => {
    ipcMain.removeListener(RENDERER_READY_CHANNEL, listener);
  };
}
