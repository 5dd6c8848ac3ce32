import type { DomainModule, ServiceContext } from '../domain';
import { exportSettings, importSettings, type TransferTargets } from './settings-transfer';

export interface SettingsDeps {
  /** Servers and profiles for export/import; a function because those domains are built after this one. */
  transferTargets: () => TransferTargets;
}

/**
 * `settings:*`: the non-secret settings file. Loaded first at start, so other domains read real
 * values. Loading never throws: a file that cannot be read leaves defaults in memory and
 * `settings:status` (and the `settings:status-changed` event) tells the UI what happened and where.
 * `settings:export` / `settings:import`: every non-secret setting to and from one JSON file (settings-transfer.ts).
 */
export function registerSettings(context: ServiceContext, deps: SettingsDeps): DomainModule<'settings'> {
  const { settings } = context;
  const sources = {
    settings,
    vault: context.vault,
    targets: deps.transferTargets,
    downloadsDir: context.downloadsDir,
    appVersion: context.version,
  };
  return {
    handlers: {
      'settings:get': async () => settings.get(),
      'settings:update': async (patch) => settings.update(patch),
      'settings:status': () => settings.checkStatus(),
      'settings:export': async () => exportSettings(sources),
      'settings:import': async ({ text, confirm }) => importSettings(sources, text, confirm),
    },
    async start() {
      await settings.load();
    },
  };
}
