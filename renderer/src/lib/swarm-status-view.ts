import type { LogExcerpt, SwarmContainer, SwarmExit, SwarmStatus } from '../../../electron/shared/schemas';
import type { ServerState } from '../../../electron/shared/server-state';
import { swarmUrlForPort } from '../../../electron/shared/defaults';
import { isLive, phaseView } from './server-words';
import { containerText, elapsed, humanDuration, msg, say, since, type Message } from './durations';
import { isMessageKey } from './i18n';

export { say, type Message } from './durations';

const BOOTING = 'ENGINE.BOOTING';
const OFFLINE = 'ENGINE.OFFLINE';

export type Tone = 'danger' | 'warn';

/** Log lines shown under a problem or an exit, with what they are. */
export interface LogView {
  /** "From the container log:" (lines that explain) or "Latest output …" (no error found). */
  label: Message;
  lines: string[];
}

/** Something the user should read: a failed or slow boot, or why the container ended. */
export interface Notice {
  kind: string;
  tone: Tone;
  text: Message;
  log: LogView | null;
  /** Where to look when the lines shown do not explain it. */
  pointer: Message | null;
}

/** The engine column of a row whose container runs. */
export interface EngineView {
  /** ENGINE.ROLLING etc. as the server said it; null before its first answer. */
  status: string | null;
  connection: SwarmStatus['connection'] | 'none';
  /** "online"; the row writes `progress` after it, joined by " · " in every language. */
  connectionText: Message;
  /** Current progress ("step 7"), or boot time and history ("booting for 12 s", "last step 5"). */
  progress: Message[];
  /** Current detail of a running engine, or "last detail: …" once it is not running. */
  detail: Message | null;
  /** What the status means; none when a problem says more. */
  hint: Message | null;
  problem: Notice | null;
  /** Why the last poll failed, while the server does not answer. */
  lastError: string | null;
  /** While it does not answer: how old its last answer is and through which link it was asked. */
  stale: Message | null;
}

export interface SwarmRowView {
  /** The backend's phase of the server (the badge words it: `server-words.ts`). */
  phase: ServerState['phase'];
  /** Docker-style state text, recomputed at `now` ("Up 3 seconds"). */
  containerText: Message;
  /** False once the container is not running: then there is no engine, only `exit`. */
  live: boolean;
  engine: EngineView | null;
  exit: Notice | null;
}

function logView(log: LogExcerpt, explainingOnly: boolean): LogView | null {
  if (log.lines.length === 0) return null;
  if (log.explains) return { label: msg('statusView.logExplains'), lines: log.lines };
  // Upstream's last lines are its start-up banner: shown only where the newest output is the point.
  return explainingOnly ? null : { label: msg('statusView.latestOutput'), lines: log.lines };
}

/** A positive step: upstream's failure hooks post global_step 0, a step nobody reached. */
const reached = (step: number | null | undefined): number | null => (typeof step === 'number' && step > 0 ? step : null);

function exitNotice(exit: SwarmExit, name: string): Notice {
  const code = exit.code ?? '?';
  // No explaining line: the crash report's last lines (up to 50) are the next best thing.
  const tail = exit.tail && exit.tail.length > 0 ? { label: msg('statusView.latestOutput'), lines: exit.tail } : null;
  const log = exit.kind === 'stopped' ? null : (logView(exit.log, true) ?? tail);
  // A stop on request needs no explanation; for the rest, point at the log when it showed nothing.
  const pointer = exit.kind === 'stopped' || log ? null : msg('statusView.seeLog', { name });
  return { kind: exit.kind, tone: exit.kind === 'stopped' ? 'warn' : 'danger', text: msg(`exit.${exit.kind}`, { code }), log, pointer };
}

/** Without the monitor's word (not known yet), only what Docker's list says. */
function exitFromContainer(container: SwarmContainer): Notice | null {
  if (container.exitCode === null) return null;
  return { kind: 'exited', tone: 'warn', text: msg('exit.exited', { code: container.exitCode }), log: null, pointer: null };
}

function problemNotice(status: SwarmStatus, name: string, now: number): Notice | null {
  const problem = status.engineProblem;
  if (!problem) return null;
  const booting = elapsed(since(status.bootingSince, now) ?? since(problem.since, now) ?? 0);
  switch (problem.kind) {
    case 'boot-failed':
    case 'engine-ended': {
      const log = logView(problem.log, true);
      return { kind: problem.kind, tone: 'danger', text: msg(`problem.${problem.kind}`), log, pointer: log ? null : msg('statusView.seeLog', { name }) };
    }
    case 'boot-errors':
      return { kind: problem.kind, tone: 'danger', text: msg('problem.boot-errors', { duration: booting }), log: logView(problem.log, true), pointer: null };
    case 'boot-slow':
      // Nothing failed visibly yet: the newest output is what tells how far the boot got.
      return { kind: problem.kind, tone: 'warn', text: msg('problem.boot-slow', { duration: booting }), log: logView(problem.log, false), pointer: msg('statusView.seeLog', { name }) };
    default:
      return null;
  }
}

