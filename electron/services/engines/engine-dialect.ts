import type Docker from 'dockerode';
import type { AppError } from '../../shared/errors';
import type { EngineProduct } from '../../shared/schemas';
import type { ContainerSpec } from './container-engine';
import { mapDockerError } from './docker-errors';
import { DOCKER_EVENTS, type EventDialect } from './docker-logs';
import { createCompatContainer } from './docker-spec';
import { productOfVersion, readRootless, type VersionBody } from './engine-product';
import type { EngineWording } from './engine-wording';
import { createLibpodContainer } from './podman-libpod';
import { mapPodmanError } from './podman-errors';
import { PODMAN_EVENTS } from './podman-events';
import type { PodmanWording } from './podman-wording';

/**
 * What differs between the products that speak the Docker API: their error texts, event names,
 * how a GPU request is made, and the fixes they name. DockerApiEngine asks its dialect instead of
 * branching on a kind, and learns the dialect from the engine's own answer (`/version`), so a
 * server added as "Docker" that is really Podman gets Podman's errors, events and GPU mapping.
 */
export interface EngineDialect {
  readonly product: EngineProduct;
  /** Null when the engine could not say (its /info failed). */
  readonly rootless: boolean | null;
  readonly wording: EngineWording;
  mapError(error: unknown, context: { endpoint: string; image?: string; port?: number }): AppError;
  readonly events: EventDialect;
  /** Creates the container (the spec's GPU request in this product's form); rejects with the raw API error. */
  createContainer(docker: Docker, spec: ContainerSpec): Promise<string>;
}

export function dockerDialect(wording: EngineWording, rootless: boolean | null = null): EngineDialect {
  return {
    product: 'docker',
    rootless,
    wording,
    mapError: (error, context) => mapDockerError(error, { ...context, wording }),
    events: DOCKER_EVENTS,
    createContainer: createCompatContainer,
  };
}

export function podmanDialect(wording: PodmanWording, rootless: boolean | null = null): EngineDialect {
  return {
    product: 'podman',
    rootless,
    wording,
    mapError: (error, context) => mapPodmanError(error, { ...context, wording }),
    events: PODMAN_EVENTS,
    // Only GPU requests go through libpod (the compat API would drop them silently). Every other
    // create stays on the compat path: the one the Docker-parity suite runs on every engine, with
    // Docker's defaults for what the app does not set; libpodSpecOf keeps what the app sets equal.
    createContainer: (docker, spec) => (spec.gpus.mode === 'none' ? createCompatContainer(docker, spec) : createLibpodContainer(docker, spec)),
  };
}

/**
 * The dialect of an engine: `assumed` until it answered (what the user said it is, or the kind it
 * was created as), then `detect`'s answer. Its wordings are per product because the same place
 * (this computer, a server over SSH) words fixes differently for Docker and for Podman; `rootless`
 * lets a wording say which service to start.
 */
export interface DialectChoice {
  readonly assumed: EngineDialect;
  /** Asks the engine what it is; `version` is its GET /version body when the caller already has it. */
  detect(docker: Docker, version?: VersionBody): Promise<EngineDialect>;
}

export interface ProductWordings {
  docker: (rootless: boolean | null) => EngineWording;
  podman: (rootless: boolean | null) => PodmanWording;
}

/** Detects Docker or Podman from `/version`, rootless from `/info` (Docker) or `/libpod/info` (Podman). */
export function detectedDialect(assumed: EngineProduct, wordings: ProductWordings): DialectChoice {
  const make = (product: EngineProduct, rootless: boolean | null): EngineDialect =>
    product === 'podman' ? podmanDialect(wordings.podman(rootless), rootless) : dockerDialect(wordings.docker(rootless), rootless);
  return {
    assumed: make(assumed, null),
    async detect(docker, version) {
      const product = productOfVersion(version ?? ((await docker.version()) as VersionBody));
      return make(product, await readRootless(docker, product));
    },
  };
}

/** A dialect that is never asked for (tests, engines whose product is fixed by construction). */
export function fixedDialect(dialect: EngineDialect): DialectChoice {
  return { assumed: dialect, detect: () => Promise.resolve(dialect) };
}
