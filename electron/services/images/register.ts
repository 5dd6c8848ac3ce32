import type { DomainModule, ServiceContext } from '../domain';
import { PullManager } from './pull-manager';

/** `images:*`: image pulls with aggregated progress on any engine (local, SSH), cancellable. */
export function registerImages(context: ServiceContext): DomainModule<'images'> {
  const pulls = new PullManager({ engines: context.engines, events: context.events, logger: context.logger });
  return {
    handlers: {
      'images:pull': async ({ engineId, image }) => pulls.start(engineId, image),
      'images:cancel-pull': async ({ pullId }) => pulls.cancel(pullId),
      'images:pulls': async () => pulls.list(),
    },
    dispose: () => pulls.dispose(),
  };
}
