import { join } from 'node:path';
import {
  SWARM_DEFAULT_GPUS,
  SWARM_DEFAULT_IMAGE,
  SWARM_DEFAULT_NETWORK_MODE,
  SWARM_DEFAULT_PORT,
  SWARM_DEFAULT_SHM_GB,
} from '../../shared/defaults';
import { Settings, type SettingsPatch, type StoreStatus } from '../../shared/schemas';
import type { EventSink } from '../events';
import { JsonStore } from '../util/json-store';
import type { Logger } from '../util/logger';
import { mergePatch } from '../util/merge';
import { SETTINGS_VERSIONING } from './settings-migrations';

export const DEFAULT_SETTINGS: Settings = {
  language: 'en',
  swarm: {
    image: SWARM_DEFAULT_IMAGE,
    port: SWARM_DEFAULT_PORT,
    networkMode: SWARM_DEFAULT_NETWORK_MODE,
    gpus: SWARM_DEFAULT_GPUS,
    shmSizeGb: SWARM_DEFAULT_SHM_GB,
  },
};

export const SETTINGS_FILE = 'settings.json';

/**
 * Non-secret preferences in `<dataDir>/settings.json`. Secrets never go here (they get their own
 * keychain-encrypted vault). Reading and writing is a `JsonStore`, which never loses what a user
 * or a newer version wrote (see there); loading never throws, so a broken file cannot keep the
 * app from starting: `status()` tells the UI what happened instead.
 */
export class SettingsService {
  private readonly store: JsonStore<typeof Settings>;

  constructor(
    dataDir: string,
    private readonly events?: EventSink,
    logger?: Logger,
  ) {
    this.store = new JsonStore({
      file: join(dataDir, SETTINGS_FILE),
      schema: Settings,
      defaults: DEFAULT_SETTINGS,
      errors: { invalid: 'SETTINGS_INVALID', notSaved: 'SETTINGS_NOT_SAVED' },
      versioning: SETTINGS_VERSIONING,
      ...(logger ? { logger } : {}),
    });
  }

  get path(): string {
    return this.store.file;
  }

  /** Never throws: a file that cannot be read leaves defaults in memory, and `status()` says why. */
  async load(): Promise<Settings> {
    try {
      return await this.store.load();
    } finally {
      this.announceStatus();
    }
  }

  get(): Settings {
    return this.store.get();
  }

  status(): StoreStatus {
    return this.store.status();
  }

  /** `settings:status`: writability tested by writing now, announced when it changed. */
  async checkStatus(): Promise<StoreStatus> {
    await this.store.checkStatus();
    this.announceStatus();
    return this.store.status();
  }

  /** Saves a patch (any sections, any fields); memory and the `settings:changed` event follow only a successful write. */
  async update(patch: SettingsPatch): Promise<Settings> {
    try {
      const saved = await this.store.update((current) => mergePatch(current, patch));
      this.events?.emit('settings:changed', saved);
      return saved;
    } finally {
      // A save can change the status too: the file was fixed and re-read, or its original copied aside.
      this.announceStatus();
    }
  }

  private lastAnnounced: string | null = null;

  /** Emits `settings:status-changed` when the status differs from the one last announced. */
  private announceStatus(): void {
    const status = this.store.status();
    const key = JSON.stringify(status);
    if (key === this.lastAnnounced) return;
    this.lastAnnounced = key;
    this.events?.emit('settings:status-changed', status);
  }
}
