import { mkdir } from 'node:fs/promises';
import { AppError, isAppError } from '../../shared/errors';
import {
  DRY_RUN_CONTAINER_ID,
  type DryRunConfig,
  type DryRunStartRequest,
  type DryRunView,
  type EpisodeTrace,
  type TraceExport,
  type TracePage,
  type TraceQuery,
} from '../../shared/schemas-dryrun';
import type { ContainerEvent, ContainerSummary, FollowLogOptions, LogReadOptions } from '../engines/container-engine';
import type { EventSink } from '../events';
import type { ExactStep } from '../training/step-recorder';
import { requireLlmFor } from '../secrets/secret-binding';
import type { SecretVaultApi } from '../secrets/vault-api';
import { forgetSecretValue, rememberSecretValue } from '../util/redact';
import type { Logger } from '../util/logger';
import type { DryRunRunSource } from './dry-run-engine';
import { DryRunLog } from './dry-run-log';
import type { DryRunRun, DryRunRunFactory } from './dry-run-parts';
import { choosePort, type PortChoice } from './dry-run-port';
import { dryRunContainer, viewOf, type KeyFrom } from './dry-run-view';

/** SIGTERM's exit code: the swarm monitor's exit reason reads it as "stopped", as for a container the user stopped. */
const STOPPED_EXIT = 143;
/** How many ports a dry run on a port of the app's choosing tries when each is taken before it binds. */
const PORT_ATTEMPTS = 5;
/** At most one `dryrun:changed` per this many ms while a run moves (the server changes on every claim). */
const VIEW_THROTTLE_MS = 200;
/** `dryrun:traces-changed` is an invalidation: the trace view refetches at most this often. */
const TRACES_THROTTLE_MS = 500;

export interface DryRunServiceOptions {
  events: EventSink;
  vault: SecretVaultApi;
  logger: Logger;
  appVersion: string;
  downloadsDir: string;
  /** Builds and starts one run's parts (register.ts: the real server, relay and trace store). */
  startRun: DryRunRunFactory;
  /** Where the search for a free port starts when the config names none (default 10086). */
  defaultPort?: number;
}

/** The run currently shown: running, or stopped with its traces kept until the next start. */
interface Run {
  keyFrom: KeyFrom;
  config: DryRunConfig;
  keySource: string;
  port: PortChoice;
  parts: DryRunRun;
  log: DryRunLog;
  container: ContainerSummary;
  sessionKey: string | null;
  unsubscribe: (() => void)[];
}

/**
 * The dry run on this computer: starts and stops one in-app swarm server (dry-run-server.ts) with
 * its relay to the debug LLM and its trace store, on 127.0.0.1 (10086 when free), and shows it as
 * the `dry-run` engine's one container (DryRunRunSource) so the swarm monitor, logs and training
 * dashboard follow it as a real server. The LLM key comes from the vault by id, or is typed for
 * this run and held in memory only; it is never in the view, a log or an event.
 */
export class DryRunService implements DryRunRunSource {
  private run: Run | null = null;
  private state: DryRunView['state'] = 'stopped';
  private error: string | null = null;
  private starting: Promise<unknown> | null = null;
  private readonly eventListeners = new Set<(event: ContainerEvent) => void>();
  private readonly stepListeners = new Set<(step: ExactStep) => void>();
  private viewTimer: NodeJS.Timeout | null = null;
  private tracesTimer: NodeJS.Timeout | null = null;
  private lastViewJson = '';
  private disposed = false;

  constructor(private readonly options: DryRunServiceOptions) {}

  /** The secret the running dry run uses, for the vault's "used by". */
  usage(): { secretId: string; label: string }[] {
    const secretId = this.state === 'running' ? this.run?.config.llm.secretId : null;
    return secretId ? [{ secretId, label: 'dry run' }] : [];
  }

  view(): DryRunView {
    return viewOf(this.state, this.error, this.run);
  }

  async start(request: DryRunStartRequest): Promise<DryRunView> {
    if (this.disposed) throw new AppError('DRY_RUN_STATE', 'The app is shutting down; start the dry run after it restarts.');
    if (this.starting || this.state === 'running') {
      throw new AppError('DRY_RUN_STATE', `The dry run already ${this.starting ? 'starts' : `runs on ${this.run?.parts.server.url}`}. Stop it first.`);
    }
    const started = this.startUnlocked(request);
    this.starting = started;
    try {
      await started;
      return this.view();
    } finally {
      this.starting = null;
    }
  }

