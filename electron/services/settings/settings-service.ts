import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import { Settings, type SettingsPatch } from '../../shared/schemas';
import type { EventSink } from '../events';
import { describeZodError } from '../ipc/run-handler';
import { writeFileAtomic } from '../util/atomic-file';

export const DEFAULT_SETTINGS: Settings = {
  language: 'en',
  swarm: {
    image: 'ghcr.io/modelscope/agentjet:main',
    port: 10086,
    networkMode: 'publish',
    gpus: true,
    shmSizeGb: 32,
  },
};

/**
 * Non-secret preferences in `<dataDir>/settings.json`. Secrets never go here (they get their own
 * keychain-encrypted vault). A file we cannot read is moved aside, not overwritten, so nothing a
 * user wrote by hand is lost.
 */
export class SettingsService {
  private current: Settings = structuredClone(DEFAULT_SETTINGS);
  private readonly file: string;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly events?: EventSink,
  ) {
    this.file = join(dataDir, 'settings.json');
  }

  get path(): string {
    return this.file;
  }

  async load(): Promise<Settings> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.get();
      throw error;
    }
    const parsed = (() => {
      try {
        return Settings.safeParse(mergeDefaults(JSON.parse(text) as unknown));
      } catch {
        return null;
      }
    })();
    if (parsed?.success) {
      this.current = parsed.data;
    } else {
      const aside = `${this.file}.unreadable-${Date.now()}`;
      await rename(this.file, aside);
      this.current = structuredClone(DEFAULT_SETTINGS);
    }
    return this.get();
  }

  get(): Settings {
    return structuredClone(this.current);
  }

  async update(patch: SettingsPatch): Promise<Settings> {
    const next = Settings.safeParse({
      ...this.current,
      ...(patch.language ? { language: patch.language } : {}),
      swarm: { ...this.current.swarm, ...(patch.swarm ?? {}) },
    });
    if (!next.success) throw new AppError('SETTINGS_INVALID', describeZodError(next.error));
    this.current = next.data;
    const snapshot = JSON.stringify(this.current, null, 2);
    // Serialise writes so a slow earlier write can never land after a newer one.
    this.writing = this.writing.catch(() => undefined).then(() => writeFileAtomic(this.file, `${snapshot}\n`));
    await this.writing;
    this.events?.emit('settings:changed', this.get());
    return this.get();
  }
}

/** Older files may lack newer keys: fill them from the defaults instead of rejecting the file. */
function mergeDefaults(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  const value = raw as Record<string, unknown>;
  const swarm = typeof value.swarm === 'object' && value.swarm !== null ? value.swarm : {};
  return { ...DEFAULT_SETTINGS, ...value, swarm: { ...DEFAULT_SETTINGS.swarm, ...swarm } };
}
