import type { ServerState } from '../../../electron/shared/server-state';
import { elapsed, msg, since, type Message } from './durations';
import { isMessageKey, type MessageKey } from './i18n';

export type PhaseTone = 'ok' | 'busy' | 'warn' | 'danger' | 'muted';

/** The badge of a server: one short phrase for its phase (or its end, or its problem), a tone, how long. */
export interface PhaseView {
  /** The phase as the backend decided it, for tests and styling (`data-phase`). */
  phase: ServerState['phase'];
  /** What the badge says: "Running", "Queued: Resources (position 1)", "Crashed (exit code 1)", "Engine failed to boot". */
  text: Message;
  tone: PhaseTone;
  /** "for 2 min 5 s" while the phase lasts, null once ended (the end says when). */
  duration: Message | null;
  /** A finer word for the badge's tooltip and for screen readers: the problem or the queue reason. */
  kind: string;
}

/** Ends that are not a failure: a stop the user asked for. */
const QUIET_ENDS = new Set(['stopped']);
/** Ends the cluster decided, which a restart usually cures: a warning, not an alarm. */
const SCHEDULER_ENDS = new Set(['time-limit', 'preempted', 'stopped-outside', 'cancelled']);

/**
 * Why a job waits, in words (squeue's reason codes: Resources, Priority, QOSMaxGRESPerUser, AssocGrpGRES,
 * JobHeldUser, …), for every surface that says it (the badge, the jobs panel's line). Families of limits share one
 * sentence with the code beside it; an unknown code is quoted as Slurm gives it.
 */
export function queueReasonMessage(reason: string | null): Message {
  const r = reason ?? 'None';
  const direct = `slurm.reason.${r}`;
  if (isMessageKey(direct)) return msg(direct);
  let family: MessageKey | null = null;
  if (/^QOS/i.test(r)) family = 'slurm.reason.qos';
  else if (/^Assoc/i.test(r)) family = 'slurm.reason.assoc';
  else if (/^JobHeld/i.test(r)) family = 'slurm.reason.held';
  else if (/^ReqNodeNotAvail/i.test(r)) family = 'slurm.reason.ReqNodeNotAvail';
  return family ? msg('phase.queued.family', { words: msg(family), code: r }) : msg('slurm.reason.other', { reason: r });
}

function queuedText(state: ServerState): Message {
  const reason = state.queue?.reason ?? null;
  const position = state.queue?.position ?? null;
  // A held job has no place in the queue until Start releases it.
  if (reason === 'JobHeldUser') return msg('phase.queued.held');
  if (reason && position) return msg('phase.queued.reasonPosition', { reason: queueReasonMessage(reason), position });
  if (reason) return msg('phase.queued.reason', { reason: queueReasonMessage(reason) });
  return msg('phase.queued');
}

/**
 * The one wording of a server's state for every badge (profile card, container row, jobs panel,
 * wizard, dashboard header, status bar): from the backend's phase, end and problem only, never
 * from engine-specific fields, so the same state reads the same everywhere, in every language.
 */
export function phaseView(state: ServerState, now: number): PhaseView {
  const duration = (iso: string | null): Message | null => {
    const ms = since(iso, now);
    return ms === null ? null : msg('phase.for', { duration: elapsed(ms) });
  };
  const lasting = duration(state.phaseSince);
  switch (state.phase) {
    case 'ended': {
      const end = state.end;
      if (!end) {
        const code = state.container.exitCode;
        return { phase: 'ended', text: code === null ? msg('phase.ended') : msg('phase.exited', { code }), tone: 'muted', duration: null, kind: 'exited' };
      }
      const tone: PhaseTone = QUIET_ENDS.has(end.kind) ? 'muted' : SCHEDULER_ENDS.has(end.kind) ? 'warn' : 'danger';
      return { phase: 'ended', text: msg(`end.${end.kind}`, { code: end.code ?? '?' }), tone, duration: null, kind: end.kind };
    }
    case 'queued':
      return { phase: 'queued', text: queuedText(state), tone: 'busy', duration: lasting, kind: state.queue?.reason ?? 'queued' };
    case 'ready':
      if (state.problem === 'boot-failed') return { phase: 'ready', text: msg('phase.problem.boot-failed'), tone: 'danger', duration: lasting, kind: 'boot-failed' };
      if (state.problem === 'engine-ended') return { phase: 'ready', text: msg('phase.problem.engine-ended'), tone: 'danger', duration: lasting, kind: 'engine-ended' };
      return { phase: 'ready', text: msg('phase.ready'), tone: 'ok', duration: lasting, kind: 'ready' };
    case 'booting':
      if (state.problem === 'boot-errors') return { phase: 'booting', text: msg('phase.problem.boot-errors'), tone: 'danger', duration: lasting, kind: 'boot-errors' };
      if (state.problem === 'boot-slow') return { phase: 'booting', text: msg('phase.problem.boot-slow'), tone: 'warn', duration: lasting, kind: 'boot-slow' };
      return { phase: 'booting', text: msg('phase.booting'), tone: 'busy', duration: lasting, kind: 'booting' };
    case 'training':
      return { phase: 'training', text: msg('phase.training'), tone: 'ok', duration: duration(state.engineSince ?? state.phaseSince), kind: state.engineStatus ?? 'training' };
    case 'unreachable':
      return { phase: 'unreachable', text: msg('phase.unreachable'), tone: 'danger', duration: lasting, kind: 'unreachable' };
    default:
      return { phase: state.phase, text: msg(`phase.${state.phase}`), tone: state.phase === 'not-started' ? 'muted' : 'busy', duration: lasting, kind: state.phase };
  }
}

/** True while something of the server may run (Stop and the dashboard make sense). */
export function isLive(state: ServerState): boolean {
  return state.phase !== 'ended' && state.phase !== 'queued' && state.phase !== 'not-started';
}
