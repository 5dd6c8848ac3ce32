import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const root = import.meta.dirname;

/**
 * Limits that bound a hang, not speed (vitest's defaults: 5 s a test, 10 s a hook, 1 s for expect.poll). At load 24 on
 * our two cores a CI run beside other work failed 20 honest unit tests on the 5 s default (Python compiles, ESLint,
 * key decryption, ssh-keygen). Speed is measured by `npm run bench`, never by a timeout. Spread into each project:
 * inline projects do not inherit the root's test options.
 */
const patience = { testTimeout: 60_000, hookTimeout: 120_000 };
const pollPatience = { expect: { poll: { timeout: 15_000 } } };
/** Each file's CPU into the run's report when scripts/run-tests.mjs asks for it (test/support/file-cpu.ts). */
const fileCpu = 'test/support/file-cpu.ts';

/**
 * Five suites: `unit` (plain Node, Electron replaced by a labelled stand-in), `conformance` (the swarm protocol
 * suite against the in-process fake swarm server), `renderer` (Svelte
 * components in jsdom), `integration` (real dockerd, registry, sshd from test/testbed) and `e2e`
 * (Debian's Chromium against the browser host). The real `electron` module is never loaded: it
 * would try to download its binary.
 */
export default defineConfig({
  test: {
    // Two workers (our machines have two cores) for the suites that share nothing: unit,
    // conformance, renderer. Integration and e2e set fileParallelism: false, which puts each of
    // their files in vitest's sequential group: one file at a time, never beside another
    // integration or e2e file (the e2e suite serves out/renderer while the packaging and
    // `npm start` tests rebuild it, and the integration suites share one dockerd).
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias: { electron: resolve(root, 'test/stubs/electron.ts') } },
        test: {
          name: 'unit',
          ...patience,
          ...pollPatience,
          // One module graph per worker, not per file: importing it anew for each of 130 files was most of the suite's
          // time (at load 30: 1,220 s with per-file isolation, import 817 s; 359 s without, import 145 s). The unit
          // specs mock no modules and change no process-wide state; a spec that must is a renderer or integration spec.
          isolate: false,
          environment: 'node',
          setupFiles: [fileCpu],
          include: ['test/unit/**/*.spec.ts'],
          // electron-store imports `electron` itself: inlined, vite resolves that import through the
          // alias above; left to Node, it would load the real module (which tries to download Electron).
          server: { deps: { inline: ['electron-store'] } },
        },
      },
      {
        // The swarm protocol conformance suite (test/conformance/swarm-conformance.ts) against the in-process fake;
        // no test bed needed. Other implementations add a spec file calling defineSwarmConformance.
        test: {
          name: 'conformance',
          ...patience,
          ...pollPatience,
          environment: 'node',
          setupFiles: [fileCpu],
          include: ['test/conformance/**/*.spec.ts'],
        },
      },
      {
        plugins: [svelte()],
        resolve: { conditions: ['browser'] },
        test: {
          name: 'renderer',
          ...patience,
          ...pollPatience,
          environment: 'jsdom',
          // As in `unit`: one module graph per worker. Isolated, the 64 files cost 167 CPU s (each file a jsdom and
          // every page's modules evaluated anew); shared, 37 CPU s. Module-level state is reset per test in
          // test/renderer/setup.ts (locale, API, drafts, the address, testing-library's cleanup).
          isolate: false,
          include: ['test/renderer/**/*.spec.ts'],
          setupFiles: [fileCpu, 'test/renderer/setup.ts'],
        },
      },
      {
        resolve: { alias: { electron: resolve(root, 'test/stubs/electron.ts') } },
        test: {
          name: 'integration',
          ...pollPatience,
          environment: 'node',
          setupFiles: [fileCpu],
          include: ['test/integration/**/*.spec.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // One module graph for a run's files, as in `unit`: each file imported the app anew (about 5 s a file under
          // load; five e2e files took 41 CPU s this way against 61 isolated). Each file starts and disposes its own
          // apps, servers and browsers; a file that changes process-wide state (an env variable) puts it back.
          isolate: false,
        },
      },
      {
        test: {
          name: 'e2e',
          ...pollPatience,
          environment: 'node',
          setupFiles: [fileCpu],
          include: ['test/e2e/**/*.spec.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // As in `integration`: one module graph for the run's files.
          isolate: false,
        },
      },
    ],
  },
});
