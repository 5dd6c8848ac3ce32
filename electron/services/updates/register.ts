import type { JobsApi } from '../jobs/jobs-api';
import type { DomainModule, ServiceContext } from '../domain';
import type { UpdateUnsupportedReason } from '../../shared/schemas-updates';
import type { RunningJobRef } from '../../shared/schemas-updates';
import { UpdateService } from './update-service';
import type { UpdaterPort } from './updater-port';

/** What the host gives: Electron's glue an updater (or why there is none); the browser host nothing. */
export interface UpdatesHostOptions {
  updater: UpdaterPort | null;
  unsupportedReason?: UpdateUnsupportedReason;
}

export interface UpdatesModule extends DomainModule<'updates'> {
  readonly service: UpdateService;
}

const ACTIVE_JOB_STATES = new Set(['starting', 'running', 'cancelling']);

/** `updates:*`: the auto-update state machine. Off (unsupported: browser host) unless the host passes an updater. */
export function registerUpdates(context: ServiceContext, deps: { jobs: Pick<JobsApi, 'list'>; host?: UpdatesHostOptions }): UpdatesModule {
  const host = deps.host ?? { updater: null, unsupportedReason: context.host === 'browser' ? 'browser-host' : 'not-packaged' };
  const service = new UpdateService({
    currentVersion: context.version,
    updater: host.updater,
    ...(host.unsupportedReason ? { unsupportedReason: host.unsupportedReason } : {}),
    runningJobs: (): RunningJobRef[] =>
      deps.jobs
        .list()
        .filter((job) => ACTIVE_JOB_STATES.has(job.state))
        .map((job) => ({ jobId: job.id, label: job.label ?? job.script })),
    onChange: (view) => context.events.emit('updates:state-changed', view),
    logger: context.logger,
  });
  return {
    service,
    handlers: {
      'updates:state': async () => service.view(),
      'updates:check': () => service.check(),
      'updates:download': async () => service.download(),
      'updates:install': async (request) => service.install(request),
    },
    dispose: () => service.settled(),
  };
}
