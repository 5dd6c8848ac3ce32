import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { registerApp } from './app/register';
import { PageVisibility } from './app/visibility';
import { registerDoctor } from './doctor/register';
import { registerImages } from './images/register';
import { registerLogs } from './logs/register';
import { eventNotifier, type Notifier } from './notifier';
import { ProfileStore } from './profiles/profile-store';
import { registerProfiles } from './profiles/register';
import { registerTraining } from './training/register';
import type { DomainModule, ServiceContext } from './domain';
import { createLocalDockerEngine, LOCAL_ENGINE_ID } from './engines/local-docker';
import { createLocalPodmanEngine, localPodmanHostBesides } from './engines/podman';
import { EngineRegistry } from './engines/engine-registry';
import { registerEngines } from './engines/register';
import { ObservableSink, type EventSink } from './events';
import type { Handlers } from './ipc/handlers';
import type { StoreStatus } from '../shared/schemas';
import { registerSettings } from './settings/register';
import { registerServers } from './ssh/register';
import type { SessionTuning } from './ssh/server-manager';
import { SettingsService } from './settings/settings-service';
import type { TransferTargets } from './settings/settings-transfer';
import { registerSwarm, type SwarmModule } from './swarm/register';
import { registerServerState } from './server-state/register';
import { registerGpus, type GpusOptions } from './gpus/register';
import { registerAlerts } from './fleet/register';
import { registerVault } from './secrets/register';
import { registerDryRun } from './dry-run/register';
import { DRY_RUN_CONTAINER_ID, DRY_RUN_ENGINE_ID } from '../shared/schemas-dryrun';
import { registerSlurm } from './slurm/register';
import { registerJobs } from './jobs/register';
import { registerWizard } from './wizard/register';
import { registerUpdates, type UpdatesHostOptions } from './updates/register';
import { registerWorkers } from './workers/register';
import { registerRuns } from './runs/register';
import { defaultResourcesDir } from './util/resources-dir';
import type { KeychainPort } from './secrets/keychain-port';
import { kindScopedVault, SSH_KINDS, withServerSecretKinds } from './secrets/secret-binding';
import { SecretVault } from './secrets/secret-vault';
import type { SecretVaultApi } from './secrets/vault-api';
import { AppLog } from './util/app-log';
import { describeThrown, teeLogger, type Logger } from './util/logger';

export interface AppServicesOptions {
  /** Absolute folder for settings and state (Electron: app.getPath('userData')). */
  dataDir: string;
  host: 'electron' | 'browser';
  version: string;
  events: EventSink;
  /** Overrides for tests; default is DOCKER_HOST or the platform's default socket. */
  dockerHost?: string;
  /**
   * Local Podman (engine `local-podman`): this socket; default AGENTSWARM_PODMAN_HOST, a unix
   * CONTAINER_HOST, else the user's or the rootful socket when one exists; null: none (tests).
   */
  podmanHost?: string | null;
  /** Poll interval of the swarm monitor in ms (default 1000). */
  monitorIntervalMs?: number;
  /** Also receives every log entry (e.g. the console while developing); the app log always does. */
  logger?: Logger;
  /** Opens a file in the system's viewer; Electron passes one (`main/open-path.ts`), the browser host cannot. */
  openPath?: (path: string) => Promise<void>;
  /** SSH servers: the app's known_hosts and ssh config (default ~/.ssh/…; tests always pass temporary ones), SSH_AUTH_SOCK's env. */
  ssh?: { knownHostsPath?: string; configPath?: string; env?: NodeJS.ProcessEnv; tuning?: SessionTuning };
  /** Desktop notifications; default: pushed to the page as `app:notification` (the browser host). */
  notifier?: Notifier;
  /** Where log exports go (default ~/Downloads when it exists, else <dataDir>/exports). */
  downloadsDir?: string;
  /** The OS keychain (Electron: safeStorage, main/keychain.ts); absent in the browser host (passphrase or session only). */
  keychain?: KeychainPort;
  /** How the Electron shell's own store (main/shell-store.ts) was read, for `app:info`; absent in the browser host. */
  shellStoreStatus?: () => StoreStatus;
  /** The app's `resources/` folder (packaged Electron: process.resourcesPath); default: the repository's. */
  resourcesDir?: string;
  /** Auto-update (Electron: electron-updater via main/updater.ts, or why not); absent: updates are off (browser host). */
  updates?: UpdatesHostOptions;
  /** The fleet home's GPU sampling: which program to run (tests: their labelled nvidia-smi double) and its pace. */
  gpus?: GpusOptions;
  /**
   * Only the swarm servers whose containers carry these labels are this app's (default: every one the app labelled,
   * whatever its version). For tests: npm test runs several test runs' apps on one dockerd at once, each with its own
   * app version (test/support/test-app.ts), and a run must not see another's servers starting and stopping.
   */
  containerScope?: Record<string, string>;
}

