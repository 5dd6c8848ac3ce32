import { act, cleanup, configure, setup } from '@testing-library/svelte';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { loadRegisteredChunks } from '../../renderer/src/lib/chunks';
import { loadAllTopics, setLocale } from '../../renderer/src/lib/i18n';
import { clearWizardDrafts } from '../../renderer/src/lib/state/wizard-drafts.svelte';

// Strings (by topic), pages and parts of pages are chunks fetched on demand (lib/i18n/topics.ts, lib/chunks.ts):
// have every topic in both languages, and the pages and parts this test file's imports can show, before its tests run
// (hooks run after the file is imported), so a test switches language and opens pages and dialogs at once,
// as the app does once they have arrived. Generous: the first file of a run compiles every page.
//
// The project does not isolate files (vitest.config.ts): a worker evaluates each module once for all its files. So
// the first file of a worker imports every table of chunks, and every lazily fetched module is evaluated before any
// test (the chart library is fetched only where a canvas draws, never in jsdom): an import still under way when a file ends fails with the file's environment, and the
// worker would keep that failure for every later file.
beforeAll(async () => {
  await Promise.all([import('../../renderer/src/lib/pages'), import('../../renderer/src/lib/lazy-parts.svelte')]);
  await Promise.all([loadAllTopics(), loadRegisteredChunks()]);
}, 120_000);

// findBy…/waitFor give up after 1 s by default: on a loaded two-core machine a render can take longer. A wait for
// what must appear, not a speed test (speed is measured by `npm run bench`).
configure({ asyncUtilTimeout: 10_000 });

// The locale, the API and the wizard's drafts are module-level singletons: reset them so tests cannot leak into
// each other through a language switch or a leftover fake.
beforeEach(async () => {
  // Each App opens as for a returning user, on Servers (App reads the address when it is created): a fake API with
  // nothing in it would otherwise be a new user, who lands on the wizard (test/renderer/landing.spec.ts).
  window.location.hash = '#page=servers';
  // What '@testing-library/svelte/vitest' registers, here: that module's hook would be registered by the first file
  // only, as its import is evaluated once per worker (the project does not isolate files). Unmounts each test's renders.
  await setup();
  setLocale('en');
  // The wizard's typed drafts outlive its page on purpose (issue 32): not from one test into the next.
  clearWizardDrafts();
});

afterEach(async () => {
  await act();
  cleanup();
  setApiForTests(null);
  delete window.api;
});
