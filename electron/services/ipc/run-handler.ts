import type { z } from 'zod';
import { AppError, isAppError } from '../../shared/errors';
import { fail, ok, type Result } from '../../shared/result';

export type Logger = { warn(message: string, meta?: Record<string, unknown>): void };

/** Formats zod issues as one line naming each bad field, e.g. `port: port must be 65535 or lower`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/**
 * Validates `payload` against `schema`, runs `fn`, and always resolves to a Result envelope.
 * Both the Electron `handle()` wrapper and the browser host go through here, so validation and
 * error shaping are identical on both transports. Unknown errors are reduced to a generic message:
 * their text may hold paths or secrets and their stack is of no use to a user.
 */
export async function runHandler<S extends z.ZodType, T>(
  schema: S,
  payload: unknown,
  fn: (request: z.infer<S>) => Promise<T> | T,
  logger?: Logger,
): Promise<Result<T>> {
  const parsed = schema.safeParse(payload === undefined ? {} : payload);
  if (!parsed.success) {
    return fail({ code: 'VALIDATION_FAILED', message: describeZodError(parsed.error) });
  }
  try {
    return ok(await fn(parsed.data));
  } catch (error) {
    if (isAppError(error)) return fail(error);
    logger?.warn('handler failed with an unexpected error', {
      name: error instanceof Error ? error.name : typeof error,
    });
    return fail(new AppError('INTERNAL', 'Something went wrong inside the app. See the app log for details.'));
  }
}
