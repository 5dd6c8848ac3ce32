export { t, errorTitle, errorHelp, getLocale, setLocale, languages, isMessageKey, systemLanguage, effectiveLanguage, loadLocale, languageHint } from './locale.svelte';
export type { MessageKey, Params } from './locale.svelte';
