export { t, errorTitle, errorHelp, getLocale, setLocale, languages, isMessageKey, systemLanguage, effectiveLanguage } from './locale.svelte';
export type { MessageKey, Params } from './locale.svelte';
