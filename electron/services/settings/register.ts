import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';

/**
 * `settings:*`: the non-secret settings file. Loaded first at start, so other domains read real
 * values. Loading never throws: a file that cannot be read leaves defaults in memory and
 * `settings:status` (and the `settings:status-changed` event) tells the UI what happened and where.
 */
export function registerSettings({ settings }: ServiceContext): DomainModule<'settings'> {
  return {
    handlers: {
      'settings:get': async () => settings.get(),
      'settings:update': async (patch) => settings.update(patch),
      'settings:status': async () => settings.status(),
      // PLACEHOLDER (issue 14, shell-store helper): export/import of every non-secret setting.
      'settings:export': async () => {
        throw new AppError('INTERNAL', 'Settings export is not built yet.');
      },
      'settings:import': async () => {
        throw new AppError('SETTINGS_IMPORT_INVALID', 'Settings import is not built yet.');
      },
    },
    async start() {
      await settings.load();
    },
  };
}
