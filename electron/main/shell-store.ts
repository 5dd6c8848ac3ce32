import { copyFileSync, existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Store from 'electron-store';
import { z } from 'zod';
import type { StoreStatus } from '../shared/schemas';
import { PasswordStoreChoice } from '../shared/schemas-vault';
import { isPlainObject } from '../services/util/merge';
import { assertMigrationChain, migrate, VERSION_KEY, type Versioning } from '../services/util/migrations';

/**
 * The Electron shell's own state, in `<userData>/shell-state.json` through electron-store: what
 * must be known before `ready` (the `--password-store` backend and the user's "obfuscation only"
 * choice), the window's size and position, and the last page. Read synchronously at launch (the
 * switch has to be appended before `ready`). No secret ever goes here. The services keep their own
 * plain-Node settings store (settings.json); this file is the shell's alone.
 */

export const PasswordStore = PasswordStoreChoice.shape.passwordStore;
export type PasswordStore = z.infer<typeof PasswordStore>;

export const WindowState = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().min(100).max(32_000),
  height: z.number().int().min(100).max(32_000),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof WindowState>;

export const ShellState = z.object({
  /** `--password-store=` for the next launches; null = let Chromium detect the desktop's store. */
  passwordStore: PasswordStore,
  /** Linux `basic_text`: the user explicitly chose "obfuscation only" (`setUsePlainTextEncryption(true)`). */
  allowObfuscation: z.boolean(),
  window: WindowState.nullable(),
  /** A page id of the renderer's table (renderer/src/lib/pages.ts). */
  lastPage: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/)
    .nullable(),
});
export type ShellState = z.infer<typeof ShellState>;

export const SHELL_DEFAULTS: ShellState = { passwordStore: null, allowObfuscation: false, window: null, lastPage: null };
export const SHELL_STORE_NAME = 'shell-state';

/**
 * Version 1 is the first shape above. A change of shape adds a step `{ to: 2, … }` here and a test
 * in test/unit/main/shell-store.spec.ts loading a file of every earlier version.
 */
export const SHELL_VERSIONING: Versioning = { current: 1, migrations: [] };

export interface ShellStoreOptions {
  /** Absolute folder (Electron: app.getPath('userData'), which works before `ready`). */
  cwd: string;
  name?: string;
  versioning?: Versioning;
  now?: () => number;
}

type Key = keyof ShellState;

/** Why this text cannot be the store (null: it is a JSON object). */
function unusableJson(text: string): string | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return `not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  return isPlainObject(raw) ? null : 'not a JSON object';
}

/**
 * A corrupt file (not JSON, not an object, a step that fails) is kept as a backup next to it and
 * the defaults load; a field of the wrong shape falls back alone. `status()` says what happened,
 * in the same shape as settings.json's status, and `app:info` carries it to the UI.
 */
export class ShellStore {
  private constructor(
    private readonly store: Pick<Store<Record<string, unknown>>, 'set'> | null,
    private state: StoreStatus,
    private current: ShellState,
  ) {}

  /**
   * Defaults in memory, nothing written: for a launch where the file could not be opened at all
   * (the data folder unwritable). The app still starts; `status()` says why nothing is remembered.
   */
  static inMemory(file: string, detail: string): ShellStore {
    return new ShellStore(null, { file, problem: 'unreadable', writable: false, detail, movedTo: null, resetFields: [] }, { ...SHELL_DEFAULTS });
  }

  /** Synchronous on purpose: runs before `ready`, where the password-store switch is decided. */
  static open(options: ShellStoreOptions): ShellStore {
    const name = options.name ?? SHELL_STORE_NAME;
    const versioning = options.versioning ?? SHELL_VERSIONING;
    assertMigrationChain(versioning);
    const file = join(options.cwd, `${name}.json`);
    const now = options.now ?? Date.now;
    const status: StoreStatus = { file, problem: null, writable: true, detail: null, movedTo: null, resetFields: [] };
    // Our own keys stay plain: dots in them are not paths, and there is no app-version migration.
    const build = (): Store<Record<string, unknown>> => new Store({ name, cwd: options.cwd, clearInvalidConfig: false, accessPropertiesByDotNotation: false, configFileMode: 0o600 });
    const moveAside = (detail: string): Store<Record<string, unknown>> => {
      const aside = `${file}.corrupt-${now()}`;
      renameSync(file, aside);
      Object.assign(status, { problem: 'moved-aside', movedTo: aside, detail });
      return build();
    };

    // Checked on the text before electron-store sees it: conf would turn `[1,2]` into {"0":1,"1":2}
    // and write that back, so the user's file would be lost instead of kept.
    const problem = existsSync(file) ? unusableJson(readFileSync(file, 'utf8')) : null;
    let store = problem ? moveAside(problem) : build();
    let raw: unknown = store.store;
    // A first launch has no file: nothing to migrate, it starts at the current version.
    const outcome = existsSync(file) ? migrate(raw as Record<string, unknown>, versioning) : ({ kind: 'current' } as const);
    if (outcome.kind === 'failed') {
      store = moveAside(outcome.detail);
      raw = {};
    } else if (outcome.kind === 'migrated') {
      const backup = `${file}.v${outcome.from}-${now()}`;
      copyFileSync(file, backup);
      store.store = outcome.value;
      raw = outcome.value;
    }
    if ((raw as Record<string, unknown>)[VERSION_KEY] === undefined) store.set(VERSION_KEY, versioning.current);

    const value = { ...SHELL_DEFAULTS };
    const given = raw as Record<string, unknown>;
    for (const key of Object.keys(SHELL_DEFAULTS) as Key[]) {
      if (given[key] === undefined) continue;
      const parsed = ShellState.shape[key].safeParse(given[key]);
      if (parsed.success) (value as Record<Key, unknown>)[key] = parsed.data;
      else status.resetFields.push(key);
    }
    if (status.resetFields.length > 0) {
      // The original is copied aside before the bad fields are written over with their defaults.
      const backup = `${file}.invalid-${now()}`;
      copyFileSync(file, backup);
      for (const key of status.resetFields as Key[]) store.set(key, SHELL_DEFAULTS[key]);
      if (!status.problem) Object.assign(status, { problem: 'fields-reset', movedTo: backup, detail: 'invalid values replaced by defaults' });
    }
    return new ShellStore(store, status, value);
  }

  get file(): string {
    return this.state.file;
  }

  get(): ShellState {
    return structuredClone(this.current);
  }

  status(): StoreStatus {
    return structuredClone(this.state);
  }

  /** Validated, then written at once (electron-store writes atomically); throws on a value of the wrong shape. */
  set<K extends Key>(key: K, value: ShellState[K]): void {
    const parsed = ShellState.shape[key].parse(value) as ShellState[K];
    this.store?.set(key, parsed);
    this.current = { ...this.current, [key]: parsed };
  }
}
