import type { DomainModule, ServiceContext } from '../domain';

/** `engines:*`: the container engines the app knows and whether each answers. */
export function registerEngines({ engines }: ServiceContext): DomainModule<'engines'> {
  return {
    handlers: {
      'engines:list': async () => engines.summaries(),
      'engines:health': async ({ engineId }) => engines.get(engineId).health(),
    },
    dispose: () => engines.dispose(),
  };
}
