import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import type { SwarmModule } from '../swarm/register';
import type { JobsApi } from './jobs-api';
import { JobRunner, type JobRunnerOptions } from './job-runner';

export interface JobsModule extends DomainModule<'jobs'> {
  readonly api: JobsApi;
}

export interface JobsDeps {
  /** The swarm monitor's statuses give a watched server's local URL (the tunnel's end for a remote one). */
  swarm: Pick<SwarmModule, 'monitor'>;
  /** Tests: shorter cancel timeouts, a smaller history. */
  tuning?: Pick<JobRunnerOptions, 'killTimeouts' | 'disposeKillTimeouts' | 'maxRuns' | 'bufferLines' | 'logBatchMs' | 'healthTimeoutMs'>;
}

/** `jobs:*`: the user's Python scripts as child processes (execa), streamed, cancelled, kept in a history. */
export function registerJobs(context: ServiceContext, deps: JobsDeps): JobsModule {
  const runner = new JobRunner({
    dir: join(context.dataDir, 'jobs'),
    events: context.events,
    vault: context.vault,
    logger: context.logger,
    swarmUrl: (engineId, containerId) => {
      const status = deps.swarm.monitor.statuses().find((s) => s.engineId === engineId && s.containerId === containerId);
      // A stopped server keeps its status (with why it ended) but has no URL worth trying.
      return status && status.connection !== 'stopped' ? status.url : null;
    },
    ...deps.tuning,
  });
  return {
    api: runner,
    handlers: {
      'jobs:python': (request) => runner.discoverPython(request),
      'jobs:start': (request) => runner.start(request),
      'jobs:cancel': ({ jobId }) => runner.cancel(jobId),
      'jobs:rerun': ({ jobId }) => runner.rerun(jobId),
      'jobs:list': async () => runner.list(),
      'jobs:get': async ({ jobId }) => runner.get(jobId),
      'jobs:log': ({ jobId, from, limit }) => runner.log(jobId, from, limit),
      'jobs:open-log': async ({ jobId }) => {
        const path = runner.logFile(jobId);
        if (!existsSync(path)) throw new AppError('LOG_UNAVAILABLE', `The log file of this run (${path}) is gone: it was deleted or moved. Run the job again for a new log.`);
        if (!context.openPath) {
          throw new AppError('LOG_UNAVAILABLE', `The browser host cannot open files on your desktop. This run's log is ${path}: copy the path and open it in an editor.`);
        }
        try {
          await context.openPath(path);
        } catch (error) {
          throw new AppError('LOG_UNAVAILABLE', `Could not open ${path} (${error instanceof Error ? error.message : String(error)}). Copy the path and open it in an editor.`, { cause: error });
        }
        return { opened: true as const, path };
      },
    },
    start: () => runner.load(),
    dispose: () => runner.dispose(),
  };
}
