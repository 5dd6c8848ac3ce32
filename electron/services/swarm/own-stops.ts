import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-file';
import type { Logger } from '../util/logger';

/** Stops remembered, newest last; older ones drop off (an end is read again only at a restart or reconnect). */
const KEEP = 500;
export const OWN_STOPS_FILE = 'own-stops.json';

/**
 * The servers the app itself stopped, kept on disk. After an app restart (or an SSH reconnect) an end is read again
 * from the engine alone: a Docker container's exit code 143, a Slurm job's CANCELLED. Without this record the app's
 * own Stop would read "stopped outside the app" or "cancelled in the scheduler" then, and be told as news.
 */
export class OwnStops {
  private keys: string[] = [];
  private readonly file: string;
  private readonly loaded: Promise<void>;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    this.file = join(dataDir, OWN_STOPS_FILE);
    this.loaded = readFile(this.file, 'utf8')
      .then((text) => {
        const parsed: unknown = JSON.parse(text);
        // A stop recorded before the file was read stays (newest last).
        if (Array.isArray(parsed)) this.keys = [...parsed.filter((x): x is string => typeof x === 'string' && !this.keys.includes(x)), ...this.keys];
      })
      .catch(() => undefined);
  }

  /** The app's Stop of this server began. */
  add(engineId: string, containerId: string): void {
    const key = keyOf(engineId, containerId);
    this.keys = [...this.keys.filter((k) => k !== key), key].slice(-KEEP);
    this.save();
  }

  /** The Stop failed (the server still runs): a later end is not the app's. */
  drop(engineId: string, containerId: string): void {
    const key = keyOf(engineId, containerId);
    if (!this.keys.includes(key)) return;
    this.keys = this.keys.filter((k) => k !== key);
    this.save();
  }

  async has(engineId: string, containerId: string): Promise<boolean> {
    await this.loaded;
    return this.keys.includes(keyOf(engineId, containerId));
  }

  /** Resolves once the list is on disk. */
  flushed(): Promise<void> {
    return this.saving;
  }

  private save(): void {
    this.saving = this.saving
      .then(() => this.loaded)
      .then(() => writeFileAtomic(this.file, JSON.stringify(this.keys)))
      .catch((error: unknown) => this.logger?.warn('could not keep which servers the app stopped', { message: error instanceof Error ? error.message : String(error) }));
  }
}

function keyOf(engineId: string, containerId: string): string {
  return `${engineId}:${containerId}`;
}
