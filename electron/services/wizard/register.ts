import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import type { Handlers } from '../ipc/handlers';
import type { JobsApi } from '../jobs/jobs-api';

export interface WizardDeps {
  jobs: JobsApi;
  /**
   * The other domains' handlers (built after this module): the wizard starts the dry run, a
   * profile, an SSH link, tests a secret… through the very same checks the pages use, never by
   * calling Docker or SSH itself.
   */
  handlers: () => Handlers;
}

// PLACEHOLDER (integrator, issue 16 contract commit): the wizard-backend helper replaces this.
const notYet = (): never => {
  throw new AppError('INTERNAL', 'The wizard is not built yet.');
};

/** `wizard:*`: the guided step machine, persisted in `<data>/wizard.json`. */
export function registerWizard(_context: ServiceContext, _deps: WizardDeps): DomainModule<'wizard'> {
  return {
    handlers: {
      'wizard:state': async () => notYet(),
      'wizard:goto': async () => notYet(),
      'wizard:reset': async () => notYet(),
      'wizard:set-llm': async () => notYet(),
      'wizard:set-project': async () => notYet(),
      'wizard:set-python': async () => notYet(),
      'wizard:test-dataset': async () => notYet(),
      'wizard:test-episode': async () => notYet(),
      'wizard:preview-code': async () => notYet(),
      'wizard:generate-code': async () => notYet(),
      'wizard:choose-swarm': async () => notYet(),
      'wizard:start-swarm': async () => notYet(),
      'wizard:run-debug': async () => notYet(),
      'wizard:train': async () => notYet(),
      'wizard:stop-train': async () => notYet(),
    },
  };
}
