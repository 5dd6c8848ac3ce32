import type { EventSink } from './events';
import type { Handlers } from './ipc/handlers';

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
  /** Finds containers we started before (labels) and resumes watching them. */
  start(): Promise<void>;
  dispose(): Promise<void>;
}

// Implemented in the next step; the signature is what main and the browser host build on.
export declare function createAppServices(options: AppServicesOptions): AppServices;
