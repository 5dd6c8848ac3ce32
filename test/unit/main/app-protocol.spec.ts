import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_INDEX_URL, createAppProtocolHandler } from '../../../electron/main/app-protocol';
import { buildCsp } from '../../../electron/shared/csp';

/** Real files in a temporary renderer folder, and a real WHATWG Request per call. */
let root: string;
let rendererDir: string;
const csp = buildCsp();
const get = (url: string, init?: RequestInit) => createAppProtocolHandler(rendererDir, csp)(new Request(url, init));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentswarm-protocol-'));
  rendererDir = join(root, 'renderer');
  await mkdir(join(rendererDir, 'assets'), { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>AgentSwarm</title>');
  await writeFile(join(rendererDir, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(join(root, 'secret.txt'), 'outside the renderer folder');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('app:// protocol handler', () => {
  it('serves index.html and assets with their type, the CSP and nosniff', async () => {
    const index = await get(APP_INDEX_URL);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<title>AgentSwarm</title>');
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toBe(csp);
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    const script = await get('agentswarm://app/assets/index-abc.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('console.log(1)');
    expect((await get('agentswarm://app/')).status).toBe(200);
  });

  it('serves the chunks a split build loads on demand (scripts and styles in assets/), under a CSP that allows them without eval', async () => {
    await writeFile(join(rendererDir, 'assets', 'SettingsPage-Dk3x9_aB.js'), 'export default 1');
    await writeFile(join(rendererDir, 'assets', 'SettingsPage-Qw12er34.css'), '.a{color:red}');
    const chunk = await get('agentswarm://app/assets/SettingsPage-Dk3x9_aB.js');
    expect(chunk.status).toBe(200);
    expect(chunk.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const style = await get('agentswarm://app/assets/SettingsPage-Qw12er34.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    // Dynamic import() and Vite's modulepreload links are same-origin scripts: 'self' covers them.
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toContain('unsafe-inline');
  });

  it.each([
    'agentswarm://app/../secret.txt',
    'agentswarm://app/%2e%2e/secret.txt',
    'agentswarm://app/assets/..%2f..%2fsecret.txt',
    'agentswarm://app/%2e%2e%5csecret.txt',
  ])('never serves a file outside the renderer folder: %s', async (url) => {
    const response = await get(url);
    expect([400, 404]).toContain(response.status);
    expect(await response.text()).not.toContain('outside the renderer folder');
  });

  it('answers 404 for another host or a missing file, 405 for writes, each with the CSP', async () => {
    const other = await get('agentswarm://evil/index.html');
    expect(other.status).toBe(404);
    expect((await get('agentswarm://app/missing.js')).status).toBe(404);
    const post = await get(APP_INDEX_URL, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('content-security-policy')).toBe(csp);
  });
});
