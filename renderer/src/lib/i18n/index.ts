export { t, errorTitle, errorHelp, getLocale, setLocale, languages, isMessageKey, systemLanguage, effectiveLanguage, loadLocale, languageHint, loadTopics, hasTopics, loadAllTopics } from './locale.svelte';
export type { MessageKey, Params } from './locale.svelte';
export type { Topic } from './topics';
