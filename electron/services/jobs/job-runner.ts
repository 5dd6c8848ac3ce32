import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { AppError } from '../../shared/errors';
import type { JobStart, JobViewData, PythonDiscoveryData } from '../../shared/schemas-jobs';
import type { EventSink } from '../events';
import type { SecretVaultApi } from '../secrets/vault-api';
import type { Logger } from '../util/logger';
import { redact } from '../util/redact';
import type { JobsApi } from './jobs-api';
import { DEFAULT_MAX_RUNS, JobHistory, pruneRecords, type JobRecordData } from './job-history';
import { HistorySaveState } from './history-save-state';
import { JobLog, readLogWindow, type LogLine } from './job-log';
import { classifyEnd, ResultCandidates, type JobFailureData } from './job-outcome';
import { checkAjet, checkCwd, checkEngineRestart, checkPython, checkSwarmHealth, jobEnv, resolveScript } from './job-preflight';
import { DEFAULT_KILL_TIMEOUTS, groupAlive, groupMembers, killTree, spawnInGroup, type TreeKillTimeouts } from './process-tree';
import { discoverPython, installHint } from './python-discovery';

export interface JobRunnerOptions {
  /** `<data>/jobs`: history.json and one `<id>.log` per run. */
  dir: string;
  events: EventSink;
  vault: SecretVaultApi;
  logger: Logger;
  /** The local URL of a watched swarm server (the tunnel's for a remote one); null when not watched or not running. */
  swarmUrl: (engineId: string, containerId: string) => string | null;
  killTimeouts?: TreeKillTimeouts;
  /** How long the preflight waits for `GET <AJET_SWARM_URL>/health` (default 4 s). */
  healthTimeoutMs?: number;
  /** Shorter, at app close: the app must not hang on a script that ignores SIGINT. */
  disposeKillTimeouts?: TreeKillTimeouts;
  maxRuns?: number;
  bufferLines?: number;
  /** At most one `jobs:log-appended` per job per this many ms (default 250: four a second). */
  logBatchMs?: number;
  /** The environment jobs start from (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** How often a history that could not be written is tried again (default 30 s). */
  historyRetryMs?: number;
}

interface LiveJob {
  log: JobLog;
  candidates: ResultCandidates;
  pid: number | null;
  stopping: 'user' | 'app-closed' | null;
  ended: Promise<JobViewData>;
  /** The tree kill of a cancel: the run is `cancelled` only once no process of its tree is left. */
  killed: Promise<unknown> | null;
  batchTimer: NodeJS.Timeout | null;
  /** The train slot (see `trainSlotKey`) this run holds, released when it ends. */
  trainKey: string | null;
}

const APP_CLOSED: JobFailureData = { code: 'JOB_CRASHED', message: 'The app closed while this job was running, so it was stopped. Run it again.', params: { reason: 'app-closed' }, traceback: null };

/** The job runner: preflight, spawn, stream, cancel, classify, history. See jobs-api.ts for the contract. */
export class JobRunner implements JobsApi {
  /** Every run, oldest first (the history file's order). */
  private records = new Map<string, JobRecordData>();
  private readonly live = new Map<string, LiveJob>();
  /** Train slots taken, set synchronously before any await of a start: two starts at once cannot both pass. */
  private readonly trainSlots = new Set<string>();
  private readonly listeners = new Set<(job: JobViewData) => void>();
  private readonly history: JobHistory;
  private readonly saves: HistorySaveState;
  private disposed = false;

  constructor(private readonly options: JobRunnerOptions) {
    this.history = new JobHistory(options.dir);
    this.saves = new HistorySaveState(() => void this.persist().catch(() => undefined), options.historyRetryMs);
  }

  async load(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const { records, notes, interrupted } = await this.history.load();
    for (const note of notes) this.options.logger.warn(note);
    this.records = new Map(records.map((r) => [r.view.id, r]));
    if (interrupted > 0) {
      this.options.logger.warn('jobs that were running when the app ended are marked failed', { count: interrupted });
      await this.persist();
    }
  }

  discoverPython(request: { projectDir: string | null; extra: string | null }): Promise<PythonDiscoveryData> {
    return discoverPython(request, this.options.baseEnv ? { env: this.options.baseEnv } : {});
  }

