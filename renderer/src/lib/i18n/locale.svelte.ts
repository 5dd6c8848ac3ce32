import type { ErrorCode } from '../../../../electron/shared/errors';
import type { Language } from '../../../../electron/shared/schemas';
import type { MessageKey } from './en';
import { allTopics, firstUseTopicOf, topicLoaders, type FirstUseTopic, type Topic } from './topics';

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

type Strings = Record<string, string>;

/**
 * Strings arrive by topic (topics.ts): `shell` before the first paint (main.ts), a page's topics with
 * the page (lib/pages.ts awaits them before it shows the page), each in the language shown. Each
 * language's dictionary is the topics that have arrived, merged.
 */
const dictionaries: Record<Language, Strings> = { en: {}, 'zh-CN': {} };
// Plain records, not runes: `t()` re-renders through `state`, set once a topic is here.
const arrived: Record<Language, Set<Topic>> = { en: new Set(), 'zh-CN': new Set() };
const loading: Partial<Record<string, Promise<void>>> = {};
/** Every topic the app has asked for: a language switch loads all of them in the new language before it shows. */
const inUse: Topic[] = ['shell'];

export const languages: readonly Language[] = ['en', 'zh-CN'];

/**
 * The current language lives in one module-level rune, so every `t()` call made while rendering
 * reads it and re-renders when it changes. It starts as the language shown last time (`languageHint`)
 * and is set from backend settings on start; the backend, not localStorage, is the source of truth.
 * `arrivals` counts topics that arrived, so a string read before its topic re-renders once it is here.
 */
const state = $state<{ language: Language; arrivals: number }>({ language: 'en', arrivals: 0 });
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

/** Fetches one topic in one language once (a failed fetch is tried again next time). */
function loadTopic(language: Language, topic: Topic): Promise<void> {
  if (arrived[language].has(topic)) return Promise.resolve();
  const id = `${language}:${topic}`;
  let pending = loading[id];
  if (!pending) {
    pending = topicLoaders[language][topic]().then(
      (strings) => {
        Object.assign(dictionaries[language], strings);
        arrived[language].add(topic);
        delete loading[id];
        state.arrivals += 1;
      },
      (error: unknown) => {
        delete loading[id];
        throw error;
      },
    );
    loading[id] = pending;
  }
  return pending;
}

function useTopics(topics: readonly Topic[]): void {
  for (const topic of topics) if (!inUse.includes(topic)) inUse.push(topic);
}

function missingTopics(language: Language): Topic[] {
  return inUse.filter((topic) => !arrived[language].has(topic));
}

/** Resolves once every topic in use is here in `language`, including topics asked for while it waited. */
async function topicsInUse(language: Language): Promise<void> {
  for (let missing = missingTopics(language); missing.length > 0; missing = missingTopics(language)) {
    await Promise.all(missing.map((topic) => loadTopic(language, topic)));
  }
}

/**
 * Fetches a language's strings: the shell's and those of every topic in use (before the first paint, the
 * shell's); resolves when it can be shown. A failed fetch is tried again next time.
 */
export function loadLocale(language: Language): Promise<void> {
  return topicsInUse(language);
}

/**
 * Fetches `topics` in the language shown and in one being switched to, and keeps them in use, so a
 * later language switch brings them too. Resolves once they can be shown; a page waits for this before
 * it renders, so `t()` never shows one of its keys.
 */
export function loadTopics(topics: readonly Topic[]): Promise<void> {
  useTopics(topics);
  // The language shown counts once it can be shown at all (before main.ts's first `setLocale`, only the one asked for).
  const targets = arrived[state.language].has('shell') && state.language !== wanted ? [wanted, state.language] : [wanted];
  return Promise.all(targets.map((language) => topicsInUse(language))).then(() => undefined);
}

/** Whether `topics` are here in the language shown (a page shown from cache still checks: a switch may be under way). */
export function hasTopics(topics: readonly Topic[]): boolean {
  return topics.every((topic) => arrived[state.language].has(topic));
}

/** Every topic in every language (tests render any component at once, in either language). */
export async function loadAllTopics(): Promise<void> {
  useTopics(allTopics);
  await Promise.all(languages.map((language) => topicsInUse(language)));
}

export function getLocale(): Language {
  return state.language;
}

