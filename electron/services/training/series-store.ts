import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { redactText } from '../util/redact';
import { join } from 'node:path';
import type { z } from 'zod';
import { TrainingPoint } from '../../shared/schemas-profiles';

/** A point as written: the schema's defaults (batch "pool", nulls) are left out to keep long runs small. */
export type StoredPoint = z.input<typeof TrainingPoint>;

export function storedPoint(point: TrainingPoint): StoredPoint {
  const { batch, seconds, llmTokens, llmCalls, failures, ...rest } = point;
  return {
    ...rest,
    ...(batch !== 'pool' ? { batch } : {}),
    ...(seconds !== null ? { seconds } : {}),
    ...(llmTokens !== null ? { llmTokens } : {}),
    ...(llmCalls !== null ? { llmCalls } : {}),
    ...(failures !== null ? { failures } : {}),
  };
}

/**
 * One line of a run file. Short keys: a run of 10,000 steps writes about 10,000 points and 30,000
 * status changes, and the file should stay a few megabytes.
 */
export type RunRecord =
  | { k: 'run'; runId: string; t: number }
  | { k: 's'; s: string; t: number }
  | ({ k: 'p' } & StoredPoint)
  | { k: 'end'; t: number };

export interface StoredRun {
  runId: string;
  startedAt: number;
  points: TrainingPoint[];
  statuses: { status: string; at: number }[];
  ended: boolean;
}

/** Runs kept per server; older run files are deleted when a new run starts. */
const KEEP_RUNS = 5;
/** What a run keeps in memory (and reads back): enough for any chart, bounded for a run that never ends. */
export const MAX_POINTS_IN_MEMORY = 20_000;
export const MAX_STATUSES_IN_MEMORY = 5_000;

/** A file-name-safe form of an engine or container id (ids are not ours to trust with a path). */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).replace(/^\.+/, '_');
}

/** Run ids sort by time: a UTC stamp, then a random tail in case two runs start within the same ms. */
export function newRunId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${Math.random().toString(16).slice(2, 6)}`;
}

/**
 * Appends, keeping about the newest `cap` items: the oldest are cut in batches (a quarter of the cap
 * at a time), not one by one, so a long run does not shift thousands of items on every push.
 */
export function pushCapped<T>(list: T[], item: T, cap: number): void {
  list.push(item);
  if (list.length > cap + Math.ceil(cap / 4)) list.splice(0, list.length - cap);
}

/**
 * The per-run time series on disk: `<dataDir>/training/<engineId>/<containerId>/<runId>.jsonl`, one
 * JSON record per line, appended with one write each (O_APPEND: a record is never interleaved with
 * another). A crash can leave a torn last line; reading skips lines that do not parse.
 */
export class SeriesStore {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly root: string,
    private readonly onError: (message: string, error: unknown) => void = () => undefined,
  ) {}

  private dirOf(engineId: string, containerId: string): string {
    return join(this.root, safeName(engineId), safeName(containerId));
  }

  /** Appends in order per file; a failed write is reported and does not block the next ones. */
  append(engineId: string, containerId: string, runId: string, records: RunRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const dir = this.dirOf(engineId, containerId);
    const file = join(dir, `${safeName(runId)}.jsonl`);
    // Run records hold the job's own text (errors, config names): redacted like every payload.
    const text = redactText(records.map((r) => JSON.stringify(r)).join('\n')) + '\n';
    const previous = this.queues.get(file) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await appendFile(file, text, { mode: 0o600 });
        if (records.some((r) => r.k === 'run')) await this.prune(dir);
      })
      .catch((error: unknown) => this.onError('could not write the training series', error));
    this.queues.set(file, next);
    void next.then(() => {
      if (this.queues.get(file) === next) this.queues.delete(file);
    });
    return next;
  }

  /** Waits for every write queued so far (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.queues.values()]);
  }

  private async runFiles(dir: string): Promise<string[]> {
    const names = await readdir(dir).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.jsonl')).sort();
  }

  private async prune(dir: string): Promise<void> {
    const files = await this.runFiles(dir);
    for (const name of files.slice(0, Math.max(0, files.length - KEEP_RUNS))) await rm(join(dir, name), { force: true });
  }

  /** The newest run of a server as stored, or null when there is none (or it cannot be read). */
  async latestRun(engineId: string, containerId: string): Promise<StoredRun | null> {
    const dir = this.dirOf(engineId, containerId);
    const files = await this.runFiles(dir);
    const newest = files.at(-1);
    if (!newest) return null;
    let text: string;
    try {
      text = await readFile(join(dir, newest), 'utf8');
    } catch (error) {
      this.onError('could not read the training series', error);
      return null;
    }
    return parseRun(text);
  }

  /** Drops every stored run of a server (the container was removed). */
  async forget(engineId: string, containerId: string): Promise<void> {
    await this.flush();
    await rm(this.dirOf(engineId, containerId), { recursive: true, force: true });
  }
}

export function parseRun(text: string): StoredRun | null {
  let run: StoredRun | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: RunRecord;
    try {
      record = JSON.parse(line) as RunRecord;
    } catch {
      continue; // a torn last line after a crash
    }
    if (record.k === 'run' && typeof record.runId === 'string' && run === null) {
      run = { runId: record.runId, startedAt: record.t, points: [], statuses: [], ended: false };
    } else if (!run) {
      continue;
    } else if (record.k === 's' && typeof record.s === 'string' && typeof record.t === 'number') {
      pushCapped(run.statuses, { status: record.s, at: record.t }, MAX_STATUSES_IN_MEMORY);
    } else if (record.k === 'p') {
      const point = TrainingPoint.safeParse(legacyPoint(record as unknown as Record<string, unknown>));
      if (!point.success) continue;
      // A later point of the same step replaces it (the trainer's exact record arrived after the step closed).
      const index = recentIndexOf(run.points, point.data.step);
      const last = run.points.at(-1);
      const later = index < 0 && last && last.step > point.data.step ? run.points.findIndex((p) => p.step > point.data.step) : -1;
      if (index >= 0) run.points[index] = point.data;
      // A step the trainer reported after later steps closed (the run was first seen midway) goes in its place.
      else if (later >= 0) run.points.splice(later, 0, point.data);
      else pushCapped(run.points, point.data, MAX_POINTS_IN_MEMORY);
    } else if (record.k === 'end') {
      run.ended = true;
    }
  }
  return run;
}

/** How far back a replacement point looks for its step (replacements concern the newest steps). */
const REPLACE_WINDOW = 50;

function recentIndexOf(points: readonly TrainingPoint[], step: number): number {
  for (let i = points.length - 1; i >= Math.max(0, points.length - REPLACE_WINDOW); i--) if (points[i]?.step === step) return i;
  return -1;
}

/**
 * A point as stored. Runs written before points said how their batch was learnt stored a step that
 * passed unobserved as 0 episodes without rewards: it reads back as "unobserved", not as an empty batch.
 */
function legacyPoint(record: Record<string, unknown>): Record<string, unknown> {
  const { k: _k, ...rest } = record;
  if (rest['batch'] === undefined && rest['episodes'] === 0 && rest['rewardMean'] === null) return { ...rest, batch: 'unobserved', episodes: null };
  return rest;
}
