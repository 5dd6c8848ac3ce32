import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { DRY_RUN_ENGINE_ID } from '../../shared/schemas-dryrun';
import type { DomainModule, ServiceContext } from '../domain';
import type { ObservableSink } from '../events';
import type { GpusModule } from '../gpus/register';
import type { Handlers } from '../ipc/handlers';
import type { JobsApi } from '../jobs/jobs-api';
import type { ServerStateStore } from '../server-state/server-state-store';
import { getJson } from '../swarm/swarm-http-client';
import { describeThrown } from '../util/logger';
import { RunRecorder } from './run-recorder';
import { RunStore } from './run-store';
import { runHandlers } from './run-handlers';
import type { RunContextPorts } from './run-context';

export interface RunsModule extends DomainModule<'runs'> {
  readonly recorder: RunRecorder;
  readonly store: RunStore;
}

export interface RunsDeps {
  store: ServerStateStore;
  gpus: GpusModule;
  observed: ObservableSink;
  jobs: JobsApi;
  /** The app's handlers (the training monitor's series, the wizard's state), read through their public API. */
  handlers: () => Pick<Handlers, 'training:series' | 'training:views' | 'wizard:state'>;
  /** The dry run's synced YAML (the app's own server keeps it; it writes no yaml_backup.yaml). */
  dryRunYaml?: () => string | null;
  /** Tests shorten how long OFFLINE holds before a run ends as the engine's own, and how soon a change is written. */
  timing?: { endGraceMs?: number; refreshMs?: number };
}

/** At most one `runs:changed` per this many ms (a fast run changes every step). */
const CHANGED_EVERY_MS = 1000;

/** At most `maxBytes` of a file on this computer; null when it is not there. */
async function readLocalFile(path: string, maxBytes: number): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(maxBytes);
    const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * `runs:*`: every training run kept (issue 33) under `<dataDir>/runs/`, followed from the training monitor's
 * views and the server states (no poller of its own), listed, compared and exported as a run card.
 */
export function registerRuns(context: ServiceContext, deps: RunsDeps): RunsModule {
  const store = new RunStore(join(context.dataDir, 'runs'), (message, error) => context.logger.warn(message, describeThrown(error)));
  const ports: RunContextPorts = {
    profile: (profileId) => {
      const profile = context.profiles.list().find((p) => p.id === profileId);
      return profile ? { label: profile.label, image: profile.image, gpus: profile.gpus } : undefined;
    },
    imageDigest: async (engineId, image) => {
      if (!context.engines.has(engineId)) return null;
      const info = await context.engines.get(engineId).inspectImage(image);
      return info ? (info.repoDigests[0] ?? info.id) : null;
    },
    experimentDir: async (url) => {
      const body = (await getJson(url, '/get_server_experiment_dir', 5000)) as { server_experiment_dir?: unknown } | null;
      return typeof body?.server_experiment_dir === 'string' && body.server_experiment_dir !== '' ? body.server_experiment_dir : null;
    },
    readServerFile: async (engineId, containerId, path, maxBytes) =>
      context.engines.has(engineId) ? context.engines.get(engineId).readContainerFile(containerId, path, maxBytes) : null,
    jobs: () => deps.jobs.list(),
    wizardFiles: async () => (await deps.handlers()['wizard:state']({})).code?.files ?? [],
    readLocalFile,
    gpuSamples: () => deps.gpus.sampler.samples(),
    syncedYaml: (engineId) => (engineId === DRY_RUN_ENGINE_ID ? (deps.dryRunYaml?.() ?? null) : null),
  };

  let pendingChanged = new Set<string>();
  let changedTimer: NodeJS.Timeout | null = null;
  const changed = (runIds: string[]): void => {
    for (const id of runIds) pendingChanged.add(id);
    changedTimer ??= setTimeout(() => {
      changedTimer = null;
      const ids = [...pendingChanged];
      pendingChanged = new Set();
      if (ids.length > 0) context.events.emit('runs:changed', { runIds: ids });
    }, CHANGED_EVERY_MS);
  };

  const recorder = new RunRecorder({
    store,
    ports,
    state: (key) => deps.store.get(key),
    series: (engineId, containerId) => deps.handlers()['training:series']({ engineId, containerId }),
    changed,
    logger: context.logger,
    ...(deps.timing?.endGraceMs !== undefined ? { endGraceMs: deps.timing.endGraceMs } : {}),
    ...(deps.timing?.refreshMs !== undefined ? { refreshMs: deps.timing.refreshMs } : {}),
  });

  const stops: (() => void)[] = [];
  const handlers = runHandlers({
    store,
    recorder,
    changed,
    downloadsDir: context.downloadsDir,
  });

  return {
    recorder,
    store,
    handlers,
    start: async () => {
      await store.load();
      await recorder.start();
      stops.push(
        deps.observed.on('training:changed', (view) => recorder.trainingChanged(view)),
        deps.store.onChange((state) => recorder.stateChanged(state)),
        deps.observed.on('fleet:state-removed', (removed) => recorder.stateRemoved(removed.key)),
      );
      // Servers that train already (the monitor resumed them before this started) are picked up from their views.
      for (const view of await deps.handlers()['training:views']({})) recorder.trainingChanged(view);
    },
    dispose: async () => {
      for (const stop of stops.splice(0)) stop();
      if (changedTimer) clearTimeout(changedTimer);
      await recorder.dispose();
    },
  };
}
