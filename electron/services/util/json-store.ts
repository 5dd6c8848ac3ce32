import { constants } from 'node:fs';
import { copyFile, open, rename } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../shared/errors';
import type { StoreStatus } from '../../shared/schemas';
import { probeWritable, writeFailureWords, writeFileAtomic } from './atomic-file';
import type { Logger } from './logger';
import { isPlainObject } from './merge';
import { assertMigrationChain, migrate, VERSION_KEY, versionOf, type Migration, type Versioning } from './migrations';
import { describeZodError } from './zod-messages';

export interface JsonStoreOptions<S extends z.ZodObject> {
  file: string;
  schema: S;
  defaults: z.infer<S>;
  /** Codes of the AppErrors `update` throws: a value the schema refuses, and a write that failed. */
  errors: { invalid: ErrorCode; notSaved: ErrorCode };
  logger?: Logger;
  now?: () => number;
  /**
   * Versioned files: the `version` the app writes now and the steps that bring an older file up
   * to it. A file without a `version` field is version 1 (the shape before versions existed).
   */
  versioning?: JsonStoreVersioning;
}

export type JsonStoreMigration = Migration;
export type JsonStoreVersioning = Versioning;

/**
 * One JSON object in one file (settings today, wizard progress next) that never loses what a user
 * or a newer version of the app wrote:
 * - a file that cannot be read (a directory, no permission, the data folder is a file) leaves the
 *   defaults in memory and is never written over; `status()` says what happened and where;
 * - a file that is not a JSON object (broken text, an array, a number) is moved aside, whole;
 * - a field the schema refuses falls back to its default alone, the other fields keep their values,
 *   and before the first write the original file is copied aside;
 * - keys this version does not know are written back unchanged;
 * - memory changes only after the write succeeded, and writes are serialised;
 * - with `versioning`, an older file is migrated step by step when read, and its original is
 *   copied aside (`<file>.v<N>-<time>`) before the first write in the new shape; a file from a
 *   newer version is read as it is and keeps its version number.
 */
