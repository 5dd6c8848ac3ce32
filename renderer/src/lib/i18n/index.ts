export { t, errorTitle, errorHelp, getLocale, setLocale, languages, isMessageKey, systemLanguage, effectiveLanguage, loadLocale, languageHint, loadTopics, hasTopics, loadAllTopics, wordsPending } from './locale.svelte';
export type { MessageKey, Params } from './locale.svelte';
export type { FirstUseTopic, Topic } from './topics';
