import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Plugin } from 'vite';
import { buildCsp } from './electron/shared/csp';

const root = import.meta.dirname;

/**
 * The page's CSP <meta> tag, generated from the one policy in electron/shared/csp.ts (never written
 * by hand in renderer/index.html). Prepended to <head> so it governs the module script Vite adds
 * there. In dev it also allows the Vite server and its HMR socket; builds get the strict policy.
 */
const cspMeta: Plugin = {
  name: 'agentswarm-csp-meta',
  transformIndexHtml(_html, context) {
    const devUrl = context.server?.resolvedUrls?.local[0];
    if (context.server && !devUrl) return [];
    return [
      {
        tag: 'meta',
        attrs: {
          'http-equiv': 'Content-Security-Policy',
          content: buildCsp({ meta: true, ...(devUrl ? { devServer: new URL(devUrl).origin } : {}) }),
        },
        injectTo: 'head-prepend',
      },
    ];
  },
};

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      lib: { entry: resolve(root, 'electron/main/index.ts') },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot be an ES module: emit one self-contained CommonJS file.
      externalizeDeps: false,
      lib: { entry: resolve(root, 'electron/preload/index.ts'), formats: ['cjs'] },
      rollupOptions: { output: { format: 'cjs', entryFileNames: 'index.cjs', codeSplitting: false } },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    // The plugin looks for svelte.config.js in the renderer root; point it at the project's, so
    // its compiler options (runes only) apply to the build that ships.
    plugins: [svelte({ configFile: resolve(root, 'svelte.config.js') }), cspMeta],
    build: {
      outDir: resolve(root, 'out/renderer'),
      emptyOutDir: true,
      // electron-vite leaves the renderer unminified; minified it is a third of the bytes to fetch and parse.
      minify: true,
      rollupOptions: {
        input: resolve(root, 'renderer/index.html'),
        // The libraries every page loads get chunks named after them: otherwise a shared chunk is named after its
        // first module (Svelte's runtime was "i18n", zod "errors"), and the startup bench's list misleads.
        output: {
          codeSplitting: {
            groups: [
              { name: 'svelte', test: /node_modules[\\/]svelte[\\/]/ },
              { name: 'zod', test: /node_modules[\\/]zod[\\/]/ },
            ],
          },
        },
      },
    },
  },
});
