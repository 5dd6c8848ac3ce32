import { DryRunConfig, type DryRunSpend, type DryRunView } from '../../shared/schemas-dryrun';
import { LABEL_APP_VERSION, LABEL_MANAGED, LABEL_NETWORK, LABEL_PORT, LABEL_ROLE, type ContainerSummary } from '../engines/container-engine';
import { SWARM_ROLE } from '../swarm/swarm-containers';
import type { DryRunRun } from './dry-run-parts';
import type { PortChoice } from './dry-run-port';

/** Where the debug LLM's key comes from, as data (DryRunView.keyFrom). */
export type KeyFrom = NonNullable<DryRunView['keyFrom']>;

/** What the view needs of a run (the service's Run, without its secrets). */
export interface ViewedRun {
  config: DryRunConfig;
  keySource: string;
  keyFrom: KeyFrom;
  port: PortChoice;
  parts: DryRunRun;
  container: ContainerSummary;
}

/** The image column of the dry run's row: it runs no image. */
export const DRY_RUN_IMAGE = 'in-app dry run (no image, no GPU)';

/** The dry run's "container": the labels of a swarm server the app started, so swarm logic finds it as one. */
export function dryRunContainer(port: number, appVersion: string, startedAt: string): ContainerSummary {
  return {
    id: 'dry-run',
    name: 'dry-run',
    image: DRY_RUN_IMAGE,
    state: 'running',
    statusText: 'Up',
    labels: {
      [LABEL_MANAGED]: 'true',
      [LABEL_ROLE]: SWARM_ROLE,
      [LABEL_PORT]: String(port),
      [LABEL_NETWORK]: 'publish',
      [LABEL_APP_VERSION]: appVersion,
    },
    createdAt: startedAt,
    startedAt,
    finishedAt: null,
    exitCode: null,
    oomKilled: false,
  };
}

const DEFAULT_SPEND = DryRunConfig.shape.spend.parse(undefined);

function noSpend(config: DryRunConfig | null): DryRunSpend {
  const limits = config?.spend ?? DEFAULT_SPEND;
  return { calls: 0, promptTokens: 0, completionTokens: 0, maxCalls: limits.maxCalls, maxTokens: limits.maxTokens, stoppedBy: null };
}

/**
 * The card's view of the dry run. While it runs, engine status, step, job and stall come from the
 * server's own snapshot; after a stop the config, port and spend of the last run stay (the traces
 * are still readable), and the engine fields are empty: no server answers any more.
 */
export function viewOf(state: DryRunView['state'], error: string | null, run: ViewedRun | null): DryRunView {
  const running = state === 'running' && run !== null && run.container.state === 'running';
  const reading = running ? run.parts.server.snapshot() : null;
  const train = reading?.train ?? null;
  return {
    state,
    url: running ? run.parts.server.url : null,
    port: run?.parts.server.port ?? null,
    portNote: run?.port.note ?? null,
    portTaken: run?.port.taken ?? null,
    config: run?.config ?? null,
    keySource: run?.keySource ?? null,
    keyFrom: run?.keyFrom ?? null,
    engineStatus: reading?.status ?? null,
    globalStep: reading?.globalStep ?? null,
    train: train
      ? {
          experimentName: train.experimentName,
          batchSize: train.batchSize,
          numRepeat: train.numRepeat,
          sampleCollectionMethod: train.sampleCollectionMethod,
          unknownKeys: [...train.unknownKeys],
        }
      : null,
    spend: run ? run.parts.relay.spend() : noSpend(null),
    stall: reading?.stall ?? null,
    startRefusal: reading?.startRefusal ? { ...reading.startRefusal } : null,
    error,
  };
}
