import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { PoolId, PoolSplit, PoolStartRequest, WorkerNote, WorkerPlacement, WorkerState } from '../../shared/schemas-workers';
import { writeFileAtomic } from '../util/atomic-file';

/**
 * The worker pools on disk (`<data>/workers/pools.json`, 0600): what an app restart needs to find
 * every worker again — where it runs, its pid and run folder, its share. No secret is in it (the
 * request names the LLM secret by id only).
 */
const WorkerRecord = z.object({
  index: z.number().int().nonnegative(),
  placement: WorkerPlacement,
  state: WorkerState,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  shareEnv: z.record(z.string(), z.string()),
  batchShare: z.number().int().positive(),
  parallelEpisodes: z.number().int().positive(),
  handle: z
    .object({ pid: z.number().int().nullable(), jobId: z.string().nullable(), runDir: z.string().nullable(), logOffset: z.number().int().nonnegative(), note: z.string().nullable(), notes: z.array(WorkerNote).default([]), tunnelPort: z.number().int().nullable().default(null) })
    .nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  note: z.string().nullable(),
  /** `note` as data (a file from before has none: the renderer shows `note` then). */
  notes: z.array(WorkerNote).default([]),
  lastError: z.string().nullable().default(null),
  /** The user was told it died (once, not again after a restart). */
  notified: z.boolean().default(false),
  /** A local worker the app's own close stopped: started again when the app starts. */
  resumeOnStart: z.boolean().default(false),
});

const PoolRecord = z.object({
  poolId: PoolId,
  label: z.string().nullable(),
  createdAt: z.string(),
  request: PoolStartRequest,
  split: PoolSplit,
  swarmUrl: z.string().nullable(),
  workers: z.array(WorkerRecord),
});

const PoolFile = z.object({ version: z.literal(1), pools: z.array(PoolRecord) });

export type WorkerRecordData = z.infer<typeof WorkerRecord>;
export type PoolRecordData = z.infer<typeof PoolRecord>;

/** Ended pools kept in the list (running ones are always kept). */
export const KEPT_ENDED_POOLS = 20;

export class PoolStore {
  readonly file: string;

  constructor(dir: string) {
    this.file = join(dir, 'pools.json');
  }

  /** The saved pools; an unreadable file gives none and a note (the app must still start). */
  async load(): Promise<{ pools: PoolRecordData[]; note: string | null }> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { pools: [], note: null };
      return { pools: [], note: `${this.file} could not be read: ${(error as Error).message}` };
    }
    try {
      return { pools: PoolFile.parse(JSON.parse(text)).pools, note: null };
    } catch (error) {
      return { pools: [], note: `${this.file} is not a pool list the app understands (${(error as Error).message.slice(0, 200)}); its workers are not watched` };
    }
  }

  async save(pools: readonly PoolRecordData[]): Promise<void> {
    await mkdir(join(this.file, '..'), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, pools }, null, 2)}\n`, 0o600);
  }
}
