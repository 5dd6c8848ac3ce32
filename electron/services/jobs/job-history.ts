import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { JobStartRequest, JobView } from '../../shared/schemas-jobs';
import { writeFileAtomic } from '../util/atomic-file';

/** A run as the history keeps it: its view, and what started it (for "run again"). */
export const JobRecord = z.object({
  view: JobView,
  request: JobStartRequest,
  /** Plain env the caller added (never a secret: those come from the vault by id at each start). */
  extraEnv: z.record(z.string(), z.string()).default({}),
});
export type JobRecordData = z.infer<typeof JobRecord>;

const HistoryFile = z.object({ version: z.literal(1), runs: z.array(z.unknown()) });

export const DEFAULT_MAX_RUNS = 200;

const LIVE_STATES = new Set<string>(['starting', 'running', 'cancelling']);

export const INTERRUPTED_MESSAGE =
  'The app ended while this job was running (it quit or crashed), so how the run ended is unknown. Open its log to see how far it got, then run it again.';

export interface HistoryLoad {
  records: JobRecordData[];
  /** Why the file was not used as it was (moved aside, records dropped), for the app log. */
  notes: string[];
  /** Runs that were live when the app ended and are `failed` now: the file needs writing. */
  interrupted: number;
}

/**
 * `<data>/jobs/history.json`: every run's view and request, oldest first, bounded by `pruneRecords`
 * (dropped runs lose their log files too). Writes are atomic and serialised; a file
 * that cannot be read as JSON is moved aside, never written over.
 */
export class JobHistory {
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly dir: string) {}

  get file(): string {
    return join(this.dir, 'history.json');
  }

  logFile(jobId: string): string {
    return join(this.dir, `${jobId}.log`);
  }

  /** Reads the history; runs left `starting`/`running`/`cancelling` by an app that ended become `failed`. */
  async load(now = new Date()): Promise<HistoryLoad> {
    const notes: string[] = [];
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], notes, interrupted: 0 };
      throw error;
    }
    let parsed: z.infer<typeof HistoryFile>;
    try {
      parsed = HistoryFile.parse(JSON.parse(text));
    } catch {
      const aside = `${this.file}.unreadable-${now.getTime()}`;
      await rename(this.file, aside);
      notes.push(`the job history could not be read; it was moved to ${aside} and a new one begins`);
      return { records: [], notes, interrupted: 0 };
    }
    const records: JobRecordData[] = [];
    let interrupted = 0;
    for (const run of parsed.runs) {
      const record = JobRecord.safeParse(run);
      if (!record.success) {
        notes.push('a run in the job history did not match this version and was left out');
        continue;
      }
      if (LIVE_STATES.has(record.data.view.state)) interrupted += 1;
      records.push(interruptedIfLive(record.data, now));
    }
    return { records, notes, interrupted };
  }

  /**
   * Writes the records (after the writes queued before it), then deletes the log files of the runs
   * `dropped` from it (see `pruneRecords`).
   */
  save(records: readonly JobRecordData[], dropped: readonly string[] = []): Promise<void> {
    const text = `${JSON.stringify({ version: 1, runs: records }, null, 1)}\n`;
    const write = this.queue.then(async () => {
      await writeFileAtomic(this.file, text);
      // Only once the history no longer names them: a crash in between leaves a stray file, never a dangling entry.
      await Promise.all(dropped.map((id) => rm(this.logFile(id), { force: true })));
    });
    this.queue = write.catch(() => undefined);
    return write;
  }
}

/** The oldest ended runs beyond `maxRuns` are dropped (a running one never is). Records are oldest first. */
export function pruneRecords(records: readonly JobRecordData[], maxRuns: number): { kept: JobRecordData[]; dropped: string[] } {
  const excess = Math.max(0, records.length - maxRuns);
  const dropped: string[] = [];
  for (const record of records) {
    if (dropped.length >= excess) break;
    if (!LIVE_STATES.has(record.view.state)) dropped.push(record.view.id);
  }
  return { kept: records.filter((r) => !dropped.includes(r.view.id)), dropped };
}

function interruptedIfLive(record: JobRecordData, now: Date): JobRecordData {
  const { view } = record;
  if (!LIVE_STATES.has(view.state)) return record;
  const endedAt = now.toISOString();
  return {
    ...record,
    view: {
      ...view,
      state: 'failed',
      endedAt,
      durationMs: Math.max(0, now.getTime() - Date.parse(view.startedAt)),
      failure: { code: 'JOB_CRASHED', message: INTERRUPTED_MESSAGE, params: { reason: 'app-ended' }, traceback: null },
    },
  };
}
