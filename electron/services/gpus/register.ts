import { PAGE_LEASE_MS } from '../../shared/schemas-watch';
import { PageLeases } from '../app/page-leases';
import type { DomainModule, ServiceContext } from '../domain';
import type { EngineHost } from '../engines/container-engine';
import type { ServerState } from '../../shared/server-state';
import type { ServerStateStore } from '../server-state/server-state-store';
import type { PollPace } from '../swarm/poll-schedule';
import { serverDiskFolders } from './disk-folders';
import { GpuSampler } from './gpu-sampler';
import { gpuTargets } from './gpu-targets';

export interface GpusModule extends DomainModule<'gpus'> {
  readonly sampler: GpuSampler;
}

export interface GpusOptions {
  /** The program to run on each host (default `nvidia-smi` on the host's PATH); tests give their labelled double. */
  command?: string;
  /** Default GPU_SAMPLE_PACE (10 s shown, 60 s hidden). */
  pace?: PollPace;
}

const HOME = 'fleet-home';

/**
 * `gpus:*`: the GPUs of every host the app holds a server on, sampled with nvidia-smi at the fleet home's pace
 * (faster while a page shows the home: `gpus:home-shown`, a lease each page renews). Which hosts to ask comes
 * from the server-state store; a sample goes to the pages as `gpus:sampled`.
 */
export function registerGpus(context: ServiceContext, deps: { store: ServerStateStore; options?: GpusOptions }): GpusModule {
  const { engines, events, logger, visibility } = context;
  const home = new PageLeases(PAGE_LEASE_MS);
  const hostOf = (engineId: string): EngineHost | null => (engines.has(engineId) ? engines.get(engineId).host : null);
  // The disk alert's folders ride along with the GPU reading (same host, same visit, same budget).
  const foldersOf = (state: ServerState): string[] => serverDiskFolders(() => context.profiles.list(), state);
  const sampler = new GpuSampler({
    targets: () => gpuTargets(deps.store.all(), hostOf, foldersOf),
    homeShown: () => home.has(HOME) && visibility.shown(),
    sampled: (sample) => events.emit('gpus:sampled', sample),
    logger,
    ...(deps.options?.command ? { command: deps.options.command } : {}),
    ...(deps.options?.pace ? { pace: deps.options.pace } : {}),
  });
  const stops = [home.onChange(() => sampler.reschedule()), visibility.onChange(() => sampler.reschedule()), deps.store.onChange(() => sampler.reschedule())];
  return {
    sampler,
    handlers: {
      'gpus:samples': async () => sampler.samples(),
      'gpus:home-shown': async ({ pageId, shown }) => {
        home.set(pageId, HOME, shown);
        return { shown: home.has(HOME) };
      },
    },
    start: async () => sampler.start(),
    dispose: () => {
      for (const stop of stops) stop();
      sampler.dispose();
      home.dispose();
    },
  };
}