  async start(request: JobStart, options: { extraEnv?: Readonly<Record<string, string>> } = {}): Promise<JobViewData> {
    if (this.disposed) throw new AppError('INTERNAL', 'The app is closing: the job was not started.');
    const extraEnv = { ...(options.extraEnv ?? {}) };
    await checkCwd(request.cwd);
    const scriptPath = await resolveScript(request.cwd, request.script);
    await checkPython(request.python);
    await checkEngineRestart(request, scriptPath);
    const trainKey = trainSlotKey(request);
    // Race: two windows (or a double click) starting training on one server; the slot is taken before the next await.
    if (trainKey !== null) {
      if (this.trainSlots.has(trainKey)) throw this.busy(trainKey);
      this.trainSlots.add(trainKey);
    }
    try {
      const swarmUrl = request.swarm ? this.options.swarmUrl(request.swarm.engineId, request.swarm.containerId) : null;
      if (request.swarm) await checkSwarmHealth(swarmUrl, request.swarm, this.options.healthTimeoutMs);
      const env = await jobEnv(request, this.options.vault, swarmUrl, extraEnv, this.options.baseEnv);
      await checkAjet(request, env);
      // Race: the app began closing during the preflight; a process started now would outlive it.
      if (this.disposed) throw new AppError('INTERNAL', 'The app is closing: the job was not started.');
      return this.spawn(request, extraEnv, scriptPath, swarmUrl, env, trainKey);
    } catch (error) {
      if (trainKey !== null) this.trainSlots.delete(trainKey);
      throw error;
    }
  }

  /** JOB_BUSY naming the training run that holds the slot (or that one is starting). */
  private busy(trainKey: string): AppError {
    const runningId = [...this.live.entries()].find(([, l]) => l.trainKey === trainKey)?.[0];
    const running = runningId ? this.records.get(runningId)?.view : undefined;
    const which = running
      ? `"${running.label ?? running.script}" (job ${running.id}, started ${running.startedAt})`
      : 'that is starting right now';
    return new AppError('JOB_BUSY', `A training run ${which} already runs for this server profile (one training at a time per server). Stop it first (Jobs page), or wait until it ends.`);
  }

  async rerun(jobId: string): Promise<JobViewData> {
    const record = this.record(jobId);
    // An engine restart is agreed to per run, never carried over: it ends everyone's training again.
    return this.start({ ...record.request, confirmEngineRestart: false }, { extraEnv: record.extraEnv });
  }

  private spawn(request: JobStart, extraEnv: Record<string, string>, scriptPath: string, swarmUrl: string | null, env: Record<string, string | undefined>, trainKey: string | null): JobViewData {
    const id = newJobId();
    const startedAt = new Date();
    const log = new JobLog(this.history.logFile(id), this.options.bufferLines, (error) => this.options.logger.warn('a job log file could not be written', { jobId: id, message: error.message }));
    const candidates = new ResultCandidates();
    const view: JobViewData = {
      id,
      kind: request.kind,
      label: request.label,
      state: 'running',
      cwd: request.cwd,
      script: request.script,
      args: request.args,
      python: request.python,
      swarm: request.swarm,
      swarmUrl,
      llmSecretId: request.llmSecretId,
      startedAt: startedAt.toISOString(),
      endedAt: null,
      durationMs: null,
      exitCode: null,
      signal: null,
      pid: null,
      result: null,
      failure: null,
      logLines: 0,
      logFile: log.path,
      notSaved: null,
    };
    const live: LiveJob = { log, candidates, pid: null, stopping: null, ended: Promise.resolve(view), killed: null, batchTimer: null, trainKey };
    this.appendLine(id, live, 'app', `$ ${request.python} ${[scriptPath, ...request.args].join(' ')}   (in ${request.cwd}${swarmUrl ? `, AJET_SWARM_URL=${swarmUrl}` : ''})`);
    const run = spawnInGroup({
      file: request.python,
      args: [scriptPath, ...request.args],
      cwd: request.cwd,
      env,
      onLine: (stream, line) => {
        if (stream === 'out') candidates.seeOut(line);
        this.appendLine(id, live, stream, line);
      },
    });
    live.pid = run.pid;
    view.pid = run.pid;
    this.live.set(id, live);
    this.records.set(id, { view, request, extraEnv });
    live.ended = run.ended.then((end) => this.finish(id, live, startedAt, end));
    this.changed(id);
    return structuredClone(view);
  }

