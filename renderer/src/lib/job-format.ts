import type { JobViewData } from '../../../electron/shared/schemas-jobs';
import { elapsed, say, since } from './durations';
import { getLocale, isMessageKey, t, type MessageKey } from './i18n';

/** How a run is named in the history, headings and accessible names: its label, else kind and id. */
export function jobName(job: Pick<JobViewData, 'id' | 'kind' | 'label'>): string {
  return job.label ?? t('jobs.unnamed', { kind: t(`jobs.kind.${job.kind}` as MessageKey), id: job.id });
}

export function kindText(kind: JobViewData['kind']): string {
  return t(`jobs.kind.${kind}` as MessageKey);
}

export function stateText(state: JobViewData['state']): string {
  return t(`jobs.state.${state}` as MessageKey);
}

/**
 * A symbol per state beside its word, so the badge does not rely on colour (the word carries the
 * meaning; the symbol is hidden from screen readers).
 */
export const stateSymbol: Record<JobViewData['state'], string> = {
  starting: '…',
  running: '▶',
  cancelling: '■',
  succeeded: '✓',
  failed: '✗',
  cancelled: '■',
};

/** "exit code 1", "signal SIGKILL", or null while the process has not ended. */
export function exitText(job: Pick<JobViewData, 'exitCode' | 'signal'>): string | null {
  if (job.exitCode !== null && job.signal) return t('jobs.exit.codeAndSignal', { code: job.exitCode, signal: job.signal });
  if (job.signal) return t('jobs.exit.signal', { signal: job.signal });
  if (job.exitCode !== null) return t('jobs.exit.code', { code: job.exitCode });
  return null;
}

/** The run's duration; a run still going counts from its start to `now`. Null when unknown. */
export function durationText(job: Pick<JobViewData, 'durationMs' | 'startedAt' | 'endedAt'>, now: number): string | null {
  if (job.durationMs !== null) return say(elapsed(job.durationMs));
  if (job.endedAt !== null) return null;
  const running = since(job.startedAt, now);
  return running === null ? null : t('jobs.summary.runningFor', { duration: say(elapsed(running)) });
}

/** The start time in the user's language, to the second (runs a few seconds apart must differ). */
export function startedText(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return at.toLocaleString(getLocale(), { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A reward as people compare them: up to four decimals, no float noise (0.30000000000000004 → 0.3). */
export function rewardText(reward: number | null | undefined): string | null {
  if (reward === null || reward === undefined) return null;
  return reward.toLocaleString(getLocale(), { maximumFractionDigits: 4 });
}

/** The cause of a failed write in the user's language (the backend sends the errno code only). */
export function writeFailureText(code: string): string {
  const known = ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM'];
  return known.includes(code) ? t(`writeFailure.${code}` as MessageKey) : t('writeFailure.other', { code });
}

/** "Not in the saved history yet" for a run whose record could not be written; null once it is on disk. */
export function notSavedText(job: Pick<JobViewData, 'notSaved'>): string | null {
  if (!job.notSaved) return null;
  return t('jobs.notSaved.detail', { file: job.notSaved.file, cause: writeFailureText(job.notSaved.code) });
}

/**
 * A failed run's detail in the user's language, from the facts the backend sends as data
 * (`failure.params.reason` and its values); null for a record without them (written by an older
 * version), whose English message is then shown as it is.
 */
export function failureText(failure: NonNullable<JobViewData['failure']>): string | null {
  const params = failure.params;
  const key = `jobs.failure.${String(params?.reason)}`;
  if (!params || !isMessageKey(key)) return null;
  const ending = params.signal !== undefined ? t('jobs.exit.signal', { signal: params.signal }) : t('jobs.exit.code', { code: params.exitCode ?? '?' });
  return t(key, { ...params, ending });
}
