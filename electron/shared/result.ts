import type { AppErrorShape } from './errors';

/** The one envelope every request returns, over Electron IPC and over the browser host alike. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: AppErrorShape };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(error: AppErrorShape): Result<T> {
  return { ok: false, error: { code: error.code, message: error.message, ...(error.params ? { params: error.params } : {}) } };
}
