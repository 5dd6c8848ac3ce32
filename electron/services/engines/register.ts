import type { DomainModule, ServiceContext } from '../domain';

/** `engines:*`: the container engines the app knows and whether each answers. */
export function registerEngines({ engines, events }: ServiceContext): DomainModule<'engines'> {
  // An invalidation, not a delta: the renderer asks `engines:list` again.
  engines.onChange((change) => {
    if (change.kind !== 'reconnected') events.emit('engines:changed', {});
  });
  return {
    handlers: {
      'engines:list': async () => engines.summaries(),
      'engines:health': async ({ engineId }) => engines.get(engineId).health(),
    },
    dispose: () => engines.dispose(),
  };
}
