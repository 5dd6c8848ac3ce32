/**
 * The dry-run swarm server: upstream's swarm protocol (every route SwarmClient and `ajet-swarm overwatch` use,
 * with upstream's status codes, error strings and quirks) on 127.0.0.1, a built-in trainer instead of a GPU, and
 * the episodes' LLM calls handed to the relay (the user's debug LLM). Nothing is trained; everything else behaves
 * as on the GPU server, so a client script that works here works there.
 */
import http from 'node:http';
import { DRY_RUN_TRAINING_STEP_MS } from '../../shared/schemas-dryrun';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DryRunTrainer, type TrainerMode, type TrainerOptions } from './auto-trainer';
import { STATUS, SwarmState } from './engine-state';
import { SwarmHttpApp, type Log } from './http-framework';
import { startJanitor } from './janitor';
import type { LlmRelay, TraceSink } from './relay-contract';
import { registerEngineRoutes } from './routes-engine';
import { registerEpisodeRoutes } from './routes-episodes';
import { registerLlmRoutes } from './routes-llm';
import { registerPoolRoutes } from './routes-pool';
import type { StartRefusal } from './start-checks';
import { readTrainConfig, type TrainConfig } from './train-config';
import { claimOwnPort } from '../util/own-ports';

export interface DryRunServerOptions {
  /** Always loopback: the dry run serves this computer only. */
  host?: '127.0.0.1';
  /** 0 = any free port. */
  port: number;
  /** external: a test plays the trainer through the trainer routes; nothing moves after /start_engine. */
  trainer: TrainerMode;
  /** BOOTING time before ROLLING (auto trainer). */
  bootDelayMs?: number;
  /**
   * The simulated training step (auto trainer): WEIGHT_SYNCING this long after each batch. Default
   * DRY_RUN_TRAINING_STEP_MS, long enough for a client's 5 s status poll to see it; tests that do not test that use less.
   */
  trainingStepMs?: number;
  /** Janitor period (upstream: 10 s). */
  janitorIntervalMs?: number;
  /** CLIENT_ACTIVE_TIMEOUT in seconds (upstream: 600). */
  clientActiveTimeoutS?: number;
  /** Where the LLM calls of claimed episodes go; without one they are answered 503 "no debug LLM configured". */
  relay?: LlmRelay;
  /** Lifecycle events for the trace view. */
  trace?: TraceSink;
  /** Each completed batch, exactly (the training dashboard's step record). */
  onStepCollected?: TrainerOptions['onStepCollected'];
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Base of the experiment dir the server reports (nothing is written there). Default: <tmp>/agentswarm-dry-run. */
  workDir?: string;
}

export interface DryRunTrainSummary {
  experimentName: string | null;
  projectName: string;
  modelPath: string | null;
  batchSize: number;
  numRepeat: number;
  sampleCollectionMethod: string;
  /** The method the YAML named when upstream does not know it (the default is used instead). */
  unknownMethod: string | null;
  maxEnvWorker: number;
  /** The YAML did not parse as a mapping: every setting is a default. */
  parsed: boolean;
  /** YAML keys (dotted) the dry run does not act on, kept to show (they matter on the GPU server). */
  unknownKeys: string[];
}

export interface DryRunSnapshot {
  status: string;
  engineStatusDetail: string | null;
  globalStep: number | null;
  /** Unix ms when BOOTING began; null outside BOOTING. */
  bootingSince: number | null;
  experimentDir: string | null;
  /** The synced job; null before /sync_train_config. */
  train: DryRunTrainSummary | null;
  pool: {
    registered: number;
    claimed: number;
    activeClients: number;
    completedEpisodes: number;
    completedEpisodeTarget: number;
    completedTasks: number;
    completedTaskTarget: number;
    completedNonDummyTasks: number;
  };
  /** Why the current batch cannot complete (task grouping, equal rewards, no agreement); null when it can. */
  stall: string | null;
  /** Why the last /start_engine failed on the synced YAML (the engine stays BOOTING until stop_engine); null otherwise. */
  startRefusal: StartRefusal | null;
}

