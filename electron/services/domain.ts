import type { InvokeChannel } from '../shared/contract';
import type { EngineRegistry } from './engines/engine-registry';
import type { EventSink } from './events';
import type { Handlers } from './ipc/handlers';
import type { SettingsService } from './settings/settings-service';

/** The request channels of one domain: `'swarm'` → 'swarm:list' | 'swarm:start' | … */
export type DomainChannel<D extends string> = Extract<InvokeChannel, `${D}:${string}`>;

/** Exactly the handlers of one domain: a channel added to the contract fails to compile here until handled. */
export type DomainHandlers<D extends string> = Pick<Handlers, DomainChannel<D>>;

/**
 * What every domain's `register()` returns: its handlers, and the work it needs at start (after
 * settings are loaded) and at shutdown. `app-services.ts` only collects these; domain logic lives
 * in the domain's folder.
 */
export interface DomainModule<D extends string> {
  readonly handlers: DomainHandlers<D>;
  start?(): Promise<void>;
  dispose?(): Promise<void> | void;
}

/** The services shared between domains, built once by `createAppServices`. */
export interface ServiceContext {
  readonly host: 'electron' | 'browser';
  readonly version: string;
  readonly events: EventSink;
  readonly engines: EngineRegistry;
  readonly settings: SettingsService;
  /** Poll interval of the swarm monitor in ms (undefined: the monitor's default). */
  readonly monitorIntervalMs?: number | undefined;
}
