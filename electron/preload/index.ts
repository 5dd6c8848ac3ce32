/**
 * The preload: the only code with access to Electron IPC that the page can reach. It exposes one
 * frozen, namespaced `window.api` (typed by `ExposedApi`) built from `apiLayout`, and nothing
 * generic: no ipcRenderer, no invoke-by-name, no process.env. Bundled into ONE CommonJS file
 * (out/preload/index.cjs) because a sandboxed preload can only require('electron').
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildLayoutApi, type ExposedApi } from '../shared/api';
import { EVENT_BRIDGE_CHANNEL, RENDERER_READY_CHANNEL, isEventChannel, type EventChannel } from '../shared/channels';

type Listener = (payload: unknown) => void;

/** One channel → its subscribers. A single ipcRenderer listener serves them all. */
const subscribers = new Map<EventChannel, Set<Listener>>();

function onBridgeMessage(_event: IpcRendererEvent, message: unknown): void {
  if (typeof message !== 'object' || message === null) return;
  const { channel, payload } = message as { channel?: unknown; payload?: unknown };
  if (typeof channel !== 'string' || !isEventChannel(channel)) return;
  // Copy first: a listener that unsubscribes while we iterate must not skip its neighbours.
  for (const listener of [...(subscribers.get(channel) ?? [])]) {
    try {
      listener(payload);
    } catch (error) {
      // One faulty UI listener must not stop the others from seeing the event.
      console.error('[preload] event listener failed:', error);
    }
  }
}

function subscriberCount(): number {
  let count = 0;
  for (const set of subscribers.values()) count += set.size;
  return count;
}

/**
 * Subscribes to one contract event. The listener gets the payload only, never the
 * IpcRendererEvent (which would hand the page `sender`, i.e. ipcRenderer itself).
 */
function on(channel: string, listener: Listener): () => void {
  if (typeof channel !== 'string' || !isEventChannel(channel)) {
    throw new TypeError(`unknown event channel: ${String(channel)}`);
  }
  if (typeof listener !== 'function') throw new TypeError('listener must be a function');
  // Wrap so the same function can be subscribed twice and still be removed once per subscription.
  const wrapped: Listener = (payload) => listener(payload);
  if (subscriberCount() === 0) ipcRenderer.on(EVENT_BRIDGE_CHANNEL, onBridgeMessage);
  const set = subscribers.get(channel) ?? new Set<Listener>();
  set.add(wrapped);
  subscribers.set(channel, set);
  let active = true;
  return () => {
    if (!active) return;
    active = false;
    set.delete(wrapped);
    if (set.size === 0) subscribers.delete(channel);
    if (subscriberCount() === 0) ipcRenderer.removeListener(EVENT_BRIDGE_CHANNEL, onBridgeMessage);
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Builds the namespaced API from the shared layout, so it cannot drift from the browser client. */
export function buildApi(): ExposedApi {
  const layout = buildLayoutApi((channel, request) => ipcRenderer.invoke(channel, request));
  const api: ExposedApi = {
    ...layout,
    app: { ...layout.app, rendererReady: () => ipcRenderer.send(RENDERER_READY_CHANNEL) },
    events: { on: on as ExposedApi['events']['on'] },
  };
  return deepFreeze(api);
}

contextBridge.exposeInMainWorld('api', buildApi());
