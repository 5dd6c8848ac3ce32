import { registerApp } from './app/register';
import type { DomainModule, ServiceContext } from './domain';
import { createLocalDockerEngine, LOCAL_ENGINE_ID } from './engines/local-docker';
import { EngineRegistry } from './engines/engine-registry';
import { registerEngines } from './engines/register';
import type { EventSink } from './events';
import type { Handlers } from './ipc/handlers';
import { registerSettings } from './settings/register';
import { SettingsService } from './settings/settings-service';
import { registerSwarm } from './swarm/register';

export interface AppServicesOptions {
  /** Absolute folder for settings and state (Electron: app.getPath('userData')). */
  dataDir: string;
  host: 'electron' | 'browser';
  version: string;
  events: EventSink;
  /** Overrides for tests; default is DOCKER_HOST or the platform's default socket. */
  dockerHost?: string;
  /** Poll interval of the swarm monitor in ms (default 1000). */
  monitorIntervalMs?: number;
}

export interface AppServices {
  handlers: Handlers;
  settings: SettingsService;
  /** Loads settings, finds containers we started before (labels) and resumes watching them. */
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Builds the shared services once and collects every domain's `register()` module. No domain
 * logic here: a new domain adds one `register()` in its folder and one line below.
 */
export function createAppServices(options: AppServicesOptions): AppServices {
  const engines = new EngineRegistry();
  engines.add(createLocalDockerEngine(options.dockerHost));
  const context: ServiceContext = {
    host: options.host,
    version: options.version,
    events: options.events,
    engines,
    settings: new SettingsService(options.dataDir, options.events),
    monitorIntervalMs: options.monitorIntervalMs,
  };

  // Order matters: start() runs in this order (settings first), dispose() in reverse.
  const settings = registerSettings(context);
  const app = registerApp(context);
  const enginesModule = registerEngines(context);
  const swarm = registerSwarm(context);
  const modules: Pick<DomainModule<never>, 'start' | 'dispose'>[] = [settings, app, enginesModule, swarm];

  // Spelled out (not merged in a loop) so the compiler checks that every channel has a handler.
  const handlers: Handlers = {
    ...settings.handlers,
    ...app.handlers,
    ...enginesModule.handlers,
    ...swarm.handlers,
  };

  return {
    handlers,
    settings: context.settings,
    async start() {
      for (const module of modules) await module.start?.();
    },
    async dispose() {
      // Every module gets its chance to stop (watchers, sockets) even when one before it fails.
      const failures: unknown[] = [];
      for (const module of [...modules].reverse()) {
        try {
          await module.dispose?.();
        } catch (error) {
          failures.push(error);
        }
      }
      if (failures.length > 0) throw failures[0];
    },
  };
}

export { LOCAL_ENGINE_ID };