  /** Every line through the one redactor before it is kept or announced. */
  private appendLine(id: string, live: LiveJob, stream: 'out' | 'err' | 'app', line: string): void {
    live.log.append(stream, redact(line));
    // Batched invalidation: the UI reads lines by cursor (`jobs:log`), never one event per line.
    live.batchTimer ??= setTimeout(() => this.flushBatch(id, live), this.options.logBatchMs ?? 250);
  }

  private flushBatch(id: string, live: LiveJob): void {
    if (live.batchTimer) clearTimeout(live.batchTimer);
    live.batchTimer = null;
    this.options.events.emit('jobs:log-appended', { jobId: id, total: live.log.lines });
  }

  private async finish(id: string, live: LiveJob, startedAt: Date, end: { exitCode: number | null; signal: string | null; spawnError: string | null }): Promise<JobViewData> {
    const record = this.records.get(id)!;
    if (live.killed) await live.killed;
    else if (live.pid !== null && groupAlive(live.pid)) await this.stopLeftovers(id, live, live.pid);
    const endedAt = new Date();
    const durationMs = endedAt.getTime() - startedAt.getTime();
    let failure: JobFailureData | null;
    const result = live.candidates.result();
    if (live.stopping === 'app-closed') failure = APP_CLOSED;
    else if (live.stopping === 'user') failure = null;
    else if (end.spawnError !== null) failure = {
        code: 'PYTHON_NOT_FOUND',
        message: `${record.request.python} could not be started (${end.spawnError}). Pick another interpreter.`,
        params: { reason: 'spawn-failed', python: record.request.python, cause: end.spawnError },
        traceback: null,
      };
    else {
      failure = classifyEnd({
        exitCode: end.exitCode,
        signal: end.signal,
        lines: live.log.tail(),
        result,
        brokenResultLine: live.candidates.brokenResultLine(),
        swarmUrl: record.view.swarmUrl,
        python: record.request.python,
        installHint: installHint(record.request.python),
      });
    }
    const state = live.stopping !== null ? 'cancelled' : failure ? 'failed' : 'succeeded';
    const how = end.signal ? `killed by ${end.signal}` : `exit code ${end.exitCode ?? 'none'}`;
    this.appendLine(id, live, 'app', `${state} (${how}) after ${(durationMs / 1000).toFixed(1)} s${failure ? `: ${failure.message}` : ''}`);
    this.flushBatch(id, live);
    await live.log.close();
    Object.assign(record.view, { state, endedAt: endedAt.toISOString(), durationMs, exitCode: end.exitCode, signal: end.signal, result, failure, logLines: live.log.lines });
    this.live.delete(id);
    if (live.trainKey !== null) this.trainSlots.delete(live.trainKey);
    this.changed(id);
    return structuredClone(record.view);
  }

  /**
   * The script ended but processes it started still run in its group (a worker it never joined):
   * they belong to this run and are ended with it, so no run leaves orphans behind.
   */
  private async stopLeftovers(id: string, live: LiveJob, pgid: number): Promise<void> {
    const count = groupMembers(pgid)?.length;
    this.appendLine(id, live, 'app', `the script ended, but ${count ?? 'some'} process(es) it started still ran: stopping them`);
    await killTree(pgid, this.options.killTimeouts ?? DEFAULT_KILL_TIMEOUTS, (signal) => this.appendLine(id, live, 'app', `sent ${signal} to the processes the script left running`));
  }

  async cancel(jobId: string): Promise<JobViewData> {
    return this.stop(jobId, 'user', this.options.killTimeouts ?? DEFAULT_KILL_TIMEOUTS);
  }

  private async stop(jobId: string, why: 'user' | 'app-closed', timeouts: TreeKillTimeouts): Promise<JobViewData> {
    const record = this.record(jobId);
    const live = this.live.get(jobId);
    if (!live) return structuredClone(record.view);
    if (live.stopping === null) {
      live.stopping = why;
      record.view.state = 'cancelling';
      this.changed(jobId);
      const pid = live.pid;
      if (pid !== null) {
        const how = why === 'user' ? 'cancel' : 'the app is closing';
        live.killed = killTree(pid, timeouts, (signal) => this.appendLine(jobId, live, 'app', `${how}: sent ${signal} to the script and every process it started`))
          .then((signal) => this.options.logger.info?.('job stopped', { jobId, signal }))
          .catch((error: unknown) => this.options.logger.warn('a job could not be stopped', { jobId, message: (error as Error).message }));
      }
    }
    return live.ended;
  }

