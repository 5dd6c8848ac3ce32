import type { Result } from './result';
import type { EventChannel, EventPayload, InvokeChannel, InvokeInput, InvokeResponse } from './contract';

type Call<C extends InvokeChannel> = (request?: InvokeInput<C>) => Promise<Result<InvokeResponse<C>>>;

/**
 * The namespaced API the renderer sees as `window.api` under Electron. The browser host client in
 * `renderer/src/lib/api` implements the very same interface over HTTP + WebSocket.
 */
export interface ExposedApi {
  readonly app: { info: Call<'app:info'>; rendererReady: () => void };
  readonly engines: { list: Call<'engines:list'>; health: Call<'engines:health'> };
  readonly swarm: {
    list: Call<'swarm:list'>;
    start: Call<'swarm:start'>;
    stop: Call<'swarm:stop'>;
    remove: Call<'swarm:remove'>;
    statuses: Call<'swarm:statuses'>;
  };
  readonly settings: { get: Call<'settings:get'>; update: Call<'settings:update'> };
  readonly events: {
    on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void;
  };
}

/** Maps every namespaced method to its channel, so preload and browser client build the same shape. */
export const apiLayout = {
  app: { info: 'app:info' },
  engines: { list: 'engines:list', health: 'engines:health' },
  swarm: {
    list: 'swarm:list',
    start: 'swarm:start',
    stop: 'swarm:stop',
    remove: 'swarm:remove',
    statuses: 'swarm:statuses',
  },
  settings: { get: 'settings:get', update: 'settings:update' },
} as const satisfies Record<string, Record<string, InvokeChannel>>;
