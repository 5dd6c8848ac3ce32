import type { DryRunConfig, DryRunSpend, EpisodeTrace, TraceExport, TracePage, TraceQuery } from '../../shared/schemas-dryrun';
import type { ExactStep } from '../training/step-recorder';
import type { StartRefusal } from './start-checks';

/**
 * What the dry-run service needs of the parts the other two dry-run helpers build (the protocol
 * server: dry-run-server.ts; the relay and trace store: llm-relay.ts, trace-store.ts), written as
 * structural types so the service depends on what it uses, and tests can hand in the real parts
 * with other settings (short janitor, external trainer). `register.ts` wires the real ones.
 */

export type DryRunLogFn = (level: 'info' | 'warn' | 'error', message: string) => void;

/** The server's reading of itself (DryRunServer.snapshot()), the fields the view shows. */
export interface DryRunServerReading {
  status: string;
  globalStep: number | null;
  train: {
    experimentName: string | null;
    batchSize: number;
    numRepeat: number;
    sampleCollectionMethod: string;
    unknownKeys: string[];
  } | null;
  stall: string | null;
  startRefusal: StartRefusal | null;
}

export interface DryRunServerHandle {
  url: string;
  port: number;
  snapshot(): DryRunServerReading;
  /** The YAML a client synced last (absent in tests' hand-built parts). */
  syncedYaml?(): string | null;
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The trace store of one run, as the service reads it (it is also the server's TraceSink). */
export interface DryRunTraceStore {
  page(query: TraceQuery): TracePage;
  /** Null when this run has no such episode. */
  episode(episodeUuid: string): EpisodeTrace | null;
  /** Every episode as one JSON object per line (redacted), written atomically to a new file in `folder`. */
  exportJsonl(folder: string): Promise<TraceExport>;
  /** Episodes, steps or spend changed (called often: the service throttles). */
  onChange(listener: () => void): () => void;
  total(): number;
}

/** The relay of one run and its spend guard. */
export interface DryRunRelayHandle {
  spend(): DryRunSpend;
  close?(): Promise<void>;
}

export interface DryRunRunInput {
  config: DryRunConfig;
  /** The debug LLM's key; null when the endpoint takes none (a local model server). */
  apiKey: string | null;
  /** 127.0.0.1 port chosen for the server. */
  port: number;
  log: DryRunLogFn;
}

/** One run's parts, built together (the relay records into the trace store, the server uses both). */
export interface DryRunRun {
  server: DryRunServerHandle;
  traces: DryRunTraceStore;
  relay: DryRunRelayHandle;
  /** Each completed training step exactly as the trainer counted it (absent in tests' hand-built parts). */
  steps?: { onStep(listener: (step: ExactStep) => void): () => void };
}

/** Builds and starts one run: trace store, relay, and the server on `input.port` (rejects when it cannot listen). */
export type DryRunRunFactory = (input: DryRunRunInput) => Promise<DryRunRun>;