export interface DryRunServer {
  url: string;
  port: number;
  snapshot(): DryRunSnapshot;
  /** The YAML a client synced last, as sent (the run store keeps it with the run); null before any sync. */
  syncedYaml(): string | null;
  /** Status, step, pool or stall changed; called often, so consumers throttle. Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

/** A trace sink whose failures are logged, never turned into a failed protocol request. */
function safeTrace(sink: TraceSink | undefined, log: Log): TraceSink | undefined {
  if (!sink) return undefined;
  const guard =
    <A extends unknown[]>(what: string, fn: (...args: A) => void) =>
    (...args: A) => {
      try {
        fn(...args);
      } catch (error) {
        log('error', `trace ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
  return {
    episode: guard('episode', (event) => sink.episode(event)),
    step: guard('step', (event) => sink.step(event)),
    stall: guard('stall', (reason) => sink.stall(reason)),
  };
}

export async function startDryRunServer(options: DryRunServerOptions): Promise<DryRunServer> {
  const log: Log = options.log ?? (() => undefined);
  const trace = safeTrace(options.trace, log);
  const workDir = options.workDir ?? join(tmpdir(), 'agentswarm-dry-run');
  let port = options.port;
  const state = new SwarmState({ clientActiveTimeoutS: options.clientActiveTimeoutS ?? 600, log, ...(trace ? { trace } : {}) });
  const trainer = new DryRunTrainer(state, {
    mode: options.trainer,
    bootDelayMs: options.bootDelayMs ?? 3000,
    trainingStepMs: options.trainingStepMs ?? DRY_RUN_TRAINING_STEP_MS,
    baseUrl: () => `http://127.0.0.1:${port}/v1`,
    experimentBaseDir: join(workDir, 'saved_experiments'),
    log,
    ...(trace ? { trace } : {}),
    ...(options.onStepCollected ? { onStepCollected: options.onStepCollected } : {}),
  });

  const app = new SwarmHttpApp('AJet Interchange Endpoint', log);
  registerEngineRoutes({ app, state, trainer, codeBaseDir: join(workDir, 'ajet_temp'), log });
  registerEpisodeRoutes(app, state);
  registerPoolRoutes(app, state);
  registerLlmRoutes({ app, state, relay: options.relay, log, jobTemperature: () => (trainer.currentConfig ?? syncedConfig())?.temperature });

  const server = http.createServer((req, res) => void app.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      // The code stays: a port the app chose itself is chosen again (DryRunService), one the user named is not.
      reject(error.code === 'EADDRINUSE' ? Object.assign(new Error(`port ${options.port} on 127.0.0.1 is already in use: choose another port for the dry run`), { code: 'EADDRINUSE' }) : error);
    });
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : options.port;
  // Port checks elsewhere in the app (doctor, Start, tunnels) then name the dry run, not "node (pid <ours>)".
  const releasePort = claimOwnPort(port, 'app-dry-run');
  const stopJanitor = startJanitor(state, options.janitorIntervalMs ?? 10_000, log);
  log('info', `dry-run swarm server on http://127.0.0.1:${port} (trainer ${options.trainer}, ${options.relay ? 'LLM relay set' : 'no debug LLM'})`);

  const listeners = new Set<() => void>();
  state.on((event) => {
    if (event.type === 'agree') return; // followed by 'changed'
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        log('error', `a dry-run change listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  });

  let configCache: { yaml: string; config: TrainConfig } | undefined;
  const syncedConfig = (): TrainConfig | undefined => {
    const yaml = state.trainConfigYaml;
    if (yaml === undefined) return undefined;
    if (configCache?.yaml !== yaml) configCache = { yaml, config: readTrainConfig(yaml) };
    return configCache.config;
  };

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    snapshot: () => snapshotOf(state, trainer, syncedConfig()),
    syncedYaml: () => state.trainConfigYaml ?? null,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed ??= (async () => {
        stopJanitor();
        trainer.kill();
        listeners.clear();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        releasePort();
      })();
      return closed;
    },
  };
}

function snapshotOf(state: SwarmState, trainer: DryRunTrainer, config: TrainConfig | undefined): DryRunSnapshot {
  let registered = 0;
  let claimed = 0;
  for (const record of state.episodes.values()) {
    if (record.episode_status === 'claimed') claimed += 1;
    else registered += 1;
  }
  const pool = state.pool;
  // While an engine runs, the job it started with; once OFFLINE, the job synced last (what the next start uses).
  const offline = state.status === STATUS.OFFLINE;
  const shown = offline ? config : (trainer.currentConfig ?? config);
  const experiment = offline || state.serverExperimentDir === null ? plannedExperimentName(shown) : basename(state.serverExperimentDir);
  return {
    status: state.status,
    engineStatusDetail: state.engineStatusDetail,
    globalStep: state.globalStep,
    bootingSince: state.bootingStartTime === null ? null : Math.round(state.bootingStartTime * 1000),
    experimentDir: state.serverExperimentDir,
    train: shown
      ? {
          experimentName: experiment,
          projectName: shown.projectName,
          modelPath: shown.modelPath,
          batchSize: shown.batchSize,
          numRepeat: shown.numRepeat,
          sampleCollectionMethod: shown.sampleCollectionMethod,
          unknownMethod: shown.unknownMethod,
          maxEnvWorker: shown.maxEnvWorker,
          parsed: shown.parsed,
          unknownKeys: [...shown.unknownKeys],
        }
      : null,
    pool: {
      registered,
      claimed,
      activeClients: state.activeClients.length,
      completedEpisodes: pool.completed_episodes,
      completedEpisodeTarget: pool.completed_episode_target,
      completedTasks: pool.completed_tasks,
      completedTaskTarget: pool.completed_task_target,
      completedNonDummyTasks: pool.completed_non_dummy_tasks,
    },
    stall: trainer.stall,
    startRefusal: trainer.startRefusal,
  };
}

/** The YAML's experiment name; null for "read_yaml_name", which the start replaces by a timestamped one. */
function plannedExperimentName(config: TrainConfig | undefined): string | null {
  if (!config || config.experimentName === 'read_yaml_name') return null;
  return config.experimentName;
}
