import type { DomainModule, ServiceContext } from '../domain';
import type { Handlers } from '../ipc/handlers';
import type { JobsApi } from '../jobs/jobs-api';
import type { SwarmWaits } from './swarm-starter';
import { WizardService } from './wizard-service';

export interface WizardDeps {
  jobs: JobsApi;
  /**
   * The other domains' handlers (built after this module): the wizard starts the dry run, a
   * profile, an SSH link, tests a secret… through the very same checks the pages use, never by
   * calling Docker or SSH itself.
   */
  handlers: () => Handlers;
  /** Tests shorten the waits for a swarm server's URL and /health. */
  swarmWaits?: SwarmWaits;
}

export interface WizardModule extends DomainModule<'wizard'> {
  readonly service: WizardService;
}

/** `wizard:*`: the guided step machine, persisted in `<data>/wizard.json`. */
export function registerWizard(context: ServiceContext, deps: WizardDeps): WizardModule {
  const service = new WizardService({
    dataDir: context.dataDir,
    resourcesDir: context.resourcesDir,
    events: context.events,
    jobs: deps.jobs,
    handlers: deps.handlers,
    profiles: context.profiles,
    vault: context.vault,
    logger: context.logger,
    ...(deps.swarmWaits ? { swarmWaits: deps.swarmWaits } : {}),
  });
  const { project, code, swarm, runs } = service;
  return {
    service,
    handlers: {
      'wizard:state': async () => service.state(),
      'wizard:goto': ({ step }) => service.goto(step),
      'wizard:reset': () => service.reset(),
      'wizard:set-llm': ({ secretId }) => code.setLlm(secretId),
      'wizard:set-project': (setup) => project.setProject(setup),
      'wizard:set-python': ({ python }) => project.setPython(python),
      'wizard:test-dataset': () => project.testDataset(),
      'wizard:test-episode': ({ itemId }) => project.testEpisode(itemId),
      'wizard:preview-code': (form) => code.previewCode(form),
      'wizard:generate-code': (request) => code.generateCode(request),
      'wizard:choose-swarm': (choice) => swarm.chooseSwarm(choice),
      'wizard:start-swarm': (request) => swarm.startSwarm(request),
      'wizard:run-debug': () => runs.runDebug(),
      'wizard:train': ({ confirmEngineRestart }) => runs.train(confirmEngineRestart),
      'wizard:stop-train': () => runs.stopTrain(),
    },
    // Jobs start before the wizard (app-services order): their history is loaded when ours is read.
    start: () => service.load(),
    dispose: () => service.dispose(),
  };
}