export class JsonStore<S extends z.ZodObject> {
  private current: z.infer<S>;
  /** The object as read from disk, unknown keys included; the base every write is laid over. */
  private onDisk: Record<string, unknown> = {};
  private state: StoreStatus;
  private backupPending = false;
  /** The version the file had when read, when that is older than `versioning.current` (backup before the first write). */
  private migratedFrom: number | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: JsonStoreOptions<S>) {
    if (options.versioning) assertMigrationChain(options.versioning);
    this.current = structuredClone(options.defaults);
    this.state = okStatus(options.file);
  }

  get file(): string {
    return this.options.file;
  }

  get(): z.infer<S> {
    return structuredClone(this.current);
  }

  status(): StoreStatus {
    return structuredClone(this.state);
  }

  async load(): Promise<z.infer<S>> {
    const { file } = this.options;
    let text: string;
    try {
      text = await readRegularFile(file);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT') return this.reset(await this.withWritability(okStatus(file)), {});
      return this.reset(
        { ...okStatus(file), problem: 'unreadable', writable: false, detail: `${code}: ${readFailure(code)}` },
        {},
      );
    }
    const raw = parseJson(text);
    if (!isPlainObject(raw)) {
      const aside = `${file}.unreadable-${this.now()}`;
      try {
        await rename(file, aside);
      } catch (error) {
        const code = errnoCode(error);
        return this.reset({ ...okStatus(file), problem: 'unreadable', writable: false, detail: `${code}: not a JSON object, and it could not be moved aside` }, {});
      }
      return this.reset({ ...okStatus(file), problem: 'moved-aside', movedTo: aside, detail: 'not a JSON object' }, {});
    }
    const migration = this.migrate(raw);
    if ('failure' in migration) {
      return this.reset({ ...okStatus(file), problem: 'unreadable', writable: false, detail: migration.failure }, {});
    }
    const migrated = migration.value;
    const { value, resetFields } = fieldwise(this.options.schema, migrated, this.options.defaults);
    const whole = this.options.schema.safeParse(value);
    this.backupPending = resetFields.length > 0;
    const status: StoreStatus = resetFields.length > 0 ? { ...okStatus(file), problem: 'fields-reset', resetFields, detail: 'invalid values replaced by defaults' } : okStatus(file);
    return this.reset(await this.withWritability(status), migrated, whole.success ? whole.data : undefined);
  }

  /**
   * The status with writability tested by writing a file next to it now (a read-only mount or a
   * full disk are found only that way). Re-tested by `checkStatus` when the UI asks.
   */
  private async withWritability(status: StoreStatus): Promise<StoreStatus> {
    const code = await probeWritable(dirname(this.options.file));
    if (code === null) return status;
    return { ...status, problem: 'not-writable', writable: false, detail: `${code}: ${writeFailureWords(code)}` };
  }

  /** `status()` after testing again whether the folder takes a write (an unreadable file stays so until the next load). */
  async checkStatus(): Promise<StoreStatus> {
    const { problem } = this.state;
    if (problem === null || problem === 'not-writable') {
      const base: StoreStatus = problem === 'not-writable' ? { ...this.state, problem: null, writable: true, detail: null } : this.state;
      this.state = await this.withWritability(base);
    }
    return this.status();
  }

  /** Brings an older file's object up to the current version (a copy; the file is untouched until a write). */
  private migrate(raw: Record<string, unknown>): { value: Record<string, unknown> } | { failure: string } {
    this.migratedFrom = null;
    const versioning = this.options.versioning;
    if (!versioning) return { value: raw };
    const outcome = migrate(raw, versioning);
    if (outcome.kind === 'failed') return { failure: outcome.detail };
    if (outcome.kind === 'migrated') {
      this.migratedFrom = outcome.from;
      this.options.logger?.info?.(`${basename(this.options.file)}: migrated from version ${outcome.from} to ${versioning.current}`, { steps: outcome.steps });
    }
    return { value: outcome.value };
  }

  /**
   * Applies `change` to the current value, validates it, writes it, and only then makes it the
   * current value. Runs after any earlier update, so two quick saves never overwrite each other.
   */
  update(change: (current: z.infer<S>) => unknown): Promise<z.infer<S>> {
    const run = () => this.write(change);
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async write(change: (current: z.infer<S>) => unknown): Promise<z.infer<S>> {
    const { file, schema, errors } = this.options;
    // Maybe the user has fixed the file since start (chmod, moved a folder): read it again first.
    if (!this.state.writable) await this.load();
    // A folder that took no write at load is tried anyway (it may be fixed); a file that could not be read is never written over.
    if (this.state.problem === 'unreadable') {
      throw new AppError(
        errors.notSaved,
        `Not saved: ${file} could not be read (${this.state.detail ?? 'unknown error'}), so the app will not write over it. Fix or move that file, then save again.`,
      );
    }
    const parsed = schema.safeParse(change(this.get()));
    if (!parsed.success) throw new AppError(errors.invalid, describeZodError(parsed.error));
    const content = layOver(this.onDisk, parsed.data as Record<string, unknown>, schema);
    const versioning = this.options.versioning;
    // A newer app's file keeps its (higher) number: this version wrote only fields it shares with it.
    if (versioning) content[VERSION_KEY] = Math.max(versionOf(this.onDisk), versioning.current);
    try {
      if (this.migratedFrom !== null) {
        const backup = `${file}.v${this.migratedFrom}-${this.now()}`;
        await copyFile(file, backup);
        this.migratedFrom = null;
      }
      if (this.backupPending) {
        const backup = `${file}.invalid-${this.now()}`;
        await copyFile(file, backup);
        this.state = { ...this.state, movedTo: backup };
        this.backupPending = false;
      }
      await writeFileAtomic(file, `${JSON.stringify(content, null, 2)}\n`);
    } catch (error) {
      const code = errnoCode(error);
      this.options.logger?.warn(`could not write ${basename(file)}`, { file, code });
      this.state = { ...this.state, problem: 'not-writable', writable: false, detail: `${code}: ${writeFailureWords(code)}` };
      throw new AppError(
        errors.notSaved,
        `Not saved: could not write ${file} in ${dirname(file)} (${code}: ${writeFailureWords(code)}). Nothing was changed.`,
        { cause: error },
      );
    }
    if (this.state.problem === 'not-writable') this.state = { ...this.state, problem: null, writable: true, detail: null };
    this.current = parsed.data;
    this.onDisk = content;
    return this.get();
  }

  private reset(status: StoreStatus, onDisk: Record<string, unknown>, value?: z.infer<S>): z.infer<S> {
    this.state = status;
    this.onDisk = onDisk;
    this.current = value ?? structuredClone(this.options.defaults);
    if (status.problem) this.options.logger?.warn(`${basename(status.file)}: ${status.problem}`, { ...status });
    return this.get();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

function okStatus(file: string): StoreStatus {
  return { file, problem: null, writable: true, detail: null, movedTo: null, resetFields: [] };
}

function errnoCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'error';
}

/**
 * Reads the file only if it is a regular file. Opened non-blocking and checked on the open handle:
 * a FIFO in its place would otherwise block the read, and with it the app's start, forever.
 */
async function readRegularFile(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: 'EISDIR' });
    if (!info.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'ENOTREG' });
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

function readFailure(code: string): string {
  if (code === 'EISDIR') return 'it is a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'no permission to read it';
  if (code === 'ENOTDIR') return 'a part of the folder path is a file, not a folder';
  if (code === 'ENOTREG') return 'it is not a regular file (a pipe, socket or device)';
  return 'it could not be read';
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * Validates each field on its own (sections field by field), so one bad value falls back to its
 * default alone. Missing fields (a file from an older version) take their default silently.
 */
function fieldwise(
  schema: z.ZodObject,
  raw: Record<string, unknown>,
  defaults: unknown,
  prefix = '',
): { value: Record<string, unknown>; resetFields: string[] } {
  const value: Record<string, unknown> = {};
  const resetFields: string[] = [];
  const fallback = isPlainObject(defaults) ? defaults : {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const path = `${prefix}${key}`;
    const given = raw[key];
    if (given === undefined) {
      value[key] = structuredClone(fallback[key]);
    } else if (field instanceof z.ZodObject && isPlainObject(given)) {
      const nested = fieldwise(field, given, fallback[key], `${path}.`);
      value[key] = nested.value;
      resetFields.push(...nested.resetFields);
    } else {
      const parsed = (field as z.ZodType).safeParse(given);
      if (parsed.success) value[key] = parsed.data;
      else {
        value[key] = structuredClone(fallback[key]);
        resetFields.push(path);
      }
    }
  }
  return { value, resetFields };
}

/** The file's object with the known fields replaced: keys of a newer version survive a write. */
function layOver(onDisk: Record<string, unknown>, known: Record<string, unknown>, schema: z.ZodObject): Record<string, unknown> {
  const result: Record<string, unknown> = { ...onDisk };
  for (const [key, value] of Object.entries(known)) {
    const field = schema.shape[key];
    const before = onDisk[key];
    result[key] =
      field instanceof z.ZodObject && isPlainObject(before) && isPlainObject(value) ? layOver(before, value, field) : value;
  }
  return result;
}
