import { AppError } from '../../shared/errors';
import { imageNotFound, portInUse, type EngineWording } from './engine-wording';

interface DockerishError {
  code?: string;
  statusCode?: number;
  reason?: string;
  json?: { message?: string } | null;
  message?: string;
}

function asDockerish(error: unknown): DockerishError {
  return typeof error === 'object' && error !== null ? (error as DockerishError) : { message: String(error) };
}

/** Docker's own message without the "(HTTP code 404) no such container -" prefix dockerode adds. */
export function dockerMessage(error: unknown): string {
  const e = asDockerish(error);
  const fromJson = e.json && typeof e.json.message === 'string' ? e.json.message : undefined;
  const raw = fromJson ?? e.message ?? 'unknown error';
  return raw.replace(/^\(HTTP code \d+\)\s*[^-]*-\s*/, '').trim();
}

/** Longest piece of Docker's own text a user sees; the whole text goes to the app log. */
export const MAX_SHOWN_DOCKER_CHARS = 300;

/**
 * The part of Docker's text fit for the UI: its first line with words in it (a Go panic or a
 * multi-line daemon error is mostly stack), capped. The whole text stays in the AppError's
 * `cause`, which `runHandler` writes to the app log.
 */
export function shownDockerText(full: string): string {
  const lines = full.split(/\r?\n/).map((line) => line.trim());
  const first = lines.find((line) => /[\p{L}\p{N}]/u.test(line)) ?? full.trim();
  const capped = first.length > MAX_SHOWN_DOCKER_CHARS ? `${first.slice(0, MAX_SHOWN_DOCKER_CHARS - 1)}…` : first;
  const more = capped !== full.trim();
  return more ? `${capped} (full text in the app log)` : capped;
}

/** Docker's original error, kept as the cause so the app log gets every line of it. */
function fullText(error: unknown, message: string): { cause: unknown } {
  return { cause: error instanceof Error ? error : new Error(`Docker: ${message}`) };
}

/**
 * Turns dockerode/socket errors into AppErrors that say what went wrong and what to do.
 * `endpoint` names where we tried to connect, never anything secret. The fixes come from the
 * engine's `wording`: the Docker API is spoken by local Docker, Docker over SSH and Podman alike.
 */
export function mapDockerError(
  error: unknown,
  context: { endpoint: string; wording: EngineWording; image?: string; port?: number },
): AppError {
  const { wording } = context;
  if (error instanceof AppError) return error;
  const e = asDockerish(error);
  // Matching looks at all of Docker's text; the UI gets its first meaningful line only.
  const message = dockerMessage(error);
  const shown = shownDockerText(message);
  if (e.code === 'EACCES' || (!e.statusCode && /permission denied/i.test(message))) {
    return new AppError(
      'ENGINE_PERMISSION_DENIED',
      `Permission denied on ${context.endpoint}. ${wording.permissionDenied(context.endpoint)}`,
    );
  }
  if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.code === 'ETIMEDOUT' || e.code === 'EHOSTUNREACH') {
    return new AppError(
      'ENGINE_UNREACHABLE',
      `Cannot reach ${wording.product} at ${context.endpoint} (${e.code}). ${wording.unreachable(context.endpoint)}`,
    );
  }
  if (e.statusCode === 404 && context.image && /no such image/i.test(message)) {
    return imageNotFound(context.image, wording);
  }
  if (e.statusCode === 404) {
    return new AppError('CONTAINER_NOT_FOUND', `The container no longer exists (${shown}). Refresh the list.`, fullText(error, message));
  }
  if (e.statusCode === 409) {
    return new AppError('CONTAINER_CONFLICT', `${wording.product} refused: ${shown}.`, fullText(error, message));
  }
  if (/port is already allocated|address already in use/i.test(message)) {
    return portInUse(context.port, shown);
  }
  if (/could not select device driver.*gpu/i.test(message)) {
    return new AppError('CONTAINER_START_FAILED', wording.noGpuRuntime());
  }
  return new AppError('CONTAINER_START_FAILED', `${wording.product} error: ${shown}`, fullText(error, message));
}
