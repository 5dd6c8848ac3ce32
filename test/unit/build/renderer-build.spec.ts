/**
 * Builds tiny throwaway pages with the renderer plugins of the real electron.vite.config.ts, so the
 * checks cover the build that ships: runes only (svelte.config.js is read even though the renderer
 * root is renderer/) and the generated CSP <meta> tag.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build, type PluginOption, type Rollup } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import config from '../../../electron.vite.config';
import { buildCsp } from '../../../electron/shared/csp';

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

function rendererPlugins(): PluginOption[] {
  const renderer = (config as { renderer?: { plugins?: PluginOption[] } }).renderer;
  if (!renderer?.plugins) throw new Error('electron.vite.config.ts has no renderer plugins');
  return renderer.plugins;
}

/** Builds index.html + main.ts + Widget.svelte (with `component` as its source) in memory. */
async function buildPage(component: string): Promise<Rollup.OutputAsset[]> {
  // Inside the project, so `import 'svelte'` resolves from its node_modules like the real renderer.
  const cache = resolve(import.meta.dirname, '../../../node_modules/.cache');
  await mkdir(cache, { recursive: true });
  dir = await mkdtemp(join(cache, 'agentswarm-build-'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><html><head><meta charset="UTF-8" /></head><body><script type="module" src="./main.ts"></script></body></html>');
  await writeFile(join(dir, 'main.ts'), "import { mount } from 'svelte';\nimport Widget from './Widget.svelte';\nmount(Widget, { target: document.body, props: { name: 'x' } });\n");
  await writeFile(join(dir, 'Widget.svelte'), component);
  const output = await build({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    plugins: rendererPlugins(),
    build: { write: false, outDir: join(dir, 'out'), minify: false },
  });
  const results = Array.isArray(output) ? output : [output];
  return results.flatMap((result) => ('output' in result ? result.output : [])).filter((item) => item.type === 'asset');
}

describe('renderer build', () => {
  it('fails on a component in the legacy syntax (export let, $:), because runes are enforced', async () => {
    const legacy = '<script>\n  export let name;\n  $: upper = name.toUpperCase();\n</script>\n<p>{upper}</p>\n';
    const error = await buildPage(legacy).then(
      () => null,
      (reason: unknown) => reason as Error,
    );
    expect(error?.message).toMatch(/Cannot use `export let` in runes mode/);
  }, 60_000);

  it('builds the same component written with runes, with the generated CSP meta tag in <head>', async () => {
    const runes = '<script>\n  let { name } = $props();\n  const upper = $derived(name.toUpperCase());\n</script>\n<p>{upper}</p>\n';
    const assets = await buildPage(runes);
    const html = assets.find((asset) => asset.fileName === 'index.html');
    const source = String(html?.source ?? '').replaceAll('&#39;', "'");
    expect(source).toContain(`<meta http-equiv="Content-Security-Policy" content="${buildCsp({ meta: true })}">`);
    // Before the module script, so the policy governs it.
    expect(source.indexOf('Content-Security-Policy')).toBeLessThan(source.indexOf('<script'));
  }, 60_000);
});
