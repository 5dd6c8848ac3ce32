import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';

/** `settings:*`: the non-secret settings file. Loaded first at start, so other domains read real values. */
export function registerSettings({ settings }: ServiceContext): DomainModule<'settings'> {
  return {
    handlers: {
      'settings:get': async () => settings.get(),
      'settings:update': async (patch) => settings.update(patch),
    },
    async start() {
      try {
        await settings.load();
      } catch (error) {
        throw new AppError('SETTINGS_INVALID', `Cannot read ${settings.path}: ${(error as Error).message}`);
      }
    },
  };
}
