import type { IncomingMessage } from 'node:http';
import type Docker from 'dockerode';
import { AppError } from '../../shared/errors';
import type { PullEvent } from './container-engine';
import { dockerMessage, shownDockerText } from './docker-errors';
import type { EngineWording } from './engine-wording';

/** Where the AgentJet image is mirrored, for users whose GHCR access is slow or blocked. */
export const AGENTJET_MIRRORS = ['ghcr.modelscope.cn/modelscope/agentjet:main', 'docker.1ms.run/modelscope/agentjet:main'];

/** The registry of an image reference as Docker reads it: the first part when it looks like a host, else Docker Hub. */
export function registryOf(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

/** An error that says "cancelled", the way `fetch` and streams say it, so callers test `name === 'AbortError'`. */
export function pullAbortError(image: string): Error {
  const error = new Error(`The pull of ${image} was cancelled.`);
  error.name = 'AbortError';
  return error;
}

function mirrorsHint(image: string): string {
  return /agentjet/i.test(image) ? ` Or pull from a mirror: ${AGENTJET_MIRRORS.join(' or ')}.` : '';
}

/**
 * Docker's text about a failed pull (from the HTTP answer or an `error` message in the stream) →
 * IMAGE_NOT_FOUND, IMAGE_PULL_DENIED or IMAGE_PULL_FAILED, naming the image, its registry and the fix.
 * Denial is tested first: Docker Hub words a missing repository as "pull access denied … does not
 * exist or may require 'docker login'", and a login is the fix the user can try.
 */
export function pullErrorOf(text: string, image: string, wording: EngineWording, cause?: unknown): AppError {
  const registry = registryOf(image);
  const shown = shownDockerText(text);
  const options = cause === undefined ? {} : { cause };
  const login = `${wording.product.toLowerCase()} login ${registry}`;
  if (/denied|unauthorized|authentication required|no basic auth credentials|forbidden/i.test(text)) {
    // The Engine API pulls with the credentials the client sends, and the app sends none yet: a
    // `docker login` alone does not change what the app's pull gets, a pull from that login does.
    return new AppError(
      'IMAGE_PULL_DENIED',
      `${registry} refused to give out ${image} (${shown}). The app pulls without a registry login: check that the repository exists and is public, ` +
        `or log in and pull it yourself where the engine runs (${login}, then ${wording.product.toLowerCase()} pull ${image}).${mirrorsHint(image)}`,
      options,
    );
  }
  if (/manifest unknown|not found|does not exist|no such image|name unknown|repository name not known/i.test(text)) {
    return new AppError(
      'IMAGE_NOT_FOUND',
      `${image} was not found on ${registry} (${shown}): the repository or the tag does not exist. Check the name and the tag.${mirrorsHint(image)}`,
      options,
    );
  }
  if (/no space left on device/i.test(text)) {
    return new AppError(
      'IMAGE_PULL_FAILED',
      `The disk of the engine's host is full while pulling ${image} from ${registry} (${shown}). Free space where ${wording.product} keeps images (docker system prune removes unused ones), then pull again.`,
      options,
    );
  }
  if (/x509|certificate|tls|https? response to https? client/i.test(text)) {
    return new AppError(
      'IMAGE_PULL_FAILED',
      `${wording.product} could not talk securely to ${registry} while pulling ${image} (${shown}). Check the registry's certificate, ` +
        `or for a plain-HTTP registry add it to "insecure-registries" in the engine's daemon.json.${mirrorsHint(image)}`,
      options,
    );
  }
  return new AppError(
    'IMAGE_PULL_FAILED',
    `Pulling ${image} from ${registry} failed (${shown}). Check that the engine's host can reach ${registry} (network, proxy, DNS), then pull again.${mirrorsHint(image)}`,
    options,
  );
}

/** Socket-level codes of the engine connection itself: those are the engine's errors, not the pull's. */
const ENGINE_TRANSPORT_CODES = new Set(['EACCES', 'ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE']);

/**
 * Pulls `image` through the Docker API, calling `onEvent` per progress message. No overall timeout
 * (a 20 GB image on a slow line takes as long as it takes); `signal` cancels by closing the response,
 * which makes the daemon stop the pull. Rejects with an AbortError on cancel, an AppError otherwise.
 */
export async function pullDockerImage(
  docker: Docker,
  image: string,
  onEvent: (event: PullEvent) => void,
  signal: AbortSignal,
  fail: (error: unknown) => AppError,
  words: EngineWording,
): Promise<void> {
  if (signal.aborted) throw pullAbortError(image);
  let response: IncomingMessage;
  try {
    response = (await docker.pull(image, { abortSignal: signal })) as IncomingMessage;
  } catch (error) {
    if (signal.aborted) throw pullAbortError(image);
    const code = (error as { code?: string }).code;
    if (!(error as { statusCode?: number }).statusCode && code && ENGINE_TRANSPORT_CODES.has(code)) throw fail(error);
    throw pullErrorOf(dockerMessage(error), image, words, error);
  }
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let pending = '';
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onAbort = () => {
      finish(pullAbortError(image));
      response.destroy();
    };
    const takeLine = (line: string) => {
      if (line.trim() === '') return;
      let message: { id?: unknown; status?: unknown; progressDetail?: unknown; error?: unknown; errorDetail?: { message?: unknown } };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return; // Not a progress message (a proxy's banner): nothing to show.
      }
      if (message.error !== undefined || message.errorDetail !== undefined) {
        const text = String(message.errorDetail?.message ?? message.error);
        finish(pullErrorOf(text, image, words, new Error(`Docker: ${text}`)));
        response.destroy();
        return;
      }
      const detail = message.progressDetail as { current?: unknown; total?: unknown } | undefined;
      const event: PullEvent = { status: typeof message.status === 'string' ? message.status : '' };
      if (typeof message.id === 'string') event.id = message.id;
      if (detail && (typeof detail.current === 'number' || typeof detail.total === 'number')) {
        event.progressDetail = {
          ...(typeof detail.current === 'number' ? { current: detail.current } : {}),
          ...(typeof detail.total === 'number' ? { total: detail.total } : {}),
        };
      }
      onEvent(event);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      if (settled) return;
      pending += chunk;
      // Messages are newline-delimited JSON, split across chunks at any byte.
      let newline = pending.indexOf('\n');
      while (newline >= 0 && !settled) {
        takeLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
    response.on('end', () => {
      if (!settled) takeLine(pending);
      finish();
    });
    response.on('error', (error) => {
      if (signal.aborted) finish(pullAbortError(image));
      else finish(pullErrorOf(error.message, image, words, error));
    });
    response.on('close', () => {
      // Closed without 'end': the engine (or the SSH channel under it) went away mid-pull.
      if (!settled) finish(signal.aborted ? pullAbortError(image) : pullErrorOf('connection closed before the pull finished (EOF)', image, words));
    });
  });
}
