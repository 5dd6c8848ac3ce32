import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, isAppError } from '../../shared/errors';
import type { LogAppended, LogExported, LogReadRequest, LogWindow, ServerLogTail } from '../../shared/schemas-profiles';
import type { EngineLogLine } from '../engines/container-engine';
import type { EngineRegistry } from '../engines/engine-registry';
import type { EventSink } from '../events';
import type { TargetEvent, WatchTarget } from '../swarm/swarm-monitor';
import type { Logger } from '../util/logger';
import { redact, redactLines } from '../util/redact';
import { linePredicate } from './log-filter';
import { LogFile } from './log-file';

/** `logs:appended` at most this often per container (the event queue drops the oldest past 1,000). */
export const APPENDED_EVERY_MS = 100;
/** Newest lines an `logs:appended` event carries; a viewer further behind reads a window. */
export const APPENDED_MAX_LINES = 200;
export const SERVER_LOG_PATH = '/workspace/log/swarm_server.log';
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;

export interface LogServiceOptions {
  engines: EngineRegistry;
  events: EventSink;
  logger: Logger;
  dataDir: string;
  downloadsDir: string;
  /** Whether the swarm monitor still watches the container (then a dropped follow is resumed). */
  isWatching: (engineId: string, containerId: string) => boolean;
  appendedEveryMs?: number;
}

type Entry = {
  engineId: string;
  containerId: string;
  file: Promise<LogFile>;
  follow: AbortController | null;
  /** Lines received and not written yet (written in one go, in order). */
  pending: EngineLogLine[];
  writing: Promise<void> | null;
  emitTimer: NodeJS.Timeout | null;
  lastEmitAt: number;
  emittedTotal: number;
  removed: boolean;
};

/** A file name part from an id: safe characters only, hashed when it has others. */
function safeName(id: string): string {
  return /^[A-Za-z0-9_.-]{1,128}$/.test(id) && !id.startsWith('.') ? id : createHash('sha256').update(id).digest('hex').slice(0, 32);
}

/**
 * Stored, followed logs of the swarm servers the monitor watches: each container's output is
 * followed from the engine (resuming from the stored cursor), written to
 * `<dataDir>/logs/<engine>/<container>.log`, and announced as throttled `logs:appended` events.
 */
export class LogService {
  private readonly entries = new Map<string, Entry>();
  private disposed = false;

  constructor(private readonly options: LogServiceOptions) {}

  pathOf(engineId: string, containerId: string): string {
    return join(this.options.dataDir, 'logs', safeName(engineId), `${safeName(containerId)}.log`);
  }

  /** What the monitor says about a server: follow it (again), read an ended one to its end, drop a removed one. */
  onTarget(event: TargetEvent): void {
    if (this.disposed) return;
    if (event.kind === 'forgotten') {
      void this.forget(event.engineId, event.containerId);
      return;
    }
    this.follow(event.target);
  }

  follow(target: WatchTarget): void {
    const entry = this.entryOf(target.engineId, target.containerId);
    if (entry.follow || entry.removed) return;
    const controller = new AbortController();
    entry.follow = controller;
    void this.followLoop(entry, controller.signal).finally(() => {
      if (entry.follow === controller) entry.follow = null;
    });
  }

