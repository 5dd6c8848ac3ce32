import type { DiagnosticSay, DiagnosticStage } from '../../../../electron/shared/schemas-servers';
import { isMessageKey, t, type MessageKey } from '../../lib/i18n';

/**
 * A connection-test stage in the user's language, from the facts the backend sends (issue 32; the
 * doctor's `sayText` pattern): `diag.say.<key>` for what was seen, `diag.sayFix.<key>` for the fix.
 * Null for a case without words here: the view shows the backend's English then, marked lang="en".
 */
export function stageText(stage: Pick<DiagnosticStage, 'say'>): string | null {
  return worded(stage.say, 'diag.say');
}

/** The fix in the user's language, with the login methods that were not tried (`notTried` codes) after it. */
export function stageFixText(stage: Pick<DiagnosticStage, 'sayFix'>): string | null {
  const fix = worded(stage.sayFix, 'diag.sayFix');
  if (fix === null) return null;
  const codes = String(stage.sayFix?.params.notTried ?? '').split(',').filter((code) => isMessageKey(`diag.notTried.${code}`));
  if (codes.length === 0) return fix;
  return `${fix} ${t('diag.notTried', { list: codes.map((code) => t(`diag.notTried.${code}` as MessageKey)).join('; ') })}`;
}

/** A program's own output the worded text quotes (`said`): shown verbatim after it; null when none. */
export function stageSaid(stage: Pick<DiagnosticStage, 'say'>): string | null {
  const said = stage.say?.params.said;
  return typeof said === 'string' && said !== '' ? said : null;
}

function worded(say: DiagnosticSay | undefined, prefix: 'diag.say' | 'diag.sayFix'): string | null {
  if (!say) return null;
  const key = `${prefix}.${say.key}`;
  return isMessageKey(key) ? t(key, say.params) : null;
}
