// Unmounts rendered components after each test (testing-library's vitest integration).
import '@testing-library/svelte/vitest';
import { afterEach, beforeEach } from 'vitest';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';

// The locale and the API are module-level singletons: reset them so tests cannot leak into
// each other through a language switch or a leftover fake.
beforeEach(() => {
  setLocale('en');
});

afterEach(() => {
  setApiForTests(null);
  delete window.api;
});
