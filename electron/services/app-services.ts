import { AppError } from '../shared/errors';
import { createLocalDockerEngine, LOCAL_ENGINE_ID } from './engines/local-docker';
import { EngineRegistry } from './engines/engine-registry';
import type { EventSink } from './events';
import type { Handlers } from './ipc/handlers';
import { SettingsService } from './settings/settings-service';
import { SwarmContainers } from './swarm/swarm-containers';
import { createSwarmMonitor } from './swarm/create-monitor';

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

/** Builds every service once and maps each contract channel to one of them. */
export function createAppServices(options: AppServicesOptions): AppServices {
  const engines = new EngineRegistry();
  engines.add(createLocalDockerEngine(options.dockerHost));
  const settings = new SettingsService(options.dataDir, options.events);
  const monitor = createSwarmMonitor(engines, options.events, { intervalMs: options.monitorIntervalMs });
  const containers = new SwarmContainers({ engines, monitor, events: options.events, appVersion: options.version });

  const handlers: Handlers = {
    'app:info': async () => ({ version: options.version, host: options.host, platform: process.platform }),
    'engines:list': async () => engines.summaries(),
    'engines:health': async ({ engineId }) => engines.get(engineId).health(),
    'swarm:list': async ({ engineId }) => containers.list(engineId),
    'swarm:start': async (request) => containers.start(request),
    'swarm:stop': async ({ engineId, containerId }) => containers.stop(engineId, containerId),
    'swarm:remove': async ({ engineId, containerId }) => containers.remove(engineId, containerId),
    'swarm:statuses': async () => monitor.statuses(),
    'settings:get': async () => settings.get(),
    'settings:update': async (patch) => settings.update(patch),
  };

  return {
    handlers,
    settings,
    async start() {
      try {
        await settings.load();
      } catch (error) {
        throw new AppError('SETTINGS_INVALID', `Cannot read ${settings.path}: ${(error as Error).message}`);
      }
      await containers.resumeWatching();
    },
    async dispose() {
      monitor.dispose();
      await engines.dispose();
    },
  };
}

export { LOCAL_ENGINE_ID };

