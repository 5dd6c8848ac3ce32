import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import type { JobsApi } from './jobs-api';

export interface JobsModule extends DomainModule<'jobs'> {
  readonly api: JobsApi;
}

// PLACEHOLDER (integrator, issue 16 contract commit): the jobs helper replaces this with the real runner.
const notYet = (): never => {
  throw new AppError('INTERNAL', 'The job runner is not built yet.');
};

/** `jobs:*`: the user's Python scripts as child processes (execa), streamed, cancelled, kept in a history. */
export function registerJobs(_context: ServiceContext): JobsModule {
  const api: JobsApi = {
    discoverPython: async () => notYet(),
    start: async () => notYet(),
    cancel: async () => notYet(),
    get: () => notYet(),
    list: () => [],
    waitForEnd: async () => notYet(),
    onChange: () => () => undefined,
  };
  return {
    api,
    handlers: {
      'jobs:python': async () => notYet(),
      'jobs:start': async () => notYet(),
      'jobs:cancel': async () => notYet(),
      'jobs:rerun': async () => notYet(),
      'jobs:list': async () => api.list(),
      'jobs:get': async () => notYet(),
      'jobs:log': async () => notYet(),
      'jobs:open-log': async () => notYet(),
    },
  };
}
