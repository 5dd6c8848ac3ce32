import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCsp } from '../../../electron/shared/csp';

const root = resolve(import.meta.dirname, '../../..');

function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp.split('; ').map((directive) => {
      const [name = '', ...sources] = directive.split(' ');
      return [name, sources];
    }),
  );
}

describe('the one renderer CSP', () => {
  it('lets the page connect to its own origin only: no loopback or port wildcards', () => {
    const csp = buildCsp();
    expect(directives(csp)['connect-src']).toEqual(["'self'"]);
    expect(csp).not.toContain('*');
    expect(csp).not.toContain('unsafe');
    expect(directives(csp)['frame-ancestors']).toEqual(["'none'"]);
  });

  it('adds exact extra origins and refuses wildcards or paths', () => {
    const csp = buildCsp({ connect: ['ws://127.0.0.1:41234'] });
    expect(directives(csp)['connect-src']).toEqual(["'self'", 'ws://127.0.0.1:41234']);
    for (const bad of ['ws://127.0.0.1:*', 'http://127.0.0.1:*', 'http://*.example', 'ws://127.0.0.1:1/x', 'not a url']) {
      expect(() => buildCsp({ connect: [bad] }), bad).toThrow();
    }
  });

  it('leaves header-only directives out of the <meta> form', () => {
    const meta = buildCsp({ meta: true });
    expect(directives(meta)['frame-ancestors']).toBeUndefined();
    expect(meta).toBe(buildCsp().replace("; frame-ancestors 'none'", ''));
  });

  it('in dev widens only for the Vite server: its origin, HMR socket and inline styles', () => {
    const dev = directives(buildCsp({ devServer: 'http://localhost:5173/' }));
    expect(dev['script-src']).toEqual(["'self'", 'http://localhost:5173']);
    expect(dev['connect-src']).toEqual(["'self'", 'http://localhost:5173', 'ws://localhost:5173']);
    expect(dev['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
  });

  it('is written in one place: the hosts, the page and the build config carry no copy of their own', async () => {
    for (const file of ['electron/main/security.ts', 'electron/browser-host/server.ts', 'electron.vite.config.ts', 'renderer/index.html']) {
      const text = await readFile(resolve(root, file), 'utf8');
      expect(text, file).not.toMatch(/default-src|connect-src '/);
    }
    expect(await readFile(resolve(root, 'renderer/index.html'), 'utf8')).not.toMatch(/Content-Security-Policy"\s+content=/);
  });
});
