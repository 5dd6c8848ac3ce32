import type { ErrorCode } from '../../../../electron/shared/errors';
import type { Language } from '../../../../electron/shared/schemas';
import type { MessageKey } from './en';

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

type Dictionary = Record<MessageKey, string>;

/**
 * Each language is a chunk of its own, fetched when it is first needed: the page loads only the
 * language it shows (main.ts awaits it before mounting), and a switch fetches the other one once.
 * Each dictionary file still gathers its topic files (en-*.ts, zh-CN-*.ts) by static import.
 */
const loaders: Record<Language, () => Promise<Dictionary>> = {
  en: () => import('./en').then((module) => module.en),
  'zh-CN': () => import('./zh-CN').then((module) => module.zhCN),
};
const dictionaries: Partial<Record<Language, Dictionary>> = {};
// Plain records, not runes: `t()` re-renders through `state.language`, set once a dictionary is here.
const loading: Partial<Record<Language, Promise<void>>> = {};

export const languages: readonly Language[] = ['en', 'zh-CN'];

/**
 * The current language lives in one module-level rune, so every `t()` call made while rendering
 * reads it and re-renders when it changes. It starts as the language shown last time (`languageHint`)
 * and is set from backend settings on start; the backend, not localStorage, is the source of truth.
 */
const state = $state<{ language: Language }>({ language: 'en' });
/** The language asked for last: a slower fetch of an earlier choice must not win. */
let wanted: Language = 'en';

const LANGUAGE_HINT_KEY = 'agentswarm.language';

/**
 * The language the app showed last time, so the first paint fetches that dictionary rather than
 * English and then the user's (the settings that arrive next still decide).
 */
export function languageHint(): Language {
  try {
    const remembered = globalThis.localStorage?.getItem(LANGUAGE_HINT_KEY);
    return languages.find((language) => language === remembered) ?? 'en';
  } catch {
    return 'en';
  }
}

/** Fetches a language's dictionary once (a failed fetch is tried again next time); resolves when it can be shown. */
export function loadLocale(language: Language): Promise<void> {
  if (dictionaries[language]) return Promise.resolve();
  let pending = loading[language];
  if (!pending) {
    pending = loaders[language]().then(
      (dictionary) => {
        dictionaries[language] = dictionary;
      },
      (error: unknown) => {
        delete loading[language];
        throw error;
      },
    );
    loading[language] = pending;
  }
  return pending;
}

export function getLocale(): Language {
  return state.language;
}

/** Shows `language` now when its dictionary is here, else as soon as it arrives (the current one stays until then). */
export function setLocale(language: Language): void {
  wanted = language;
  if (dictionaries[language]) {
    show(language);
    return;
  }
  loadLocale(language).then(
    () => {
      if (wanted === language) show(language);
    },
    (error: unknown) => console.error(`language ${language} did not load`, error),
  );
}

function show(language: Language): void {
  state.language = language;
  // Lets screen readers and the browser's font fallback pick Chinese glyphs for zh-CN.
  if (typeof document !== 'undefined') document.documentElement.lang = language;
  try {
    // English is what a page without a hint loads: only another language is remembered.
    if (language === 'en') globalThis.localStorage?.removeItem(LANGUAGE_HINT_KEY);
    else globalThis.localStorage?.setItem(LANGUAGE_HINT_KEY, language);
  } catch {
    // Storage blocked by policy: the next start shows English first, as before.
  }
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

/** The dictionary being shown (before any has arrived: none, and `t()` shows keys). */
function shownDictionary(): Dictionary | undefined {
  return dictionaries[state.language] ?? dictionaries.en ?? dictionaries['zh-CN'];
}

/** Every language has the same keys (zh-CN.ts is typed by en.ts), so any loaded dictionary answers. */
export function isMessageKey(key: string): key is MessageKey {
  const dictionary = shownDictionary();
  return dictionary !== undefined && Object.prototype.hasOwnProperty.call(dictionary, key);
}

/** Translates `key` into the current language, replacing `{name}` with `params.name`. */
export function t(key: MessageKey, params?: Params): string {
  // A key before any dictionary arrived shows as itself (main.ts loads one before mounting).
  const template = shownDictionary()?.[key] ?? key;
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
