import { AppError } from '../../shared/errors';
import { dockerMessage, mapDockerError, shownDockerText } from './docker-errors';
import { imageNotFound, portInUse } from './engine-wording';
import type { PodmanWording } from './podman-wording';

/**
 * Podman's answers that differ from Docker's (measured on Podman 4.3.1, see the Podman facts), each
 * turned into the same AppError the Docker engine gives; anything else goes through mapDockerError
 * with Podman's wording. Podman's error body is `{cause, message, response}`: dockerode keeps it in
 * `error.json`, and `message` holds the whole text (matched here), `cause` its last part.
 */
export function mapPodmanError(
  error: unknown,
  context: { endpoint: string; wording: PodmanWording; image?: string; port?: number },
): AppError {
  if (error instanceof AppError) return error;
  const { wording } = context;
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  // Connection-level failures (no HTTP answer) read the same on both engines.
  if (typeof statusCode !== 'number') return mapDockerError(error, context);
  const message = dockerMessage(error);
  const cause = podmanCause(error);
  const text = `${message}\n${cause}`;
  const shown = shownDockerText(message);
  const keep = { cause: error instanceof Error ? error : new Error(`Podman: ${message}`) };

  // 500 (Docker: 409) `…the container name "x" is already in use by <id>…: that name is already in use`.
  if (/name .* is already in use|that name is already in use/i.test(text)) {
    return new AppError('CONTAINER_CONFLICT', `${wording.product} refused: ${shown}.`, keep);
  }
  // compat 404 `no such image: docker.io/x:1: image not known`; libpod 500 `x:1: image not known`.
  if (/image not known|no such image/i.test(text)) {
    return imageNotFound(context.image ?? imageNamed(message) ?? 'the image', wording);
  }
  // 404 `no container with name or ID "<id>" found: no such container`.
  if (statusCode === 404) {
    return new AppError('CONTAINER_NOT_FOUND', `The container no longer exists (${shown}). Refresh the list.`, keep);
  }
  // 500 `cannot listen on the TCP port: listen tcp4 127.0.0.1:N: bind: address already in use`.
  if (/cannot listen on the TCP port|address already in use/i.test(text)) {
    return portInUse(context.port ?? portNamed(message), shown);
  }
  // libpod start: `setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all`; compat
  // create with Devices: `stat nvidia.com/gpu=all: no such file or directory`.
  if (/unresolvable CDI devices|CDI device|stat nvidia\.com\/gpu/i.test(text)) {
    return new AppError('CONTAINER_START_FAILED', `${wording.noGpuRuntime()} (${shown})`, keep);
  }
  // `container-init binary not found on the host: stat /usr/libexec/podman/catatonit`.
  if (/container-init binary not found|catatonit/i.test(text)) {
    return new AppError('CONTAINER_START_FAILED', `${wording.noInit()} (${shown})`, keep);
  }
  return mapDockerError(error, context);
}

/** Podman's `cause` field, when its JSON body came with the error. */
export function podmanCause(error: unknown): string {
  const json = (error as { json?: unknown } | null)?.json;
  return json && typeof json === 'object' && typeof (json as { cause?: unknown }).cause === 'string' ? (json as { cause: string }).cause : '';
}

function imageNamed(message: string): string | undefined {
  return /(?:no such image:\s*)?(\S+?):\s*image not known/i.exec(message)?.[1];
}

function portNamed(message: string): number | undefined {
  const port = /:(\d{1,5}): bind: address already in use/.exec(message)?.[1];
  return port ? Number(port) : undefined;
}
