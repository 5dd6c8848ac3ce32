import { AppError } from '../../shared/errors';
import { join } from 'node:path';
import type { DomainModule, ServiceContext } from '../domain';
import type { Handlers } from '../ipc/handlers';
import type { JobsApi } from '../jobs/jobs-api';
import type { SwarmModule } from '../swarm/register';
import type { ServersModule } from '../ssh/register';
import { SshHost } from '../engines/engine-host';
import { SlurmEngine } from '../engines/slurm/slurm-engine';
import type { SlurmQueueWatch } from '../engines/slurm/slurm-queue-watch';
import { engineIdOfServer } from '../../shared/schemas-servers';
import { clientVenvPlan, createClientVenv } from './client-venv';
import { LocalWorkers } from './local-workers';
import { standaloneTaskQueue, type SlurmTaskQueue } from './slurm-task-queue';
import { SlurmWorkers } from './slurm-workers';
import { SshWorkers } from './ssh-workers';
import type { WorkerBackend } from './worker-backend';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool';

export interface WorkersModule extends DomainModule<'workers'> {
  readonly pool: WorkerPool;
}

export interface WorkersDeps {
  jobs: JobsApi;
  swarm: Pick<SwarmModule, 'monitor'>;
  /** `jobs:log` (and, for SSH workers, the servers' connections) through the handlers built later. */
  handlers: () => Handlers;
  /** SSH servers the app knows, as worker hosts (absent: SSH placements are refused with a reason). */
  servers?: Pick<ServersModule, 'connectionOf' | 'labelOf'>;
  tuning?: Pick<WorkerPoolOptions, 'pollMs' | 'progressEverySeconds'>;
}

/** `workers:*`: rollout worker pools (issue 34). */
export function registerWorkers(context: ServiceContext, deps: WorkersDeps): WorkersModule {
  const local = new LocalWorkers({
    jobs: deps.jobs,
    readLog: (jobId, from, limit) => deps.handlers()['jobs:log']({ jobId, from, limit }),
  });
  const swarmUrl = (engineId: string, containerId: string): string | null => {
    const status = deps.swarm.monitor.statuses().find((s) => s.engineId === engineId && s.containerId === containerId);
    // A stopped server keeps its status (with why it ended) but has no URL worth trying.
    return status && status.connection !== 'stopped' ? status.url : null;
  };
  const servers = deps.servers;
  const ssh = servers
    ? new SshWorkers({ connectionOf: (id) => servers.connectionOf(id), labelOf: (id) => servers.labelOf(id), vault: context.vault, swarmUrl })
    : noSsh;
  const hostOf = (serverId: string): SshHost => {
    if (!servers) throw new AppError('VALIDATION_FAILED', 'SSH servers are not available in this build.');
    return new SshHost(servers.labelOf(serverId), () => servers.connectionOf(serverId));
  };
  // One queue poll per login node: the Slurm engine's when the server was added as "Slurm (login node)", else one
  // made here for it (read on demand only).
  const ownQueues = new Map<string, SlurmQueueWatch>();
  const queueOf = (serverId: string): SlurmTaskQueue => {
    const engineId = engineIdOfServer(serverId);
    const engine = context.engines.has(engineId) ? context.engines.get(engineId) : null;
    if (engine instanceof SlurmEngine) return engine.queueWatch;
    let own = ownQueues.get(serverId);
    if (!own) {
      own = standaloneTaskQueue(hostOf(serverId));
      ownQueues.set(serverId, own);
    }
    return own;
  };
  const slurm = servers ? new SlurmWorkers({ connectionOf: (id) => servers.connectionOf(id), labelOf: (id) => servers.labelOf(id), vault: context.vault, queueOf }) : noSsh;
  const pool = new WorkerPool({
    dir: join(context.dataDir, 'workers'),
    events: context.events,
    notifier: context.notifier,
    logger: context.logger,
    backends: { local, ssh, slurm },
    swarmUrl,
    ...deps.tuning,
  });
  return {
    pool,
    handlers: {
      'workers:list': async () => pool.list(),
      'workers:split': async ({ batchSize, grpoN, workers }) => pool.split(batchSize, grpoN, workers),
      'workers:start': (request) => pool.start(request),
      'workers:stop-all': ({ poolId }) => pool.stopAll(poolId),
      'workers:restart-failed': ({ poolId }) => pool.restartFailed(poolId),
      'workers:add': ({ poolId, placements, shown }) => pool.add(poolId, placements, shown ?? null),
      'workers:stop': ({ poolId, index }) => pool.stopOne(poolId, index),
      'workers:log': async ({ poolId, index, from, limit }) => pool.log(poolId, index, from, limit),
      'workers:slurm-preview': (request) => {
        if (!(slurm instanceof SlurmWorkers)) throw new AppError('VALIDATION_FAILED', 'Slurm workers are not available in this build.');
        return pool.slurmPreview(request, (...args) => slurm.preview(...args));
      },
      'workers:slurm-add-preview': ({ poolId, placements }) => {
        if (!(slurm instanceof SlurmWorkers)) throw new AppError('VALIDATION_FAILED', 'Slurm workers are not available in this build.');
        return pool.slurmAddPreview(poolId, placements, (...args) => slurm.preview(...args));
      },
      'workers:client-venv-plan': async ({ serverId, source }) => clientVenvPlan(hostOf(serverId).label, source),
      'workers:client-venv-create': ({ serverId, source }) => createClientVenv(hostOf(serverId), source),
    },
    start: () => pool.load(),
    dispose: async () => {
      await pool.dispose();
      for (const own of ownQueues.values()) own.dispose();
    },
  };
}

const noSsh: WorkerBackend = {
  where: (placement) => (placement.kind === 'ssh' ? placement.serverId : 'this computer'),
  start: () => Promise.reject(new AppError('VALIDATION_FAILED', 'SSH workers are not available in this build.')),
  poll: () => Promise.resolve({ lines: [], end: { exitCode: null, signal: null, startError: 'SSH workers are not available in this build' } }),
  stop: () => Promise.resolve(),
};
