import { SLURM_ACTIVE_STATES, type SlurmJobView } from '../../../../../electron/shared/schemas-slurm';
import { say } from '../../../lib/durations';
import { isMessageKey, t } from '../../../lib/i18n';
import { queueReasonMessage } from '../../../lib/server-words';

/** Slurm's states the app has words for; any other is shown as Slurm spells it. */
export function slurmStateText(state: string): string {
  const key = `slurm.state.${state}`;
  return isMessageKey(key) ? t(key) : t('slurm.state.other', { state });
}

/** Why a job waits, in the words every surface uses (server-words.ts). */
export function slurmReasonText(reason: string | null): string {
  return say(queueReasonMessage(reason));
}

/** Seconds left before the limit at `now`, counted down from when the backend read it; null: no limit or not running. */
export function timeLeftAt(job: Pick<SlurmJobView, 'timeLeftSeconds' | 'readAt'>, now: number): number | null {
  if (job.timeLeftSeconds === null) return null;
  const readAt = Date.parse(job.readAt);
  const gone = Number.isNaN(readAt) ? 0 : Math.max(0, Math.floor((now - readAt) / 1000));
  return Math.max(0, job.timeLeftSeconds - gone);
}

/** `1:02:03`, `12:05`, or with days `2-03:04:05`: Slurm's own way of writing times. */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (days > 0) return `${days}-${two(h)}:${two(m)}:${two(sec)}`;
  return h > 0 ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

/** Queued or running: a job that can still be cancelled. */
export function isActiveJob(state: string): boolean {
  return (SLURM_ACTIVE_STATES as readonly string[]).includes(state);
}

/** Ended badly: its exit code and output tail are shown. */
export function endedBadly(job: Pick<SlurmJobView, 'state' | 'outputTail'>): boolean {
  return !isActiveJob(job.state) && job.state !== 'COMPLETED' && job.state !== 'CANCELLED';
}
