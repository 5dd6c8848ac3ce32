import type { InvokeChannel } from '../shared/contract';
import type { EngineRegistry } from './engines/engine-registry';
import type { EventSink } from './events';
import type { Handlers } from './ipc/handlers';
import type { StoreStatus } from '../shared/schemas';
import type { PageVisibility } from './app/visibility';
import type { Notifier } from './notifier';
import type { ProfileStore } from './profiles/profile-store';
import type { SecretVaultApi } from './secrets/vault-api';
import type { SettingsService } from './settings/settings-service';
import type { AppLog } from './util/app-log';
import type { Logger } from './util/logger';

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
  /** Where every domain logs: the app log file (redacted, rotated), plus whatever the host adds. */
  readonly logger: Logger;
  /** The app log file itself, for `app:log` (its path and last lines). */
  readonly appLog: AppLog;
  /**
   * Opens a file in the system's viewer (Electron: `shell.openPath`). Absent in the browser host,
   * which cannot open a desktop app on the user's machine.
   */
  readonly openPath?: ((path: string) => Promise<void>) | undefined;
  /** Poll interval of the swarm monitor in ms (undefined: the monitor's default). */
  readonly monitorIntervalMs?: number | undefined;
  /** Labels every swarm container of this app carries besides ours (AppServicesOptions.containerScope; tests). */
  readonly containerScope?: Record<string, string> | undefined;
  /** The app's data folder (settings, profiles, stored logs, training series). */
  readonly dataDir: string;
  /** Where exports go (Electron: the user's Downloads; browser host: ~/Downloads, else <data>/exports). */
  readonly downloadsDir: string;
  /** Desktop notifications (Electron: `Notification`; browser host: the page, via `app:notification`). */
  readonly notifier: Notifier;
  /** Swarm profiles (swarm-profiles.json), shared by the profiles, doctor and native services. */
  readonly profiles: ProfileStore;
  /** How the Electron shell's own store was read (a corrupt file moved aside…); undefined in the browser host. */
  readonly shellStoreStatus?: (() => StoreStatus) | undefined;
  /** The credentials vault (issue 14): secrets by id; values only through `reveal`, never to the renderer. */
  readonly vault: SecretVaultApi;
  /** The app's `resources/` folder: Python templates and helper scripts (issue 16). */
  readonly resourcesDir: string;
  /** Whether any window shows the app (`app:visibility`): pollers use `shown()`/`onChange` to slow down while none does. */
  readonly visibility: PageVisibility;
}