  private entryOf(engineId: string, containerId: string): Entry {
    const key = `${engineId}:${containerId}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const file = LogFile.open(this.pathOf(engineId, containerId));
      file.catch(() => undefined);
      entry = { engineId, containerId, file, follow: null, pending: [], writing: null, emitTimer: null, lastEmitAt: 0, emittedTotal: -1, removed: false };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private async followLoop(entry: Entry, signal: AbortSignal): Promise<void> {
    let retryMs = RETRY_FIRST_MS;
    let file: LogFile;
    try {
      file = await entry.file;
    } catch (error) {
      this.options.logger.warn('could not open a stored log', { message: String((error as Error)?.message ?? error) });
      return;
    }
    if (entry.emittedTotal < 0) entry.emittedTotal = file.total;
    while (!signal.aborted) {
      await this.flush(entry);
      const cursor = file.cursor;
      try {
        const engine = this.options.engines.get(entry.engineId);
        await engine.followLog(entry.containerId, {
          signal,
          ...(cursor ? { sinceTimestamp: cursor.timestamp, skipAtSince: cursor.linesAtTimestamp } : {}),
          onLines: (lines) => this.received(entry, lines),
        });
        retryMs = RETRY_FIRST_MS;
      } catch (error) {
        if (isAppError(error) && (error.code === 'CONTAINER_NOT_FOUND' || error.code === 'ENGINE_NOT_FOUND')) break;
        this.options.logger.warn('following a container log failed; retrying', { engineId: entry.engineId, message: String((error as Error)?.message ?? error) });
      }
      await this.flush(entry);
      // The stream ends when the container stops; while the monitor still watches it, the end was a
      // dropped connection (engine restart, SSH reconnect): resume from the cursor after a pause.
      if (signal.aborted || !this.options.isWatching(entry.engineId, entry.containerId)) break;
      // Abortable: a dispose or a removed container must not leave this loop (and the process) waiting.
      await sleep(retryMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
    }
    await this.flush(entry);
  }

  private received(entry: Entry, lines: EngineLogLine[]): void {
    if (entry.removed) return;
    // Redacted before they are stored: the file, the viewer, events and exports all read the stored text.
    const texts = redactLines(lines.map((line) => line.text));
    // A line left as it was is kept as it was (no copy per line: a million lines pass through here).
    for (let i = 0; i < lines.length; i += 1) {
      const line = lines[i]!;
      entry.pending.push(texts[i] === line.text ? line : { stream: line.stream, timestamp: line.timestamp, text: texts[i]! });
    }
    if (!entry.writing) entry.writing = this.writeLoop(entry);
  }

  /** One writer per log: everything received while a write runs goes out in the next one. */
  private async writeLoop(entry: Entry): Promise<void> {
    try {
      const file = await entry.file;
      while (entry.pending.length > 0 && !entry.removed) {
        const batch = entry.pending;
        entry.pending = [];
        await file.append(batch);
        this.scheduleAppended(entry, file);
      }
    } catch (error) {
      this.options.logger.warn('could not store log lines', { message: String((error as Error)?.message ?? error) });
    } finally {
      entry.writing = null;
    }
  }

  private async flush(entry: Entry): Promise<void> {
    while (entry.writing) await entry.writing;
  }

  private scheduleAppended(entry: Entry, file: LogFile): void {
    if (entry.emitTimer || this.disposed) return;
    const every = this.options.appendedEveryMs ?? APPENDED_EVERY_MS;
    const wait = Math.max(0, entry.lastEmitAt + every - Date.now());
    entry.emitTimer = setTimeout(() => {
      entry.emitTimer = null;
      entry.lastEmitAt = Date.now();
      void this.emitAppended(entry, file);
    }, wait);
  }

  private async emitAppended(entry: Entry, file: LogFile): Promise<void> {
    const total = file.total;
    if (entry.removed || total === entry.emittedTotal) return;
    const from = Math.max(entry.emittedTotal, total - APPENDED_MAX_LINES, 0);
    entry.emittedTotal = total;
    const lines = await file.readRange(from, total);
    this.options.events.emit('logs:appended', { engineId: entry.engineId, containerId: entry.containerId, total, lines });
  }

  /** The stored log of a container: one being followed, or one stored by an earlier run. */
  private async fileOf(engineId: string, containerId: string): Promise<{ entry: Entry; file: LogFile }> {
    const key = `${engineId}:${containerId}`;
    const notFound = () => new AppError('LOG_NOT_FOUND', `No stored log for container ${containerId.slice(0, 12)} on ${engineId}. The app stores the logs of the swarm servers it watches; start or select one on the Servers page.`);
    const known = this.entries.get(key);
    // Being removed with its container: a read now must not open the file again (it made an empty log that stayed).
    if (known?.removed) throw notFound();
    if (!known) {
      try {
        await access(this.pathOf(engineId, containerId));
      } catch {
        throw notFound();
      }
    }
    const entry = this.entryOf(engineId, containerId);
    return { entry, file: await entry.file };
  }

  async read(request: LogReadRequest): Promise<LogWindow> {
    const predicate = linePredicate(request.filter);
    const { entry, file } = await this.fileOf(request.engineId, request.containerId);
    const probe = await file.filtered(predicate, 0, 0);
    const from = request.from === -1 ? Math.max(0, probe.matching - request.count) : request.from;
    const { matching, lines: numbers } = await file.filtered(predicate, from, request.count);
    const lines = [];
    // Consecutive line numbers are read as one range (the usual case: no filter, or dense matches).
    for (let i = 0; i < numbers.length; ) {
      let j = i + 1;
      while (j < numbers.length && numbers[j] === numbers[j - 1]! + 1) j += 1;
      lines.push(...(await file.readRange(numbers[i]!, numbers[j - 1]! + 1)));
      i = j;
    }
    return { total: file.total, matching, from: Math.min(from, matching), lines, following: entry.follow !== null };
  }

  async heads(): Promise<LogAppended[]> {
    const heads: LogAppended[] = [];
    for (const entry of this.entries.values()) {
      const file = await entry.file.catch(() => null);
      if (file && !entry.removed) heads.push({ engineId: entry.engineId, containerId: entry.containerId, total: file.total, lines: [] });
    }
    return heads;
  }

  async export(engineId: string, containerId: string): Promise<LogExported> {
    const { entry, file } = await this.fileOf(engineId, containerId);
    await this.flush(entry);
    await mkdir(this.options.downloadsDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
    const path = join(this.options.downloadsDir, `agentswarm-log-${safeName(engineId)}-${safeName(containerId).slice(0, 12)}-${stamp}.txt`);
    const { lines, bytes } = await file.exportTo(path);
    return { path, lines, bytes };
  }

  async serverLog(engineId: string, containerId: string, lines: number): Promise<ServerLogTail> {
    const engine = this.options.engines.get(engineId);
    // Upstream's lines are short; this many bytes hold the asked lines with room to spare.
    const maxBytes = Math.min(4 * 1024 * 1024, lines * 1024);
    const text = await engine.readContainerFile(containerId, SERVER_LOG_PATH, maxBytes);
    if (text === null) return { path: SERVER_LOG_PATH, found: false, lines: [] };
    const all = text.split('\n');
    if (all.at(-1) === '') all.pop();
    return { path: SERVER_LOG_PATH, found: true, lines: all.slice(-lines).map((line) => redact(line.replace(/\r$/, ''))) };
  }

  /** A removed container's stored log goes with it (what the user removed is gone, not kept for days). */
  private async forget(engineId: string, containerId: string): Promise<void> {
    const key = `${engineId}:${containerId}`;
    const entry = this.entries.get(key);
    if (!entry || entry.removed) return;
    // Kept in the table, marked, until its file is gone: a read meanwhile answers LOG_NOT_FOUND instead of opening the
    // file again (idle CI-AC: a read right after Remove found an empty log, recreated, that stayed).
    entry.removed = true;
    entry.follow?.abort();
    if (entry.emitTimer) clearTimeout(entry.emitTimer);
    try {
      await this.flush(entry);
      const file = await entry.file.catch(() => null);
      await file?.remove();
    } finally {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) {
      entry.follow?.abort();
      if (entry.emitTimer) clearTimeout(entry.emitTimer);
    }
    await Promise.allSettled(
      entries.map(async (entry) => {
        await this.flush(entry);
        await (await entry.file).close();
      }),
    );
  }
}
