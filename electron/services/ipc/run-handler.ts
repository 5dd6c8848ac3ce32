import type { z } from 'zod';
import { AppError, isAppError } from '../../shared/errors';
import { fail, ok, type Result } from '../../shared/result';
import { describeThrown, type Logger } from '../util/logger';
import { redactPayload } from '../util/redact';
import { describeZodError } from '../util/zod-messages';

/**
 * Validates `payload` against `schema`, runs `fn`, and always resolves to a Result envelope.
 * Both the Electron `handle()` wrapper and the browser host go through here, so validation and
 * error shaping are identical on both transports. Unknown errors are reduced to a generic message
 * for the UI (their text may hold paths or secrets and their stack is of no use to a user); the
 * full error and stack go to the app log (`logger.error`), which redacts before writing. An
 * AppError that carries a `cause` (e.g. Docker's complete output) leaves that cause in the log.
 */
export async function runHandler<S extends z.ZodType, T>(
  schema: S,
  payload: unknown,
  fn: (request: z.infer<S>) => Promise<T> | T,
  logger?: Logger,
  channel?: string,
): Promise<Result<T>> {
  // Every answer and error message leaves the backend through here (both transports): redacted once.
  return redactPayload(await dispatch(schema, payload, fn, logger, channel));
}

async function dispatch<S extends z.ZodType, T>(
  schema: S,
  payload: unknown,
  fn: (request: z.infer<S>) => Promise<T> | T,
  logger?: Logger,
  channel?: string,
): Promise<Result<T>> {
  const parsed = schema.safeParse(payload === undefined ? {} : payload);
  if (!parsed.success) {
    return fail({ code: 'VALIDATION_FAILED', message: describeZodError(parsed.error) });
  }
  const where = channel ? { channel } : {};
  try {
    return ok(await fn(parsed.data));
  } catch (error) {
    if (isAppError(error)) {
      if (error.cause !== undefined) {
        logger?.info?.(`request failed: ${error.code} ${error.message}`, { ...where, ...describeThrown(error) });
      }
      return fail(error);
    }
    if (logger?.error) logger.error('request failed with an unexpected error', { ...where, ...describeThrown(error) });
    else logger?.warn('request failed with an unexpected error', { ...where, name: error instanceof Error ? error.name : typeof error });
    return fail(new AppError('INTERNAL', 'Something went wrong inside the app. See the app log (Settings → App log) for details.'));
  }
}
