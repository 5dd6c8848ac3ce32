import type { ContainerState, EngineHealth, EngineSummary } from '../../shared/schemas';

/** Labels that mark a container as ours, so the app finds it again after a restart. */
export const LABEL_MANAGED = 'io.agentswarm.managed';
export const LABEL_ROLE = 'io.agentswarm.role';
export const LABEL_PORT = 'io.agentswarm.port';
export const LABEL_NETWORK = 'io.agentswarm.network';
export const LABEL_APP_VERSION = 'io.agentswarm.app-version';

export interface PortBinding {
  containerPort: number;
  hostIp: string;
  hostPort: number;
}

/** Engine-neutral description of a container to create; each engine maps it to its own API. */
export interface ContainerSpec {
  name: string;
  image: string;
  cmd: string[];
  env: Record<string, string>;
  labels: Record<string, string>;
  network: { mode: 'host' } | { mode: 'publish'; ports: PortBinding[] };
  /** Run an init process as PID 1 so SIGTERM stops the server in milliseconds, not after a kill. */
  init: boolean;
  gpus: boolean;
  shmSizeBytes: number;
}

export interface ContainerSummary {
  id: string;
  name: string;
  image: string;
  state: ContainerState;
  statusText: string;
  labels: Record<string, string>;
  createdAt: string;
  /** Known from inspect once the container has exited; null while running or when unknown. */
  exitCode: number | null;
}

/**
 * What the app needs from a container engine. Local Docker implements it today; Docker over SSH,
 * Podman and Slurm-backed engines implement the same interface, so swarm logic never changes.
 */
export interface ContainerEngine {
  readonly summary: EngineSummary;
  health(): Promise<EngineHealth>;
  /** Containers carrying every given label (`key=value`). */
  listContainers(labels: Record<string, string>): Promise<ContainerSummary[]>;
  inspectContainer(id: string): Promise<ContainerSummary>;
  imageExists(image: string): Promise<boolean>;
  createContainer(spec: ContainerSpec): Promise<string>;
  /** `hint.port` lets a "port already allocated" error name the port Docker does not name. */
  startContainer(id: string, hint?: { port?: number }): Promise<void>;
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** The last `lines` lines of the container's stdout and stderr, oldest first. */
  logTail(id: string, lines: number): Promise<string[]>;
  /** Whether nothing listens on `port` on the engine's host loopback. */
  isHostPortFree(port: number): Promise<boolean>;
  /** The URL under which the app reaches `port` of the engine's host (a tunnel for remote engines). */
  urlForHostPort(port: number): Promise<string>;
  dispose(): Promise<void>;
}
