// Unmounts rendered components after each test (testing-library's vitest integration).
import '@testing-library/svelte/vitest';
import { configure } from '@testing-library/svelte';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { loadRegisteredChunks } from '../../renderer/src/lib/chunks';
import { loadAllTopics, setLocale } from '../../renderer/src/lib/i18n';
import { clearWizardDrafts } from '../../renderer/src/lib/state/wizard-drafts.svelte';

// Strings (by topic), pages and parts of pages are chunks fetched on demand (lib/i18n/topics.ts, lib/chunks.ts):
// have every topic in both languages, and the pages and parts this test file's imports can show, before its tests run
// (hooks run after the file is imported), so a test switches language and opens pages and dialogs at once,
// as the app does once they have arrived. Generous: the first file of a run compiles every page.
beforeAll(async () => {
  await Promise.all([loadAllTopics(), loadRegisteredChunks()]);
}, 120_000);

// findBy…/waitFor give up after 1 s by default: on a loaded two-core machine a render can take longer. A wait for
// what must appear, not a speed test (speed is measured by `npm run bench`).
configure({ asyncUtilTimeout: 10_000 });

// The App opens as for a returning user, on Servers (read once when page-in-url.ts loads, after
// this file): a fake API with nothing in it would otherwise be a new user, who lands on the wizard
// (that rule has its own spec, test/renderer/landing.spec.ts).
window.location.hash = '#page=servers';

// The locale, the API and the wizard's drafts are module-level singletons: reset them so tests cannot leak into
// each other through a language switch or a leftover fake.
beforeEach(() => {
  setLocale('en');
  // The wizard's typed drafts outlive its page on purpose (issue 32): not from one test into the next.
  clearWizardDrafts();
});

afterEach(() => {
  setApiForTests(null);
  delete window.api;
});
