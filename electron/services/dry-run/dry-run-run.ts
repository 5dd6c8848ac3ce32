import { startDryRunServer, type DryRunServerOptions } from './dry-run-server';
import { DebugLlmRelay } from './llm-relay';
import type { DryRunRunFactory } from './dry-run-parts';
import { SpendGuard } from './spend-guard';
import { StepLedger } from './step-ledger';
import { TraceStore } from './trace-store';

/**
 * The key sent to a debug LLM that takes none (a local vLLM or Ollama ignores it): vLLM's own
 * convention for "no key", so the relay always has one to send.
 */
export const NO_KEY = 'EMPTY';

/** Server timings a test may shorten (janitor, training step); the app uses the server's defaults and the config. */
export type DryRunServerTuning = Pick<DryRunServerOptions, 'trainingStepMs' | 'janitorIntervalMs' | 'clientActiveTimeoutS'>;

/**
 * The real parts of one run: a trace store, the spend guard, the relay to the debug LLM (recording
 * into the trace store) and the protocol server on the chosen port, playing the trainer itself.
 */
export function realRunFactory(tuning: DryRunServerTuning = {}): DryRunRunFactory {
  return async ({ config, apiKey, port, log }) => {
    const traces = new TraceStore();
    // Counts each step's calls, tokens and failures on their way to the trace store.
    const ledger = new StepLedger(traces);
    const spend = new SpendGuard(config.spend);
    const relay = new DebugLlmRelay({ baseUrl: config.llm.baseUrl, model: config.llm.model, apiKey: apiKey ?? NO_KEY, spend, calls: ledger, log });
    try {
      const server = await startDryRunServer({
        port,
        trainer: 'auto',
        bootDelayMs: config.bootDelayMs,
        trainingStepMs: config.trainingStepMs,
        relay,
        trace: ledger,
        onStepCollected: (step) => ledger.collected(step),
        log,
        ...tuning,
      });
      return {
        server,
        steps: { onStep: (listener) => ledger.onStep(listener) },
        traces: {
          page: (query) => traces.query(query),
          episode: (uuid) => traces.get(uuid),
          exportJsonl: (folder) => traces.exportJsonl(folder),
          onChange: (listener) => {
            // The spend counts move with the calls: the view follows both.
            const offTraces = traces.onChange(listener);
            const offSpend = spend.onChange(listener);
            return () => {
              offTraces();
              offSpend();
            };
          },
          total: () => traces.stats().episodes,
        },
        relay: { spend: () => spend.snapshot(), close: async () => relay.close() },
      };
    } catch (error) {
      relay.close();
      throw error;
    }
  };
}