function engineView(status: SwarmStatus | undefined, name: string, now: number): EngineView {
  if (!status) {
    return { status: null, connection: 'none', connectionText: msg('connection.none'), progress: [], detail: null, hint: null, problem: null, lastError: null, stale: null };
  }
  const engineStatus = status.engineStatus;
  const line: Message[] = [];
  const step = reached(status.globalStep);
  const lastStep = reached(status.lastGlobalStep);
  const runningEngine = engineStatus !== null && engineStatus !== OFFLINE && engineStatus !== BOOTING;
  let detail: Message | null = null;
  if (runningEngine) {
    if (step !== null) line.push(msg('containers.step', { step }));
    if (status.engineStatusDetail) detail = msg('statusView.detail', { detail: status.engineStatusDetail });
  } else {
    if (engineStatus === BOOTING) line.push(msg('statusView.bootingFor', { duration: elapsed(since(status.bootingSince, now) ?? 0) }));
    // Upstream keeps step and detail after stop_engine: history, never current progress.
    if (lastStep !== null) line.push(msg('statusView.lastStep', { step: lastStep }));
    if (status.lastEngineStatusDetail) detail = msg('statusView.lastDetail', { detail: status.lastEngineStatusDetail });
  }
  const problem = status.connection === 'online' ? problemNotice(status, name, now) : null;
  let hint: Message | null = null;
  if (!problem && status.connection === 'online' && engineStatus !== null) {
    const ranBefore = lastStep !== null || status.lastEngineStatusDetail !== null;
    const key = engineStatus === OFFLINE && ranBefore ? 'statusView.offlineAfterRun' : `engineStatus.${engineStatus}`;
    hint = isMessageKey(key) ? msg(key) : null;
  }
  const lastError = status.connection === 'unreachable' ? status.lastError : null;
  const answeredAgo = status.connection === 'unreachable' ? since(status.confirmedAt ?? null, now) : null;
  const stale = answeredAgo === null ? null : msg('statusView.lastAnswer', { duration: humanDuration(answeredAgo), link: msg(`link.${status.via ?? 'direct'}`) });
  return { status: engineStatus, connection: status.connection, connectionText: msg(`connection.${status.connection}`), progress: line, detail, hint, problem, lastError, stale };
}

/**
 * What a server's row, card and dashboard show below its badge, from the backend's one state of it
 * (issue 31), at time `now` (durations tick). A server that is not running has no engine: only why
 * it ended (the backend's `phase` decides which, never this function). A running one shows the
 * engine as the server reports it, read so that it cannot mislead: step and detail are progress
 * only while the engine runs, and a failed or stuck boot says so.
 */
export function swarmRowView(state: ServerState, now: number): SwarmRowView {
  const container = state.container;
  const text = containerText(container, now);
  if (!isLive(state)) {
    const exit = state.end ? exitNotice(state.end, container.name) : state.phase === 'ended' ? exitFromContainer(container) : null;
    return { phase: state.phase, containerText: text, live: false, engine: null, exit };
  }
  return { phase: state.phase, containerText: text, live: true, engine: engineView(state.status ?? undefined, container.name, now), exit: null };
}

/** What the status bar says about the servers that run or wait (newest news first). */
export interface StatusBarView {
  /** The first server, and "(+2 more)". */
  text: Message[];
  /** Boot problems among them, e.g. "1 server: engine failed to boot". */
  problems: Message[];
  tone: 'online' | 'starting' | 'unreachable' | 'none' | 'problem';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function countMessage(count: number, one: Message['key'], many: Message['key']): Message {
  return count === 1 ? msg(one) : msg(many, { count });
}

const TONE_OF_PHASE: Partial<Record<ServerState['phase'], StatusBarView['tone']>> = { ready: 'online', training: 'online', unreachable: 'unreachable' };

/** The status bar from the servers' states: the first one in the words of its badge, then each kind of problem. */
export function statusBarView(states: readonly ServerState[], loadFailed: boolean, now: number): StatusBarView {
  const shown = states.filter((s) => s.phase !== 'ended' && s.phase !== 'not-started').sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const first = shown[0];
  if (!first) return { text: [loadFailed ? msg('status.backendDown') : msg('status.notRunning')], problems: [], tone: 'none' };
  const host = hostOf(first.status?.url ?? swarmUrlForPort(first.container.port));
  const text: Message[] = [msg('status.server', { phase: phaseView(first, now).text, host })];
  if (shown.length > 1) text.push(msg('status.swarmMore', { count: shown.length - 1 }));
  const count = (...kinds: string[]) => shown.filter((s) => kinds.includes(s.problem ?? '')).length;
  const problems: Message[] = [];
  const failed = count('boot-failed', 'boot-errors');
  const slow = count('boot-slow');
  const ended = count('engine-ended');
  if (failed > 0) problems.push(countMessage(failed, 'status.bootFailed.one', 'status.bootFailed.many'));
  if (slow > 0) problems.push(countMessage(slow, 'status.bootSlow.one', 'status.bootSlow.many'));
  if (ended > 0) problems.push(countMessage(ended, 'status.engineEnded.one', 'status.engineEnded.many'));
  return { text, problems, tone: problems.length > 0 ? 'problem' : (TONE_OF_PHASE[first.phase] ?? 'starting') };
}

/** The status bar's words: the first server (and how many more), then each kind of problem. */
export function sayStatusBar(view: StatusBarView): string {
  return [view.text.map(say).join(' '), ...view.problems.map(say)].join(' · ');
}

/** Parts of one line, in the current language, with the same separator in every language. */
export function sayLine(parts: readonly Message[]): string {
  return parts.map(say).join(' · ');
}
