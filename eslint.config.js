// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

/** Boundaries of the layout, enforced by the linter rather than by good intentions. */
const noElectronInServices = {
  paths: [{ name: 'electron', message: 'electron/services is plain Node: inject Electron abilities through an interface.' }],
  patterns: [
    { group: ['electron/*', 'electron-store'], message: 'electron/services must not depend on Electron.' },
    {
      group: ['**/main/**', '**/main', '**/browser-host/**', '**/browser-host', '**/test/**', '**/preload/**', '**/renderer/**'],
      message: 'electron/services is the core: main/, browser-host/ and tests use it, never the other way round.',
    },
  ],
};
/** The contract is the leaf every layer shares: it may use zod, nothing of ours outside shared/. */
const sharedIsALeaf = {
  patterns: [
    {
      group: ['../*', '!./*', '**/services/**', '**/main/**', '**/browser-host/**', '**/preload/**', '**/renderer/**', '**/test/**'],
      message: 'electron/shared imports nothing of ours outside electron/shared.',
    },
  ],
  paths: ['electron', 'dockerode', 'ssh2', 'ws'].map((name) => ({ name, message: 'electron/shared is the contract: zod only.' })),
};
const rendererBoundary = {
  patterns: [
    {
      group: ['**/electron/main/**', '**/electron/services/**', '**/electron/preload/**', '**/electron/browser-host/**'],
      message: 'The renderer talks to the backend only through renderer/src/lib/api and the shared contract.',
    },
    { group: ['node:*'], message: 'The renderer runs in a sandboxed page: no Node modules.' },
  ],
  paths: [
    'electron',
    'fs',
    'child_process',
    'net',
    'os',
    'path',
    'dockerode',
    'ssh2',
  ].map((name) => ({ name, message: 'The renderer runs in a sandboxed page: no Node or backend modules.' })),
};

export default tseslint.config(
  {
    // The last two: the bundled config files electron-vite and vite write next to their config while they build and
    // delete after. Lint runs beside `npm test`'s build in CI (official CI, stop 40): it listed one, then failed to read it.
    ignores: ['out/**', 'release/**', 'node_modules/**', '.testbed/**', 'test-results/**', 'test/fixtures/**/*.mjs', '**/*.d.mts', '*.config.ts.*.mjs', '**/*.timestamp-*.mjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        extraFileExtensions: ['.svelte'],
      },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parserOptions: { parser: tseslint.parser, projectService: true, extraFileExtensions: ['.svelte'] },
      globals: { ...globals.browser },
    },
  },
  {
    // Runes modules are plain TypeScript: the TypeScript parser keeps one program for all of them, where
    // svelte-eslint-parser's rewritten text made typescript-eslint rebuild the type checker per file.
    files: ['**/*.svelte.ts'],
    languageOptions: { parser: tseslint.parser },
  },
  {
    // No type-aware rules in components: measured, they made the lint 2.5x slower (each component's
    // rewritten script updates the shared program, and the checker is rebuilt for the next file). The
    // components' logic lives in state modules (.svelte.ts) and lib/*.ts, which keep every rule;
    // svelte-check still type-checks the components.
    files: ['**/*.svelte'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { parser: tseslint.parser, projectService: false, project: null, extraFileExtensions: ['.svelte'] },
      globals: { ...globals.browser },
    },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', rendererBoundary] },
  },
  {
    files: ['electron/services/**'],
    rules: { 'no-restricted-imports': ['error', noElectronInServices] },
  },
  {
    files: ['electron/shared/**'],
    rules: { 'no-restricted-imports': ['error', sharedIsALeaf] },
  },
  {
    files: ['scripts/**/*.mjs', '**/*.cjs', '*.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // CommonJS helper scripts (run with plain node): require() is how they load modules.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'svelte/no-inner-declarations': 'off' },
  },
);
