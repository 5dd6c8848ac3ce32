import type { DomainModule, ServiceContext } from '../domain';

/** `app:*`: facts about the running app itself. */
export function registerApp(context: ServiceContext): DomainModule<'app'> {
  return {
    handlers: {
      'app:info': async () => ({ version: context.version, host: context.host, platform: process.platform }),
    },
  };
}
