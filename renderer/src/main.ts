import { mount } from 'svelte';
import { config } from 'zod';
import App from './App.svelte';
import { languageHint, loadLocale, setLocale } from './lib/i18n';
import { loadPage, pageToOpen } from './lib/pages';
import './app.css';

// Our CSP forbids eval. Zod would otherwise probe `new Function` on first parse, which the
// browser reports as a CSP violation; jitless mode skips the probe and the compiled fast path.
config({ jitless: true });

const target = document.getElementById('app');
if (!target) throw new Error('index.html must contain <div id="app">');

// The language and the first page are chunks of their own: fetch both at once, so the first paint
// is the whole page in its language. A page that fails to load here is tried again by App.svelte.
const language = languageHint();
await Promise.all([loadLocale(language), loadPage(pageToOpen()).catch(() => undefined)]);
setLocale(language);

export default mount(App, { target });
