import type Docker from 'dockerode';
import type { EngineProduct } from '../../shared/schemas';

/**
 * Which product answers on a Docker-API socket, and whether it runs rootless. Pure readers of the
 * engine's own answers (GET /version, /info, Podman's /libpod/info), so a server the user added as
 * "Docker" that is really Podman is recognised and treated as Podman.
 */

/** The fields of GET /version that tell the product apart (Docker 20.10 and Podman 4.3 bodies). */
export interface VersionBody {
  Version?: string;
  ApiVersion?: string;
  Components?: { Name?: string; Version?: string }[] | null;
}

/**
 * Podman names its component "Podman Engine" (Docker: "Engine"); its `_ping` and every answer carry
 * `Server: Libpod/4.3.1` (Docker: `Server: Docker/20.10…`). Either is enough; without both, Docker.
 */
export function productOfVersion(version: VersionBody, serverHeader?: string | null): EngineProduct {
  if ((version.Components ?? []).some((c) => typeof c?.Name === 'string' && /^podman\b/i.test(c.Name))) return 'podman';
  if (serverHeader && /^libpod\//i.test(serverHeader.trim())) return 'podman';
  return 'docker';
}

/** Docker's GET /info: a rootless daemon lists `name=rootless` among its SecurityOptions. */
export function rootlessFromDockerInfo(info: unknown): boolean | null {
  const options = (info as { SecurityOptions?: unknown } | null)?.SecurityOptions;
  if (!Array.isArray(options)) return null;
  return options.some((o) => typeof o === 'string' && o.split(',').includes('name=rootless'));
}

/** Podman's GET /libpod/info: `host.security.rootless` (the compat /info does not always say). */
export function rootlessFromLibpodInfo(info: unknown): boolean | null {
  const rootless = (info as { host?: { security?: { rootless?: unknown } } } | null)?.host?.security?.rootless;
  return typeof rootless === 'boolean' ? rootless : null;
}

/** The libpod API prefix: Podman 4.x serves /v4.0.0/libpod/… whatever its minor version. */
export const LIBPOD_API = '/v4.0.0/libpod';

/** A plain JSON request through dockerode's modem (same transport, agent and error shape as every other call). */
export function dialJson<T>(docker: Docker, options: { path: string; method: 'GET' | 'POST'; body?: object; statusCodes: Record<number, true | string> }): Promise<T> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: options.path,
        method: options.method,
        // A POST's `options` is its JSON body; `{}` keeps GET free of a query string.
        options: options.body ?? {},
        statusCodes: options.statusCodes,
      },
      (error: unknown, data: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(data as T)),
    );
  });
}

/** Podman's own info (`podman info` over the API); null when it cannot be read. */
export async function readLibpodInfo(docker: Docker): Promise<Record<string, unknown> | null> {
  try {
    return await dialJson<Record<string, unknown>>(docker, { path: `${LIBPOD_API}/info`, method: 'GET', statusCodes: { 200: true, 500: 'server error' } });
  } catch {
    return null;
  }
}

/** Whether the engine runs rootless, asked the way its product answers; null when it cannot say. */
export async function readRootless(docker: Docker, product: EngineProduct): Promise<boolean | null> {
  if (product === 'podman') return rootlessFromLibpodInfo(await readLibpodInfo(docker));
  try {
    return rootlessFromDockerInfo(await docker.info());
  } catch {
    return null;
  }
}
