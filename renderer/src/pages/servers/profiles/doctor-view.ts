import type { DoctorCheck, DoctorReport, PullView } from '../../../../../electron/shared/schemas-profiles';
import { getLocale, isMessageKey, t, wordsPending, type MessageKey } from '../../../lib/i18n';
import { elapsed, say, since } from '../../../lib/durations';

/** A shape per status, so the status reads without colour (and the word next to it says it too). */
export const STATUS_ICON: Record<DoctorCheck['status'] | DoctorReport['verdict'], string> = {
  pass: '✓',
  warn: '!',
  fail: '✕',
  skip: '–',
};

export function countByStatus(report: DoctorReport): Record<DoctorCheck['status'], number> {
  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const check of report.checks) counts[check.status] += 1;
  return counts;
}

/**
 * A count in words with the language's plural rule (issue 32: "1 warnings"): English says
 * "1 warning" and "2 warnings"; Chinese has one form (`.one` and `.other` say the same).
 */
export function countWord(base: 'doctor.count.pass' | 'doctor.count.warn' | 'doctor.count.fail' | 'doctor.count.skip' | 'doctor.count.allPassed' | 'diag.count.allPassed' | 'diag.count.passed', n: number): string {
  const form = new Intl.PluralRules(getLocale()).select(n) === 'one' ? 'one' : 'other';
  return t(`${base}.${form}` as MessageKey, { n });
}

/** "12 checks passed" when all did; else the counts that are not zero: "9 passed · 1 warning · 1 failed". */
export function countsLine(counts: Record<DoctorCheck['status'], number>): string {
  const total = counts.pass + counts.warn + counts.fail + counts.skip;
  if (counts.pass === total) return countWord('doctor.count.allPassed', total);
  return (['pass', 'warn', 'fail', 'skip'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => countWord(`doctor.count.${status}`, counts[status]))
    .join(' · ');
}

/** "checked just now", "checked 2 min ago", "checked 3 h ago", then the time itself. */
export function checkedAgo(ranAt: string, now: number): string {
  const ms = since(ranAt, now);
  if (ms === null) return t('doctor.ranLong', { time: ranAt });
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return t('doctor.ranJustNow');
  if (minutes < 60) return t('doctor.ranMinutes', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t('doctor.ranHours', { n: hours });
  return t('doctor.ranLong', { time: new Date(ranAt).toLocaleString(getLocale()) });
}

const MB = 1024 * 1024;

/** Megabytes with one decimal below 10 MB, whole ones above (the bar moves in visible steps). */
export function megabytes(bytes: number): string {
  const mb = bytes / MB;
  return mb < 10 ? mb.toFixed(1) : String(Math.round(mb));
}

/** The pull's words next to its bar: percent, layers, megabytes and time left, each only when known. */
export function pullFacts(pull: PullView): string[] {
  const facts: string[] = [];
  facts.push(pull.percent === null ? t('pull.percentUnknown') : t('pull.percent', { percent: Math.floor(pull.percent) }));
  if (pull.layersTotal > 0) facts.push(t('pull.layers', { done: pull.layersDone, total: pull.layersTotal }));
  if (pull.bytesTotal > 0) facts.push(t('pull.bytes', { done: megabytes(pull.bytesDone), total: megabytes(pull.bytesTotal) }));
  if (pull.etaSeconds !== null && pull.etaSeconds > 0 && !isEnded(pull)) facts.push(t('pull.eta', { time: say(elapsed(pull.etaSeconds * 1000)) }));
  return facts;
}

export function isEnded(pull: PullView): boolean {
  return pull.phase === 'done' || pull.phase === 'failed' || pull.phase === 'cancelled';
}

/**
 * A check's detail in the user's language from the facts the backend sends (`check.say`); null for
 * a case the renderer has no words for yet (its English `detail` is shown then, marked lang="en"); '' while
 * the findings' words are on their way (a topic fetched with the first report shown: lib/i18n/topics.ts).
 */
export function sayText(check: Pick<DoctorCheck, 'say'>): string | null {
  return worded(check, 'doctor.say');
}

/** A warning's or failure's fix in the user's language (`doctor.sayFix.<key>`); null when there are no words for it, '' while they come. */
export function sayFixText(check: Pick<DoctorCheck, 'say'>): string | null {
  return worded(check, 'doctor.sayFix');
}

/** What a program printed that the worded detail quotes (`said`), shown verbatim after it; null when none. */
export function saidText(check: Pick<DoctorCheck, 'say'>): string | null {
  const said = check.say?.params.said;
  return typeof said === 'string' && said !== '' ? said : null;
}

function worded(check: Pick<DoctorCheck, 'say'>, prefix: 'doctor.say' | 'doctor.sayFix'): string | null {
  if (!check.say) return null;
  const key = `${prefix}.${check.say.key}`;
  // Asking fetches the words the first time; until they are here the finding reads as nothing, not as English.
  if (!isMessageKey(key)) return wordsPending('doctor-findings') ? '' : null;
  const params = { ...check.say.params };
  // '' is this computer, worded here; a server keeps its own label.
  if (params.host === '') params.host = t('doctor.say.host.local');
  return t(key, params);
}