/** Shows `language` now when its dictionary is here, else as soon as it arrives (the current one stays until then). */
export function setLocale(language: Language): void {
  wanted = language;
  if (missingTopics(language).length === 0) {
    show(language);
    return;
  }
  topicsInUse(language).then(
    () => {
      // Checked again: a page may have asked for a topic after the last fetch settled (it is loading in both).
      if (wanted !== language) return;
      if (missingTopics(language).length === 0) show(language);
      else setLocale(language);
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

/**
 * The words for `key`: in the language shown; else (its topic not here yet in that language, which a page's
 * loader prevents) in the other, so a user never reads a key; re-read when a topic arrives.
 */
function lookUp(key: string): string | undefined {
  void state.arrivals;
  const own = dictionaries[state.language];
  if (Object.prototype.hasOwnProperty.call(own, key)) return own[key];
  const firstUse = firstUseTopicOf(key);
  if (firstUse) fetchOnFirstUse(firstUse);
  const other = languages.find((language) => language !== state.language && Object.prototype.hasOwnProperty.call(dictionaries[language], key));
  return other ? dictionaries[other][key] : undefined;
}

/**
 * Whether a first-use topic's words (topics.ts FIRST_USE_TOPICS: the error codes', a doctor report's) are still
 * on their way, in no language here yet; asking fetches them. Until they are here, an error's title and help
 * and a finding read as nothing (never as a code or a key), then as words (`t()` re-reads on arrival). Once
 * fetched the topic is in use, so a language switch brings it in the new language. A failed fetch is tried
 * again on the next read.
 */
export function wordsPending(topic: FirstUseTopic): boolean {
  void state.arrivals;
  if (arrived[state.language].has(topic)) return false;
  fetchOnFirstUse(topic);
  return !arrived.en.has(topic) && !arrived['zh-CN'].has(topic);
}

/** After a failed fetch (the backend was away), the words' readers read again this much later, which fetches again. */
const FIRST_USE_RETRY_MS = 3000;

function fetchOnFirstUse(topic: FirstUseTopic): void {
  useTopics([topic]);
  void topicsInUse(state.language).catch((error: unknown) => {
    console.error(`the ${topic} words did not load`, error);
    // Nothing else would re-render what shows nothing for now: a blank error title would stay blank.
    setTimeout(() => (state.arrivals += 1), FIRST_USE_RETRY_MS);
  });
}

/**
 * Every language has the same keys (zh-CN.ts is typed by en.ts), so any loaded topic answers. A key of a
 * topic not loaded counts as unknown: code that asks must be in a page or part that loads that topic (the
 * hygiene test test/unit/build/i18n-topics.spec.ts checks the keys each page's code names).
 */
export function isMessageKey(key: string): key is MessageKey {
  return lookUp(key) !== undefined;
}

/** Translates `key` into the current language, replacing `{name}` with `params.name`. */
export function t(key: MessageKey, params?: Params): string {
  // A key before its topic arrived shows as itself (main.ts loads the shell's before mounting, pages load
  // theirs); a first-use topic's word on its way shows as nothing.
  const firstUse = firstUseTopicOf(key);
  const template = lookUp(key) ?? (firstUse && wordsPending(firstUse) ? '' : key);
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
  if (wordsPending('errors')) return '';
  // A holder the backend names as data (PORT_IN_USE: 'app-dry-run') has words of its own.
  const refined = typeof params?.holder === 'string' ? `errors.${code}.${params.holder}` : null;
  if (refined && isMessageKey(refined)) return t(refined, params);
  const key = `errors.${code}`;
  return isMessageKey(key) ? t(key, params) : t('errors.unknown', { code });
}

/** The translated explanation of a backend error code; null for a code this version does not know. */
export function errorHelp(code: ErrorCode | string, params?: Params): string | null {
  if (wordsPending('errors')) return null;
  const refined = typeof params?.holder === 'string' ? `errorHelp.${code}.${params.holder}` : null;
  if (refined && isMessageKey(refined)) return t(refined, params);
  const key = `errorHelp.${code}`;
  return isMessageKey(key) ? t(key) : null;
}

/** Forgets every topic that arrived (tests that check a page brings its own strings start from the shell's alone). */
export function forgetStringsForTests(): void {
  for (const language of languages) {
    dictionaries[language] = {};
    arrived[language].clear();
  }
  for (const id of Object.keys(loading)) delete loading[id];
  inUse.splice(0, inUse.length, 'shell');
  state.arrivals += 1;
}
