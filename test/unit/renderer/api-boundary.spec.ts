import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const rendererSrc = resolve(import.meta.dirname, '../../../renderer/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|svelte)$/.test(entry.name) ? [path] : [];
  });
}

const files = sourceFiles(rendererSrc).map((path) => ({
  name: relative(rendererSrc, path).replaceAll('\\', '/'),
  text: readFileSync(path, 'utf8'),
}));

// House style: components stay dumb. The API is fetched in one place (App.svelte) and handed to
// state modules (lib/state/*.svelte.ts) through their constructors; components call those.
describe('renderer API boundary', () => {
  it('sees the renderer sources', () => {
    expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(['App.svelte', 'lib/api/index.ts']));
  });

  it('calls getApi() only in App.svelte (lib/api defines it)', () => {
    const callers = files.filter((f) => f.name !== 'lib/api/index.ts' && /\bgetApi\s*\(/.test(f.text)).map((f) => f.name);
    expect(callers).toEqual(['App.svelte']);
  });

  it('lets no component call an API method; only state modules do', () => {
    const apiCall = /\bapi\s*\.\s*(app|engines|swarm|settings|events)\s*\./;
    const offenders = files
      .filter((f) => f.name.endsWith('.svelte') && f.name !== 'App.svelte' && apiCall.test(f.text))
      .map((f) => f.name);
    expect(offenders).toEqual([]);
  });
});
