import { isAppError } from '../../shared/errors';
import type { SwarmExit } from '../../shared/schemas';
import type { ContainerEngine, ContainerSummary } from '../engines/container-engine';
import { pickExplainingLines } from './log-lines';

/** Lines read from the end of the log to find the ones that explain an exit. */
export const EXIT_LOG_LINES = 200;
/** Lines of the log's end a crash report shows as they are. */
export const EXIT_TAIL_LINES = 50;
const SIGTERM_EXIT = 143;
const SIGKILL_EXIT = 137;

/**
 * Names how a swarm container ended. `requested`: the app itself stopped it just now (then any code
 * is a stop). A scheduler's end is named as such (the code then often says SIGTERM). Otherwise by
 * the code: 143 is SIGTERM, i.e. someone stopped it outside the app; 137 a kill or the OOM killer;
 * 0 an unexpected stop, since the server is meant to run until stopped; others a crash.
 */
export function exitKind(info: Pick<ContainerSummary, 'exitCode' | 'oomKilled' | 'schedulerEnd' | 'stoppedByApp'>, requested: boolean): SwarmExit['kind'] {
  if (info.oomKilled) return 'out-of-memory';
  if (requested || info.stoppedByApp) return 'stopped';
  // Before the codes: at its time limit a job gets SIGTERM like a stop (143), but nobody asked for it.
  if (info.schedulerEnd) return info.schedulerEnd;
  if (info.exitCode === SIGTERM_EXIT) return 'stopped-outside';
  if (info.exitCode === SIGKILL_EXIT) return 'killed';
  if (info.exitCode === 0) return 'unexpected-stop';
  return 'crashed';
}

/**
 * Why a swarm container is not running, from the engine's inspect (exit code, OOM flag, finish
 * time) and the explaining lines of its log. Derived from the engine every time, so it survives a
 * page reload and an app restart. Null while it runs (or cannot be inspected); `'gone'` once the
 * container was removed, so nothing about it is kept.
 */
export async function describeExit(engine: ContainerEngine, containerId: string, requested = false): Promise<SwarmExit | null | 'gone'> {
  let gone = false;
  const info = await engine.inspectContainer(containerId).catch((error: unknown) => {
    gone = isAppError(error) && error.code === 'CONTAINER_NOT_FOUND';
    return null;
  });
  if (gone) return 'gone';
  if (!info || info.state === 'running' || info.state === 'paused' || info.state === 'restarting') return null;
  const kind = exitKind(info, requested);
  // A stop on request needs no explanation; for the rest the log says why.
  const tail = kind === 'stopped' ? [] : await engine.readLog(containerId, { tail: EXIT_LOG_LINES }).catch(() => [] as string[]);
  const exit: SwarmExit = { kind, code: info.exitCode, finishedAt: info.finishedAt, log: pickExplainingLines(tail) };
  if (kind !== 'stopped') exit.tail = tail.slice(-EXIT_TAIL_LINES);
  return exit;
}
