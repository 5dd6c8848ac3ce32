import { randomBytes } from 'node:crypto';
import { GIB, SWARM_DEFAULT_PORT } from '../../shared/defaults';
import { Port, type SwarmContainer, type SwarmStartRequest } from '../../shared/schemas';
import { LABEL_APP_VERSION, LABEL_MANAGED, LABEL_NETWORK, LABEL_PORT, LABEL_PROFILE, LABEL_ROLE, type ContainerSpec, type ContainerSummary } from '../engines/container-engine';

/** The swarm server's container spec from the quick-start form, and a container as the swarm views show it. */

export const SWARM_ROLE = 'swarm-server';
export const SWARM_LABELS = { [LABEL_MANAGED]: 'true', [LABEL_ROLE]: SWARM_ROLE };
/**
 * The command the swarm image runs. Same as AgentJet's documented `ajet-swarm start`, without the
 * log redirect, so `docker logs` shows the server's output. Detached, no overwatch TUI.
 */
/** Plain logs: the server uses loguru/rich colours otherwise, which are noise in a log view. */
export const PLAIN_LOG_ENV: Readonly<Record<string, string>> = { NO_COLOR: '1', LOGURU_COLORIZE: 'NO' };

export function swarmCommand(port: number): string[] {
  return ['ajet-swarm', 'start', '--swarm-port', String(port)];
}

export function buildSwarmSpec(request: SwarmStartRequest, appVersion: string): ContainerSpec {
  const suffix = randomBytes(3).toString('hex');
  return {
    name: `agentswarm-swarm-${request.port}-${suffix}`,
    image: request.image,
    cmd: swarmCommand(request.port),
    env: { ...PLAIN_LOG_ENV },
    labels: {
      ...SWARM_LABELS,
      [LABEL_PORT]: String(request.port),
      [LABEL_NETWORK]: request.networkMode,
      [LABEL_APP_VERSION]: appVersion,
    },
    network:
      request.networkMode === 'host'
        ? { mode: 'host' }
        : // Loopback only: the swarm API has no authentication (agentjet-swarm.md §1).
          { mode: 'publish', ports: [{ containerPort: request.port, hostIp: '127.0.0.1', hostPort: request.port }] },
    init: true,
    gpus: request.gpus ? { mode: 'all' } : { mode: 'none' },
    shm: { mode: 'size', bytes: request.shmSizeGb * GIB },
    binds: [],
  };
}

export function toSwarmContainer(engineId: string, c: ContainerSummary): SwarmContainer {
  const port = Number(c.labels[LABEL_PORT] ?? SWARM_DEFAULT_PORT);
  return {
    id: c.id,
    name: c.name,
    engineId,
    image: c.image,
    state: c.state,
    statusText: c.statusText,
    port: Port.safeParse(port).success ? port : SWARM_DEFAULT_PORT,
    networkMode: c.labels[LABEL_NETWORK] === 'host' ? 'host' : 'publish',
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    exitCode: c.exitCode,
    ...(c.labels[LABEL_PROFILE] ? { profileId: c.labels[LABEL_PROFILE] } : {}),
    ...(c.queue && c.state === 'created' ? { queue: c.queue } : {}),
  };
}