  private async startUnlocked(request: DryRunStartRequest): Promise<void> {
    const { config } = request;
    this.state = 'starting';
    this.error = null;
    this.emitView(true);
    let sessionKey: string | null = null;
    try {
      const { apiKey, keySource, keyFrom } = await this.resolveKey(config, request.sessionKey);
      if (config.llm.secretId === null && apiKey !== null) {
        sessionKey = apiKey;
        rememberSecretValue(apiKey);
      }
      const log = new DryRunLog();
      const logFn = (level: 'info' | 'warn' | 'error', message: string) => log.write(level, message);
      const { port, parts } = await this.startOnFreePort(config, (chosen) => this.options.startRun({ config, apiKey, port: chosen, log: logFn }));
      logFn('info', `dry run on ${parts.server.url}: LLM calls go to ${config.llm.baseUrl} (model ${config.llm.model}, key ${keySource}). Nothing is trained.`);
      if (port.note) logFn('info', port.note);
      // The previous run's traces and log are dropped only now that the new run is up.
      await this.closeRun(false);
      const now = new Date().toISOString();
      const run: Run = { config, keySource, keyFrom, port, parts, log, sessionKey, unsubscribe: [], container: dryRunContainer(parts.server.port, this.options.appVersion, now) };
      run.unsubscribe.push(parts.server.onChange(() => this.emitView(false)));
      if (parts.steps) run.unsubscribe.push(parts.steps.onStep((step) => this.emitStep(step)));
      // Spend lives in the view and moves with the calls the trace records.
      run.unsubscribe.push(
        parts.traces.onChange(() => {
          this.emitTracesChanged();
          this.emitView(false);
        }),
      );
      this.run = run;
      this.state = 'running';
      sessionKey = null;
      this.emitView(true);
      this.notify({ containerId: DRY_RUN_CONTAINER_ID, action: 'start', exitCode: null, at: Date.now(), labels: run.container.labels });
    } catch (error) {
      if (sessionKey !== null) forgetSecretValue(sessionKey);
      this.state = 'failed';
      this.error = isAppError(error) ? error.message : `The dry run did not start: ${error instanceof Error ? error.message : String(error)}`;
      this.emitView(true);
      throw isAppError(error) ? error : new AppError('DRY_RUN_STATE', this.error, { cause: error });
    }
  }