export interface AppServices {
  handlers: Handlers;
  settings: SettingsService;
  /** The app log (a file in the data folder) teed with `options.logger`: what both transports log through. */
  logger: Required<Logger>;
  /** The credentials vault, for the host's own use of secrets by id (a child process's env via `secret-env.ts`). */
  vault?: SecretVaultApi;
  /**
   * Loads settings, finds containers we started before (labels) and resumes watching them.
   * Never throws: a domain whose start fails is logged and the others still start (a broken
   * settings file must not keep swarm servers from being watched again).
   */
  start(): Promise<void>;
  /** The computer woke up or its network changed (Electron's powerMonitor): SSH servers check their links now. */
  systemResumed(): void;
  dispose(): Promise<void>;
}

/**
 * Builds the shared services once and collects every domain's `register()` module. No domain
 * logic here: a new domain adds one `register()` in its folder and one line below.
 */
export function createAppServices(options: AppServicesOptions): AppServices {
  const engines = new EngineRegistry();
  engines.add(createLocalDockerEngine(options.dockerHost));
  const podmanHost = localPodmanHostBesides(options.dockerHost, options.podmanHost);
  if (podmanHost) engines.add(createLocalPodmanEngine(podmanHost));
  // Never throws, even when the data folder is unusable: entries then go to stderr (see AppLog).
  const appLog = new AppLog(options.dataDir);
  const logger = options.logger ? teeLogger(appLog, options.logger) : teeLogger(appLog);
  // Every domain emits through it; the server-state store follows the swarm's news from it.
  const observed = new ObservableSink(options.events);
  const context: ServiceContext = {
    host: options.host,
    version: options.version,
    events: observed,
    engines,
    settings: new SettingsService(options.dataDir, options.events, logger),
    logger,
    appLog,
    openPath: options.openPath,
    monitorIntervalMs: options.monitorIntervalMs,
    containerScope: options.containerScope,
    dataDir: options.dataDir,
    downloadsDir: options.downloadsDir ?? defaultDownloadsDir(options.dataDir),
    notifier: options.notifier ?? eventNotifier(observed),
    profiles: new ProfileStore(options.dataDir, logger),
    shellStoreStatus: options.shellStoreStatus,
    vault: new SecretVault({ dataDir: options.dataDir, host: options.host, keychain: options.keychain, logger }),
    resourcesDir: options.resourcesDir ?? defaultResourcesDir(),
    visibility: new PageVisibility(),
  };

  // Order matters: start() runs in this order (settings first), dispose() in reverse.
  // Export/import reach servers and profiles through their handlers (built below), so the same checks apply.
  const settings = registerSettings(context, { transferTargets: () => transferTargets(handlers) });
  const app = registerApp(context);
  const enginesModule = registerEngines(context);
  // Servers before swarm: their engines must be in the registry when swarm rediscovers containers.
  // SSH logins see the vault through a kind check: an LLM key chosen as a password never reaches a server.
  // The tunnel probes read the swarm monitor's polls of their URLs; the monitor is built just below.
  let swarmMonitor: SwarmModule['monitor'] | null = null;
  const sshContext: ServiceContext = { ...context, vault: kindScopedVault(context.vault, SSH_KINDS, 'An SSH login') };
  const servers = withServerSecretKinds(context.vault, registerServers(sshContext, {
    dataDir: options.dataDir,
    ...(options.ssh?.knownHostsPath ? { knownHostsPath: options.ssh.knownHostsPath } : {}),
    ...(options.ssh?.configPath ? { configPath: options.ssh.configPath } : {}),
    ...(options.ssh?.env ? { env: options.ssh.env } : {}),
    ...(options.ssh?.tuning ? { tuning: options.ssh.tuning } : {}),
    latestReading: (url) => swarmMonitor?.latestForUrl(url) ?? null,
  }));
  const swarm = registerSwarm(context);
  swarmMonitor = swarm.monitor;
  const serverState = registerServerState(context, { swarm, observed });
  const gpus = registerGpus(context, { store: serverState.store, ...(options.gpus ? { options: options.gpus } : {}) });
  const doctor = registerDoctor(context);
  const images = registerImages(context);
  const profiles = registerProfiles(context, { swarm, doctor });
  const logs = registerLogs(context, { swarm });
  const training = registerTraining(context, { swarm });
  const alerts = registerAlerts(context, {
    store: serverState.store,
    gpus,
    observed,
    training: () => training.handlers,
    stop: (engineId, containerId) => swarm.handlers['swarm:stop']({ engineId, containerId }),
  });
  const vault = registerVault(context);
  const dryRun = registerDryRun(context);
  // The dry run counts each batch itself: its dashboard shows every step exactly, not pool snapshots.
  dryRun.service.onStep((step) => training.monitor.recordExactStep(DRY_RUN_ENGINE_ID, DRY_RUN_CONTAINER_ID, step));
  const jobs = registerJobs(context, { swarm });
  const slurm = registerSlurm(context, { alerts: alerts.timeLimit });
  const wizard = registerWizard(context, { jobs: jobs.api, handlers: () => handlers });
  const updates = registerUpdates(context, { jobs: jobs.api, ...(options.updates ? { host: options.updates } : {}) });
  const workers = registerWorkers(context, { jobs: jobs.api, swarm, servers, handlers: () => handlers });
  // Every run kept (issue 33): follows the training monitor's views and the server states; reads through their handlers.
  const runs = registerRuns(context, {
    store: serverState.store,
    gpus,
    observed,
    jobs: jobs.api,
    handlers: () => handlers,
    dryRunYaml: () => dryRun.service.syncedYaml(),
    ...(options.monitorIntervalMs !== undefined ? { timing: { refreshMs: Math.max(100, options.monitorIntervalMs * 5) } } : {}),
  });
  const modules: [string, Pick<DomainModule<never>, 'start' | 'dispose'>][] = [
    ['settings', settings],
    // The vault loads before anything that may need a secret (servers, profiles, the dry run).
    ['vault', vault],
    ['app', app],
    ['engines', enginesModule],
    ['servers', servers],
    // Profiles load before swarm rediscovers containers, so a found container is matched to its profile.
    ['profiles', { start: async () => void (await context.profiles.load()) }],
    ['logs', logs],
    ['training', training],
    ['swarm', swarm],
    // After swarm: its rediscovery has put the monitor's statuses in place.
    ['server-state', serverState],
    ['gpus', gpus],
    ['alerts', alerts],
    ['doctor', doctor],
    ['images', images],
    ['profile-runtime', profiles],
    ['dry-run', dryRun],
    ['jobs', jobs],
    ['slurm', slurm],
    ['wizard', wizard],
    // After training, server-state, jobs and the wizard: it reads them; disposed before them.
    ['runs', runs],
    ['updates', updates],
    // After jobs: disposed before the job runner stops its processes, so local workers are marked to start again.
    ['workers', workers],
  ];

  // Spelled out (not merged in a loop) so the compiler checks that every channel has a handler.
  const handlers: Handlers = {
    ...settings.handlers,
    ...app.handlers,
    ...enginesModule.handlers,
    ...swarm.handlers,
    ...serverState.handlers,
    ...gpus.handlers,
    ...alerts.handlers,
    ...servers.handlers,
    ...profiles.handlers,
    ...doctor.handlers,
    ...images.handlers,
    ...logs.handlers,
    ...training.handlers,
    ...runs.handlers,
    ...vault.handlers,
    ...vault.secretHandlers,
    ...dryRun.handlers,
    ...jobs.handlers,
    ...slurm.handlers,
    ...wizard.handlers,
    ...updates.handlers,
    ...workers.handlers,
  };

  return {
    handlers,
    settings: context.settings,
    logger,
    vault: context.vault,
    async start() {
      logger.info('starting', { version: options.version, host: options.host, dataDir: options.dataDir });
      for (const [name, module] of modules) {
        try {
          await module.start?.();
        } catch (error) {
          logger.error(`${name} failed to start; the other parts start anyway`, describeThrown(error));
        }
      }
    },
    systemResumed() {
      servers.systemResumed();
    },
    async dispose() {
      // Every module gets its chance to stop (watchers, sockets) even when one before it fails.
      const failures: unknown[] = [];
      for (const [, module] of [...modules].reverse()) {
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

/** Servers and profiles for settings export/import, through the same handlers the pages use. */
function transferTargets(handlers: Handlers): TransferTargets {
  return {
    servers: {
      list: async () => (await handlers['servers:list']({})).map((view) => view.profile),
      add: async (input) => (await handlers['servers:add'](input)).profile,
      update: async (serverId, profile) => (await handlers['servers:update']({ serverId, profile })).profile,
    },
    profiles: {
      list: async () => (await handlers['profiles:list']({})).map((view) => view.profile),
      add: async (input) => (await handlers['profiles:add'](input)).profile,
      update: async (profileId, profile) => (await handlers['profiles:update']({ profileId, profile })).profile,
    },
  };
}

/** ~/Downloads where it exists (what users look in), else a folder of the app's own. */
function defaultDownloadsDir(dataDir: string): string {
  const downloads = join(homedir(), 'Downloads');
  return existsSync(downloads) ? downloads : join(dataDir, 'exports');
}

export { LOCAL_ENGINE_ID };
