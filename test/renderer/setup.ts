// Unmounts rendered components after each test (testing-library's vitest integration).
import '@testing-library/svelte/vitest';
import { configure } from '@testing-library/svelte';
import { afterEach, beforeEach } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';

// findBy…/waitFor give up after 1 s by default: on a loaded two-core machine a render can take longer. A wait for
// what must appear, not a speed test (speed is measured by `npm run bench`).
configure({ asyncUtilTimeout: 10_000 });

// The locale and the API are module-level singletons: reset them so tests cannot leak into
// each other through a language switch or a leftover fake.
beforeEach(() => {
  setLocale('en');
});

afterEach(() => {
  setApiForTests(null);
  delete window.api;
});