  /**
   * The run on the configured port, else on the first free one from the default: a port found free can be taken
   * before the server binds it (idle CI-AI: the wizard's dry run lost 10087 to a tunnel), so a port the app chose
   * is chosen again past it, a few times; a port the user named is theirs to change.
   */
  private async startOnFreePort(config: DryRunConfig, start: (port: number) => Promise<DryRunRun>): Promise<{ port: PortChoice; parts: DryRunRun }> {
    let port = await choosePort(config.port, this.options.defaultPort);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return { port, parts: await start(port.port) };
      } catch (error) {
        const taken = (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
        if (!taken || config.port !== null || attempt >= PORT_ATTEMPTS) throw error;
        port = await choosePort(null, this.options.defaultPort, port.port);
      }
    }
  }

  private async resolveKey(config: DryRunConfig, sessionKey: string | undefined): Promise<{ apiKey: string | null; keySource: string; keyFrom: KeyFrom }> {
    const secretId = config.llm.secretId;
    if (secretId === null) {
      return sessionKey
        ? { apiKey: sessionKey, keySource: 'typed for this run', keyFrom: { kind: 'typed', name: null } }
        : { apiKey: null, keySource: 'none (the debug LLM takes no key)', keyFrom: { kind: 'none', name: null } };
    }
    const meta = this.options.vault.meta(secretId);
    const name = meta?.name;
    // Only an LLM key, and only towards the origin it was saved for: the relay sends it to config.llm.baseUrl.
    if (meta) requireLlmFor(meta, config.llm.baseUrl, 'The dry run');
    try {
      return { apiKey: await this.options.vault.reveal(secretId), keySource: `vault: ${name ?? secretId}`, keyFrom: { kind: 'vault', name: name ?? secretId } };
    } catch (error) {
      if (!isAppError(error)) throw error;
      if (error.code === 'VAULT_LOCKED') {
        throw new AppError('VAULT_LOCKED', `The vault is locked, so the dry run cannot read the key "${name ?? secretId}". Unlock the vault in Settings, or type a key for this run.`, { cause: error });
      }
      if (error.code === 'SECRET_NOT_FOUND') {
        throw new AppError('SECRET_NOT_FOUND', 'The key chosen for the dry run is no longer in the vault. Pick another LLM endpoint, or type a key for this run.', { cause: error });
      }
      throw error;
    }
  }

  /** `dryrun:stop`: refuses when nothing runs (the card offers Stop only while it does). */
  async stopRequested(): Promise<DryRunView> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.state !== 'running') throw new AppError('DRY_RUN_STATE', 'The dry run is not running.');
    await this.stop();
    return this.view();
  }

  /** Stops a running dry run; the server closes, the traces stay readable until the next start. */
  async stop(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.state !== 'running' || !this.run) return;
    await this.closeRun(true);
    this.state = 'stopped';
    this.emitView(true);
  }

  /** The row's Remove: stop, then no container (and no traces) is left. */
  async forget(): Promise<void> {
    await this.stop();
    const run = this.run;
    if (!run) return;
    this.run = null;
    this.emitView(true);
    this.emitTracesChanged();
    this.notify({ containerId: DRY_RUN_CONTAINER_ID, action: 'destroy', exitCode: null, at: Date.now(), labels: run.container.labels });
  }

  /** Closes the current run's server and relay; `announce`: tell the monitor the "container" died (a stop). */
  private async closeRun(announce: boolean): Promise<void> {
    const run = this.run;
    if (!run || run.container.state !== 'running') return;
    for (const off of run.unsubscribe.splice(0)) off();
    await Promise.allSettled([run.parts.server.close(), run.parts.relay.close?.()]);
    if (run.sessionKey !== null) forgetSecretValue(run.sessionKey);
    run.sessionKey = null;
    run.log.write('info', 'dry run stopped');
    run.log.end();
    // Only the app stops its dry run (its card's Stop, Remove, a spend limit, a quit): never "outside the app".
    run.container = { ...run.container, state: 'exited', exitCode: STOPPED_EXIT, finishedAt: new Date().toISOString(), stoppedByApp: true };
    if (announce) this.notify({ containerId: DRY_RUN_CONTAINER_ID, action: 'die', exitCode: STOPPED_EXIT, at: Date.now(), labels: run.container.labels });
  }

  traces(query: TraceQuery): TracePage {
    return this.traceStore().page(query);
  }

  trace(episodeUuid: string): EpisodeTrace {
    const trace = this.traceStore().episode(episodeUuid);
    if (!trace) throw new AppError('TRACE_NOT_FOUND', `No episode ${episodeUuid} in this dry run's trace (it belongs to an earlier run, or was never registered).`);
    return trace;
  }

  async exportTraces(): Promise<TraceExport> {
    const store = this.traceStore();
    await mkdir(this.options.downloadsDir, { recursive: true });
    return store.exportJsonl(this.options.downloadsDir);
  }

  private traceStore() {
    if (!this.run) throw new AppError('DRY_RUN_STATE', 'No dry run yet: start one, and its episodes show here.');
    return this.run.parts.traces;
  }

  // DryRunRunSource: the dry run as the `dry-run` engine's container.
  container(): ContainerSummary | null {
    return this.run?.container ?? null;
  }

  readLog(options: LogReadOptions): string[] {
    return this.run?.log.read(options) ?? [];
  }

  async followLog(options: FollowLogOptions): Promise<void> {
    await this.run?.log.follow(options);
  }

  /** Each completed training step of the running dry run, exactly as its trainer counted it (the training dashboard). */
  /** The YAML the running dry run's client synced last; null when none runs or nothing was synced. */
  syncedYaml(): string | null {
    return this.run?.parts.server.syncedYaml?.() ?? null;
  }

  onStep(listener: (step: ExactStep) => void): () => void {
    this.stepListeners.add(listener);
    return () => this.stepListeners.delete(listener);
  }

  private emitStep(step: ExactStep): void {
    for (const listener of [...this.stepListeners]) {
      try {
        listener(step);
      } catch (error) {
        this.options.logger.warn('a dry-run step listener failed', { message: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  onEvent(listener: (event: ContainerEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  private notify(event: ContainerEvent): void {
    for (const listener of [...this.eventListeners]) {
      try {
        listener(event);
      } catch (error) {
        this.options.logger.warn('a dry-run event listener failed', { message: String((error as Error)?.message ?? error) });
      }
    }
  }

  /** `now`: a state change, sent at once; otherwise throttled (the server changes on every claim and end). */
  private emitView(now: boolean): void {
    if (now) {
      if (this.viewTimer) clearTimeout(this.viewTimer);
      this.viewTimer = null;
      this.publishView();
      return;
    }
    this.viewTimer ??= setTimeout(() => {
      this.viewTimer = null;
      this.publishView();
    }, VIEW_THROTTLE_MS);
  }

  private publishView(): void {
    const view = this.view();
    const json = JSON.stringify(view);
    if (json === this.lastViewJson) return;
    this.lastViewJson = json;
    this.options.events.emit('dryrun:changed', view);
  }

  private emitTracesChanged(): void {
    this.tracesTimer ??= setTimeout(() => {
      this.tracesTimer = null;
      this.options.events.emit('dryrun:traces-changed', { total: this.run?.parts.traces.total() ?? 0 });
    }, TRACES_THROTTLE_MS);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop().catch((error: unknown) => this.options.logger.warn('stopping the dry run failed', { message: String((error as Error)?.message ?? error) }));
    if (this.viewTimer) clearTimeout(this.viewTimer);
    if (this.tracesTimer) clearTimeout(this.tracesTimer);
    this.eventListeners.clear();
    this.stepListeners.clear();
  }
}
