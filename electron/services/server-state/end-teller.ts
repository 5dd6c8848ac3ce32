import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SwarmExit } from '../../shared/schemas';
import type { ServerState } from '../../shared/server-state';
import type { Notifier } from '../notifier';
import { writeFileAtomic } from '../util/atomic-file';
import type { Logger } from '../util/logger';

/** Ends remembered as told, newest last; older ones drop off (a server's end is told within minutes). */
const KEEP_TOLD = 500;
/** An end found at start that is older than this is history, not news: recorded, not notified. */
const NEWS_WITHIN_MS = 24 * 60 * 60 * 1000;
/** A told end's time when the engine no longer knows it. */
const UNKNOWN_TIME = 'unknown';

export interface EndTellerOptions {
  notifier: Notifier;
  logger: Logger;
  dataDir: string;
  /** How the user knows the server: its profile's label, else its container name. */
  nameOf: (state: ServerState) => string;
  now?: () => number;
}

/** The English sentence of an end for the desktop notification and the app log (the page words its own from `end`). */
export function endSentence(kind: SwarmExit['kind'], code: number | null, line: string | null): string {
  const withCode = code === null ? '' : ` with exit code ${code}`;
  const why = line ? `: ${line}` : '';
  switch (kind) {
    case 'crashed':
      return `crashed${withCode}${why}`;
    case 'killed':
      return `was killed${withCode} (docker kill, or a stop that took too long)${why}`;
    case 'out-of-memory':
      return `ran out of memory and the kernel ended it${why}`;
    case 'unexpected-stop':
      return `stopped by itself${withCode}, although it should run until stopped${why}`;
    case 'stopped-outside':
      return 'was stopped outside the app';
    case 'time-limit':
      return 'reached its time limit: the cluster ended the job';
    case 'node-failure':
      return 'ended: its node failed';
    case 'preempted':
      return 'was preempted: the cluster gave its GPUs to another job';
    case 'cancelled':
      return 'was cancelled in the scheduler, outside the app';
    default:
      return 'was stopped';
  }
}

/** The line that explains an end best: the last explaining log line, e.g. "ModuleNotFoundError: No module named 'verl'". */
function explainingLine(end: SwarmExit): string | null {
  if (!end.log.explains) return null;
  const line = end.log.lines.at(-1)?.trim() ?? '';
  return line === '' ? null : line.slice(0, 200);
}

/**
 * Tells every end the user did not ask for exactly once: a desktop notification and a line in the
 * app log, worded from the server's state. Told ends are kept on disk, so a reconnect, a page
 * reload or an app restart does not tell them again.
 */
export class EndTeller {
  private told: string[] = [];
  private readonly file: string;
  private loaded: Promise<void>;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly options: EndTellerOptions) {
    this.file = join(options.dataDir, 'told-ends.json');
    this.loaded = readFile(this.file, 'utf8')
      .then((text) => {
        const parsed: unknown = JSON.parse(text);
        if (Array.isArray(parsed)) this.told = parsed.filter((x): x is string => typeof x === 'string');
      })
      .catch(() => undefined);
  }

  /** Feed every new snapshot; resolves once a new end was told (tests wait on it). */
  async observe(state: ServerState): Promise<void> {
    const end = state.end;
    if (state.phase !== 'ended' || !end || end.kind === 'stopped') return;
    await this.loaded;
    const id = `${state.key}@${end.finishedAt ?? UNKNOWN_TIME}`;
    if (this.alreadyTold(state.key, end.finishedAt)) return;
    this.told = [...this.told, id].slice(-KEEP_TOLD);
    this.save();
    const now = this.options.now?.() ?? Date.now();
    const finished = end.finishedAt ? Date.parse(end.finishedAt) : now;
    const name = this.options.nameOf(state);
    const line = explainingLine(end);
    const sentence = endSentence(end.kind, end.code, line);
    this.options.logger.warn(`swarm server ${name} ${sentence}`, { engineId: state.engineId, containerId: state.containerId, kind: end.kind, code: end.code });
    if (now - finished > NEWS_WITHIN_MS) return;
    this.options.notifier.notify({
      kind: 'server-ended',
      title: state.engineKind === 'slurm' ? `Slurm job ${state.containerId} ended` : `Swarm server ended: ${name}`,
      body: `${name} ${sentence}`,
      engineId: state.engineId,
      containerId: state.containerId,
      end: { kind: end.kind, code: end.code, name, line, engineKind: state.engineKind },
    });
  }

  /**
   * Whether this server's end was told. An end whose time is not known matches any told end of the
   * same server, either way round: Slurm forgets a job MinJobAge after its end (5 min by default), and
   * the app, restarted after that, reads the end again from the job's folder without its time; the
   * same end must not be news then. (A Docker container's next end, after a start of the same
   * container, has a new known time and is news.)
   */
  private alreadyTold(key: string, finishedAt: string | null): boolean {
    const exact = `${key}@${finishedAt ?? UNKNOWN_TIME}`;
    if (this.told.includes(exact) || this.told.includes(`${key}@${UNKNOWN_TIME}`)) return true;
    return finishedAt === null && this.told.some((id) => id.startsWith(`${key}@`));
  }

  /** Resolves once the told list is on disk. */
  flushed(): Promise<void> {
    return this.saving;
  }

  private save(): void {
    const snapshot = JSON.stringify(this.told);
    this.saving = this.saving
      .then(() => writeFileAtomic(this.file, snapshot))
      .catch((error: unknown) => this.options.logger.warn('could not keep which server ends were told', { message: error instanceof Error ? error.message : String(error) }));
  }
}
