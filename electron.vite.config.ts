import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Plugin } from 'vite';

const root = import.meta.dirname;

/**
 * In dev only, Vite injects component styles as <style> tags and talks to its HMR socket, which
 * the strict production CSP in renderer/index.html forbids. Relax exactly those two, never in a build.
 */
const devCspRelaxation: Plugin = {
  name: 'agentswarm-dev-csp',
  apply: 'serve',
  transformIndexHtml: (html) =>
    html
      .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
      .replace("connect-src 'self'", "connect-src 'self' ws://localhost:* http://localhost:*"),
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
    plugins: [svelte(), devCspRelaxation],
    build: {
      outDir: resolve(root, 'out/renderer'),
      emptyOutDir: true,
      rollupOptions: { input: resolve(root, 'renderer/index.html') },
    },
  },
});
