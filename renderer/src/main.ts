import { mount } from 'svelte';
import { config } from 'zod';
import App from './App.svelte';
import { retryFailedStylesheets } from './lib/stylesheet-retry';
import { languageHint, loadLocale, setLocale } from './lib/i18n';
import { loadPage, pageToOpen } from './lib/pages';
import './app.css';

// Our CSP forbids eval. Zod would otherwise probe `new Function` on first parse, which the
// browser reports as a CSP violation; jitless mode skips the probe and the compiled fast path.
config({ jitless: true });

retryFailedStylesheets();

const target = document.getElementById('app');
if (!target) throw new Error('index.html must contain <div id="app">');

// The shell's strings and the first page (its code and its strings) are chunks of their own: fetch them
// at once, so the first paint is the whole page in its language. Asking for the language first makes the
// page's strings come in that language. A page that fails to load here is tried again by App.svelte.
const language = languageHint();
const firstPage = pageToOpen();
setLocale(language);
await Promise.all([loadLocale(language), firstPage === null ? undefined : loadPage(firstPage).catch(() => undefined)]);
setLocale(language);

export default mount(App, { target });
