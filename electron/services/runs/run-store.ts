import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RunsSettings, type RunStats } from '../../shared/schemas-runs';
import { writeFileAtomic } from '../util/atomic-file';
import { runStats, type StoredRun } from './run-stats';

/** What the store keeps in memory of each run: the file without the YAML, scripts and series, and its size. */
export interface RunIndexEntry {
  run: Omit<StoredRun, 'yaml' | 'scripts' | 'points' | 'timeline'> & { scriptCount: number };
  stats: RunStats;
  bytes: number;
}

const SETTINGS_FILE = 'settings.json';
const RUN_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.json$/;

function indexEntry(run: StoredRun, bytes: number): RunIndexEntry {
  const { yaml: _yaml, scripts, points, timeline: _timeline, ...rest } = run;
  return { run: { ...rest, scriptCount: scripts.length }, stats: runStats(points), bytes };
}

/** A run file read back: the fields a run must have, else it is not one (a foreign or torn file is skipped). */
function parseRun(text: string): StoredRun | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const run = value as Partial<StoredRun> | null;
  if (!run || run.version !== 1 || typeof run.runId !== 'string' || typeof run.engineId !== 'string' || typeof run.startedAt !== 'string') return null;
  if (!Array.isArray(run.points) || !Array.isArray(run.timeline) || !Array.isArray(run.scripts)) return null;
  return run as StoredRun;
}

/**
 * Every kept run on disk: `<dataDir>/runs/<runId>.json`, one file per run, each written whole and
 * atomically (a crash leaves the old or the new file, never half), plus the store's settings (limits,
 * rates). Bounded: beyond `keepRuns` runs or `keepMegabytes`, the oldest ended runs are deleted.
 */
export class RunStore {
  private readonly index = new Map<string, RunIndexEntry>();
  private settingsValue: RunsSettings = RunsSettings.parse({});
  /** Writes of one run in order (a slow write must not land after a newer one). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly onError: (message: string, error: unknown) => void = () => undefined,
  ) {}

  async load(): Promise<void> {
    this.settingsValue = await readFile(join(this.dir, SETTINGS_FILE), 'utf8')
      .then((text) => RunsSettings.parse(JSON.parse(text)))
      .catch(() => RunsSettings.parse({}));
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!RUN_FILE.test(name) || name === SETTINGS_FILE) continue;
      try {
        const text = await readFile(join(this.dir, name), 'utf8');
        const run = parseRun(text);
        if (run && `${run.runId}.json` === name) this.index.set(run.runId, indexEntry(run, Buffer.byteLength(text)));
      } catch (error) {
        this.onError(`could not read the kept run ${name}`, error);
      }
    }
  }

  get settings(): RunsSettings {
    return this.settingsValue;
  }

  async saveSettings(next: RunsSettings): Promise<RunsSettings> {
    const parsed = RunsSettings.parse(next);
    await writeFileAtomic(join(this.dir, SETTINGS_FILE), JSON.stringify(parsed, null, 2));
    this.settingsValue = parsed;
    return parsed;
  }

  entries(): RunIndexEntry[] {
    return [...this.index.values()];
  }

  entry(runId: string): RunIndexEntry | undefined {
    return this.index.get(runId);
  }

  private fileOf(runId: string): string {
    return join(this.dir, `${runId}.json`);
  }

  /** Writes the run whole; the index follows once it is on disk. */
  save(run: StoredRun): Promise<void> {
    const text = JSON.stringify(run);
    const previous = this.queues.get(run.runId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        await writeFileAtomic(this.fileOf(run.runId), text);
        this.index.set(run.runId, indexEntry(run, Buffer.byteLength(text)));
      })
      .catch((error: unknown) => this.onError('could not keep a training run', error));
    this.queues.set(run.runId, next);
    void next.then(() => {
      if (this.queues.get(run.runId) === next) this.queues.delete(run.runId);
    });
    return next;
  }

  async read(runId: string): Promise<StoredRun | null> {
    if (!this.index.has(runId)) return null;
    await this.queues.get(runId);
    try {
      return parseRun(await readFile(this.fileOf(runId), 'utf8'));
    } catch (error) {
      this.onError('could not read a kept run', error);
      return null;
    }
  }

  async delete(runId: string): Promise<boolean> {
    if (!this.index.has(runId)) return false;
    await this.queues.get(runId);
    this.index.delete(runId);
    await rm(this.fileOf(runId), { force: true });
    return true;
  }

  /**
   * Deletes the oldest ended runs until at most `keepRuns` runs and `keepMegabytes` remain. Runs that
   * still go on (`open`) are never dropped. Returns the ids it deleted.
   */
  async prune(open: ReadonlySet<string>): Promise<string[]> {
    const { keepRuns, keepMegabytes } = this.settingsValue;
    const byAge = [...this.index.values()].sort((a, b) => a.run.startedAt.localeCompare(b.run.startedAt) || a.run.runId.localeCompare(b.run.runId));
    let count = byAge.length;
    let bytes = byAge.reduce((n, e) => n + e.bytes, 0);
    const limitBytes = keepMegabytes * 1024 * 1024;
    const dropped: string[] = [];
    for (const entry of byAge) {
      if (count <= keepRuns && bytes <= limitBytes) break;
      if (open.has(entry.run.runId)) continue;
      await this.delete(entry.run.runId);
      dropped.push(entry.run.runId);
      count -= 1;
      bytes -= entry.bytes;
    }
    return dropped;
  }

  async flush(): Promise<void> {
    await Promise.all([...this.queues.values()]);
  }
}
