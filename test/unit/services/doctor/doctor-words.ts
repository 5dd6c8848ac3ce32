import { expect } from 'vitest';
import type { DoctorCheck } from '../../../../electron/shared/schemas-profiles';
import { en } from '../../../../renderer/src/lib/i18n/en';
import { zhCN } from '../../../../renderer/src/lib/i18n/zh-CN';

/**
 * Issue 32: a finding reaches the renderer as data (`say`) with words for it in en and zh-CN: the
 * detail (`doctor.say.<key>`; absent only where the detail is another program's own error text,
 * `upstream`), and for a warning or failure the fix (`doctor.sayFix.<key>`), every placeholder filled
 * from the finding's params.
 */
export function expectWorded(check: DoctorCheck, upstream: readonly string[] = []): void {
  const where = `${check.id} (${check.status})`;
  expect(check.say, `${where}: no say`).toBeDefined();
  const dictionaries = { en: en as Record<string, string>, zhCN: zhCN as Record<string, string> };
  const keys = [`doctor.say.${check.say!.key}`, ...(check.status === 'warn' || check.status === 'fail' ? [`doctor.sayFix.${check.say!.key}`] : [])];
  for (const key of keys) {
    if (key.startsWith('doctor.say.') && upstream.includes(check.say!.key)) continue;
    for (const [language, dictionary] of Object.entries(dictionaries)) {
      const text = dictionary[key];
      expect(text, `${where}: ${language} ${key}`).toBeTypeOf('string');
      for (const [, name] of text!.matchAll(/\{(\w+)\}/g)) expect(Object.keys(check.say!.params), `${where}: ${key} {${name}}`).toContain(name);
    }
  }
}
