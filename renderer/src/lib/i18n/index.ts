export { t, errorTitle, errorHelp, getLocale, setLocale, languages, isMessageKey } from './locale.svelte';
export type { MessageKey, Params } from './locale.svelte';