  get(jobId: string): JobViewData {
    const record = this.record(jobId);
    const live = this.live.get(jobId);
    return { ...structuredClone(record.view), logLines: live ? live.log.lines : record.view.logLines, notSaved: this.saves.of(jobId) };
  }

  /** Newest first. */
  list(): JobViewData[] {
    return [...this.records.keys()].reverse().map((id) => this.get(id));
  }

  waitForEnd(jobId: string): Promise<JobViewData> {
    const record = this.record(jobId);
    return this.live.get(jobId)?.ended ?? Promise.resolve(structuredClone(record.view));
  }

  onChange(listener: (job: JobViewData) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lines of a run by number: a running job's from memory (older ones from its file), an ended one's from its file. */
  async log(jobId: string, from: number, limit: number): Promise<{ jobId: string; lines: LogLine[]; total: number }> {
    const record = this.record(jobId);
    const live = this.live.get(jobId);
    try {
      // A running job's older lines come from its file too, which can be gone as well.
      if (live) return { jobId, lines: await live.log.window(from, limit), total: live.log.lines };
      return { jobId, lines: await readLogWindow(record.view.logFile, from, limit), total: record.view.logLines };
    } catch (error) {
      throw new AppError('LOG_UNAVAILABLE', `The log of this run (${record.view.logFile}) cannot be read: ${(error as Error).message}.`, { cause: error });
    }
  }

  /** The log file's path, for opening it; LOG_UNAVAILABLE when it is gone. */
  logFile(jobId: string): string {
    return this.record(jobId).view.logFile;
  }

  /** App close: every running job is stopped (its state says the app closed), the history written. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const timeouts = this.options.disposeKillTimeouts ?? { intMs: 1500, termMs: 1000 };
    await Promise.all([...this.live.keys()].map((id) => this.stop(id, 'app-closed', timeouts).catch(() => undefined)));
    await this.persist().catch(() => undefined);
    this.saves.dispose();
  }

  private record(jobId: string): JobRecordData {
    const record = this.records.get(jobId);
    if (!record) throw new AppError('JOB_NOT_FOUND', `No job "${jobId}" in the history (it may have been dropped: the history keeps the newest ${this.options.maxRuns ?? DEFAULT_MAX_RUNS} runs).`);
    return record;
  }

  /** A state change: the snapshot to listeners and `jobs:changed`, and the history to disk. */
  private changed(jobId: string): void {
    this.saves.touch(jobId);
    this.announce(jobId);
    void this.persist().catch((error: unknown) => this.options.logger.warn('the job history could not be saved', { message: (error as Error).message }));
  }

  /** The run's snapshot to `jobs:changed` and the listeners (no write). */
  private announce(jobId: string): void {
    if (!this.records.has(jobId)) return;
    const view = this.get(jobId);
    this.options.events.emit('jobs:changed', view);
    for (const listener of this.listeners) {
      try {
        listener(view);
      } catch (error) {
        this.options.logger.warn('a job listener failed', { message: (error as Error).message });
      }
    }
  }

  /** Writes the history; the runs it carries show `notSaved` while it fails, and lose it once it works. */
  private persist(): Promise<void> {
    const { kept, dropped } = pruneRecords([...this.records.values()], this.options.maxRuns ?? DEFAULT_MAX_RUNS);
    for (const id of dropped) {
      this.records.delete(id);
      this.saves.forget(id);
    }
    const carried = this.saves.carried();
    return this.history.save(kept, dropped).then(
      () => {
        for (const id of this.saves.saved(carried)) this.announce(id);
      },
      (error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        for (const id of this.saves.failed(carried, { code, file: this.history.file })) this.announce(id);
        throw error;
      },
    );
  }
}

/**
 * The slot a train run holds: its server profile (one training per profile at a time), or the
 * server itself for a run without a profile (the dry run). Null for every other kind.
 */
export function trainSlotKey(request: Pick<JobStart, 'kind' | 'swarm'>): string | null {
  if (request.kind !== 'train' || !request.swarm) return null;
  return request.swarm.profileId !== null ? `profile:${request.swarm.profileId}` : `server:${request.swarm.engineId}:${request.swarm.containerId}`;
}

/** Sortable by time, unique enough, and within the JobId pattern. */
function newJobId(): string {
  return `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
