import type { EngineProblem, LogExcerpt, SwarmStatus } from '../../shared/schemas';
import type { EngineStatusReading } from './swarm-http-client';

export const OFFLINE = 'ENGINE.OFFLINE';
export const BOOTING = 'ENGINE.BOOTING';
/** Statuses of an engine that has booted: its step and detail are current progress. */
const RUNNING = new Set(['ENGINE.ROLLING', 'ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING', 'ENGINE.WEIGHT_EXPORTING']);

export function isRunningEngine(status: string | null): boolean {
  return status !== null && RUNNING.has(status);
}

/** The engine fields of a status: what the server said, read so that it cannot mislead. */
export type EngineView = Pick<
  SwarmStatus,
  'engineStatus' | 'engineStatusDetail' | 'globalStep' | 'lastGlobalStep' | 'lastEngineStatusDetail' | 'bootingSince' | 'engineProblem'
>;

export const NO_ENGINE: EngineView = {
  engineStatus: null,
  engineStatusDetail: null,
  globalStep: null,
  lastGlobalStep: null,
  lastEngineStatusDetail: null,
  bootingSince: null,
  engineProblem: null,
};

/** What one watch remembers between polls to tell history from progress. */
export interface EngineMemory {
  /** The last step and detail seen while the engine ran (upstream may overwrite them with 0). */
  seenStep: number | null;
  seenDetail: string | null;
  /** When a poll last saw the engine not booting (ms): a boot that follows began after it. */
  lastNotBootingAt: number | null;
  /** Log lines of the current boot start here (ms; undefined: the whole tail). */
  bootLogSinceMs: number | undefined;
  /** When the log was last read for a boot in progress (ms). */
  lastBootLogAt: number;
}

export function newEngineMemory(): EngineMemory {
  return { seenStep: null, seenDetail: null, lastNotBootingAt: null, bootLogSinceMs: undefined, lastBootLogAt: 0 };
}

export interface EngineViewContext {
  /** When the poll that got this reading was sent (ms): the server answered after it. */
  now: number;
  /** The server's booting_start_time (ms), asked only when a boot is first seen; null if unknown. */
  serverBootStartMs: () => Promise<number | null>;
  /** Explaining lines of the container log since `sinceMs` (whole log tail when undefined). */
  readLog: (sinceMs: number | undefined) => Promise<LogExcerpt>;
  bootWarnAfterMs: number;
  bootLogEveryMs: number;
}

const positive = (step: number | null) => (step !== null && step > 0 ? step : null);
const problem = (kind: EngineProblem['kind'], now: number, log: LogExcerpt): EngineProblem => ({
  kind,
  since: new Date(now).toISOString(),
  log,
});

/**
 * Turns a /get_engine_status reading into what the row may show. Step and detail count as progress
 * only while the engine runs; otherwise (OFFLINE, BOOTING) they are history, because upstream keeps
 * them after stop_engine and its failure hooks post global_step 0, a step nobody reached. A boot
 * that falls back to OFFLINE, or that shows errors in the log, or lasts too long, becomes an
 * `engineProblem` with the log lines that explain it: the server itself never says why.
 */
export async function nextEngineView(prev: EngineView, reading: EngineStatusReading, memory: EngineMemory, ctx: EngineViewContext): Promise<EngineView> {
  const status = reading.engineStatus;
  const step = positive(reading.globalStep);
  if (isRunningEngine(status)) {
    memory.seenStep = step ?? memory.seenStep;
    memory.seenDetail = reading.engineStatusDetail ?? memory.seenDetail;
    memory.lastNotBootingAt = ctx.now;
    return { ...NO_ENGINE, engineStatus: status, engineStatusDetail: reading.engineStatusDetail, globalStep: step };
  }
  const history = {
    lastGlobalStep: step ?? memory.seenStep,
    lastEngineStatusDetail: reading.engineStatusDetail ?? memory.seenDetail,
  };
  if (status === BOOTING) return bootingView(prev, history, memory, ctx);

  memory.lastNotBootingAt = ctx.now;
  if (status !== OFFLINE) return { ...NO_ENGINE, engineStatus: status, ...history };

  let engineProblem = prev.engineStatus === OFFLINE || prev.engineStatus === null ? prev.engineProblem : null;
  if (prev.engineStatus === BOOTING) {
    engineProblem = problem('boot-failed', ctx.now, await ctx.readLog(memory.bootLogSinceMs));
  } else if (reading.globalStep === 0 && (prev.engineStatus === null || isRunningEngine(prev.engineStatus))) {
    // OFFLINE with step 0 is what upstream's failure and exit hooks post: an engine ran and ended.
    engineProblem = problem('engine-ended', ctx.now, await ctx.readLog(undefined));
  }
  return { ...NO_ENGINE, engineStatus: OFFLINE, ...history, engineProblem };
}

async function bootingView(
  prev: EngineView,
  history: Pick<EngineView, 'lastGlobalStep' | 'lastEngineStatusDetail'>,
  memory: EngineMemory,
  ctx: EngineViewContext,
): Promise<EngineView> {
  let bootingSince = prev.engineStatus === BOOTING ? prev.bootingSince : null;
  let engineProblem = prev.engineStatus === BOOTING ? prev.engineProblem : null;
  if (bootingSince === null) {
    // The monitor may have missed the start (app restarted mid-boot): the server knows when it began.
    const fromServer = memory.lastNotBootingAt === null ? await ctx.serverBootStartMs() : null;
    bootingSince = new Date(fromServer ?? ctx.now).toISOString();
    // The boot began after the last poll that saw none was sent (a little slack for the log's
    // clock); after an app restart, when the server says it began.
    if (memory.lastNotBootingAt !== null) memory.bootLogSinceMs = memory.lastNotBootingAt - 100;
    else memory.bootLogSinceMs = fromServer === null ? undefined : fromServer - 1000;
    memory.lastBootLogAt = 0;
  }
  const view: EngineView = { ...NO_ENGINE, engineStatus: BOOTING, ...history, bootingSince, engineProblem };
  if (ctx.now - memory.lastBootLogAt < ctx.bootLogEveryMs) return view;
  memory.lastBootLogAt = ctx.now;
  // Upstream's start_engine can fail half-way and stay BOOTING; only the log says so.
  const log = await ctx.readLog(memory.bootLogSinceMs);
  const tooLong = ctx.now - Date.parse(bootingSince) > ctx.bootWarnAfterMs;
  if (log.explains) engineProblem = problem('boot-errors', ctx.now, log);
  else if (tooLong) engineProblem = problem('boot-slow', ctx.now, log);
  if (engineProblem && prev.engineProblem && engineProblem.kind === prev.engineProblem.kind) {
    engineProblem = { ...engineProblem, since: prev.engineProblem.since };
  }
  return { ...view, engineProblem };
}
