// Unmounts rendered components after each test (testing-library's vitest integration).
import '@testing-library/svelte/vitest';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { loadRegisteredChunks } from '../../renderer/src/lib/chunks';
import { languages, loadLocale, setLocale } from '../../renderer/src/lib/i18n';

// Languages, pages and parts of pages are chunks fetched on demand (lib/i18n/locale.svelte.ts, lib/chunks.ts):
// have both languages, and the pages and parts this test file's imports can show, before its tests run
// (hooks run after the file is imported), so a test switches language and opens pages and dialogs at once,
// as the app does once they have arrived. Generous: the first file of a run compiles every page.
beforeAll(async () => {
  await Promise.all([...languages.map((language) => loadLocale(language)), loadRegisteredChunks()]);
}, 120_000);

// The locale and the API are module-level singletons: reset them so tests cannot leak into
// each other through a language switch or a leftover fake.
beforeEach(() => {
  setLocale('en');
});

afterEach(() => {
  setApiForTests(null);
  delete window.api;
});
