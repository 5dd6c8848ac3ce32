import type { ErrorCode } from '../../../../electron/shared/errors';
import type { Language } from '../../../../electron/shared/schemas';
import { en, type MessageKey } from './en';
import { zhCN } from './zh-CN';

export type { MessageKey };
export type Params = Record<string, string | number>;

// Compile-time guard: adding an error code to electron/shared/errors.ts without a title here fails
// the type check rather than showing "Error X." to users.
type MissingErrorTitles = Exclude<`errors.${ErrorCode}`, MessageKey>;
const everyErrorCodeHasATitle: [MissingErrorTitles] extends [never] ? true : MissingErrorTitles = true;
void everyErrorCodeHasATitle;
// The same for the explanation shown under the title (backend details stay English, so this is
// what a zh-CN user reads to understand the error).
type MissingErrorHelp = Exclude<`errorHelp.${ErrorCode}`, MessageKey>;
const everyErrorCodeHasHelp: [MissingErrorHelp] extends [never] ? true : MissingErrorHelp = true;
void everyErrorCodeHasHelp;

const dictionaries: Record<Language, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };

export const languages: readonly Language[] = ['en', 'zh-CN'];

/**
 * The current language lives in one module-level rune, so every `t()` call made while rendering
 * reads it and re-renders when it changes. It starts as English and is set from backend settings
 * on start; the backend, not localStorage, is the source of truth.
 */
const state = $state<{ language: Language }>({ language: 'en' });

export function getLocale(): Language {
  return state.language;
}

export function setLocale(language: Language): void {
  state.language = language;
  // Lets screen readers and the browser's font fallback pick Chinese glyphs for zh-CN.
  if (typeof document !== 'undefined') document.documentElement.lang = language;
}

/**
 * The language of the OS or browser (Electron's navigator.language follows the OS locale): any
 * Chinese tag (zh, zh-CN, zh-Hans-…, zh-TW) picks zh-CN, the only Chinese we have; all else English.
 */
export function systemLanguage(tags: readonly string[] = browserLanguageTags()): Language {
  return tags.some((tag) => tag.toLowerCase().startsWith('zh')) ? 'zh-CN' : 'en';
}

function browserLanguageTags(): string[] {
  if (typeof navigator === 'undefined') return [];
  // The first preference decides: a user with ['en-US', 'zh-CN'] reads English first.
  const first = navigator.languages?.[0] ?? navigator.language;
  return first ? [first] : [];
}

/**
 * The language to show for the backend's settings: the stored one once the user chose it (or it
 * is not the default), the system's on a first launch.
 */
export function effectiveLanguage(settings: { language: Language; languageChosen?: boolean | undefined }): Language {
  if (settings.languageChosen || settings.language !== 'en') return settings.language;
  return systemLanguage();
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.prototype.hasOwnProperty.call(en, key);
}

/** Translates `key` into the current language, replacing `{name}` with `params.name`. */
export function t(key: MessageKey, params?: Params): string {
  const template = dictionaries[state.language][key];
  if (!params) return template;
  // A placeholder without a value stays visible as `{name}`, which makes the omission obvious.
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

/**
 * The short, actionable sentence for a backend error code. Codes arrive as plain strings at run
 * time (engine health carries any string), so an unknown code gets a neutral title naming it.
 */
export function errorTitle(code: ErrorCode | string, params?: Params): string {
  // A holder the backend names as data (PORT_IN_USE: 'app-dry-run') has words of its own.
  const refined = typeof params?.holder === 'string' ? `errors.${code}.${params.holder}` : null;
  if (refined && isMessageKey(refined)) return t(refined, params);
  const key = `errors.${code}`;
  return isMessageKey(key) ? t(key, params) : t('errors.unknown', { code });
}

/** The translated explanation of a backend error code; null for a code this version does not know. */
export function errorHelp(code: ErrorCode | string, params?: Params): string | null {
  const refined = typeof params?.holder === 'string' ? `errorHelp.${code}.${params.holder}` : null;
  if (refined && isMessageKey(refined)) return t(refined, params);
  const key = `errorHelp.${code}`;
  return isMessageKey(key) ? t(key) : null;
}
