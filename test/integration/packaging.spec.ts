/**
 * Packages the app with the real electron-builder and electron-builder.yml, against a STAND-IN
 * Electron dist (the real binary cannot be downloaded here), then inspects what would ship.
 * All download mirrors point at a closed loopback port, so nothing leaves the machine.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { extractFile, listPackage } from '@electron/asar';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCsp } from '../../electron/shared/csp';

const root = resolve(import.meta.dirname, '../..');
const bin = (name: string): string => join(root, 'node_modules', '.bin', name);
const offline = {
  ELECTRON_MIRROR: 'http://127.0.0.1:9/',
  ELECTRON_BUILDER_BINARIES_MIRROR: 'http://127.0.0.1:9/',
  ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
};

/** The marker @electron/fuses looks for; the byte after it is the wire version, then its length. */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const FUSE_ORDER = [
  'RunAsNode',
  'EnableCookieEncryption',
  'EnableNodeOptionsEnvironmentVariable',
  'EnableNodeCliInspectArguments',
  'EnableEmbeddedAsarIntegrityValidation',
  'OnlyLoadAppFromAsar',
  'LoadBrowserProcessSpecificV8Snapshot',
  'GrantFileProtocolExtraPrivileges',
] as const;

/**
 * What electron-builder needs from an Electron dist: an `electron` executable, resources/, the two
 * licence files and `version`. The executable is a shell script that ends in a V1 fuse wire with
 * Electron-like defaults ('1' on, '0' off), so the fuse flipping in the config is exercised for real.
 */
async function makeStandInElectronDist(dir: string): Promise<string> {
  await mkdir(join(dir, 'resources'), { recursive: true });
  const wire = Buffer.concat([Buffer.from(FUSE_SENTINEL), Buffer.from([1, FUSE_ORDER.length]), Buffer.from('10110001')]);
  const script = Buffer.concat([
    Buffer.from('#!/bin/sh\necho "stand-in Electron for packaging tests; it cannot run the app" >&2\nexit 1\n# '),
    wire,
    Buffer.from('\n'),
  ]);
  await writeFile(join(dir, 'electron'), script);
  await chmod(join(dir, 'electron'), 0o755);
  await writeFile(join(dir, 'LICENSE'), 'stand-in\n');
  await writeFile(join(dir, 'LICENSES.chromium.html'), '<html><body>stand-in</body></html>\n');
  await writeFile(join(dir, 'version'), '45.5.0');
  return dir;
}

function readFuses(binary: Buffer): Record<string, string> {
  const at = binary.indexOf(FUSE_SENTINEL);
  if (at < 0) throw new Error('no fuse wire in the packaged executable');
  const length = binary[at + FUSE_SENTINEL.length + 1] ?? 0;
  const states = binary.subarray(at + FUSE_SENTINEL.length + 2, at + FUSE_SENTINEL.length + 2 + length).toString('latin1');
  return Object.fromEntries(FUSE_ORDER.map((name, i) => [name, states[i] ?? '?']));
}

let work = '';
let appDir = '';
let archive = '';
let entries: string[] = [];

beforeAll(async () => {
  await execa(bin('electron-vite'), ['build'], { cwd: root, env: offline });
  work = await mkdtemp(join(tmpdir(), 'agentswarm-packaging-'));
  const dist = await makeStandInElectronDist(join(work, 'electron-dist'));
  const output = join(work, 'release');
  await execa(
    bin('electron-builder'),
    ['--linux', 'dir', `-c.electronDist=${dist}`, `-c.directories.output=${output}`],
    { cwd: root, env: offline, timeout: 150_000 },
  );
  appDir = join(output, 'linux-unpacked');
  archive = join(appDir, 'resources', 'app.asar');
  // Entries come back as /out/main/index.js (leading separator, platform separators).
  entries = listPackage(archive, { isPack: false }).map((e) => e.replaceAll('\\', '/').replace(/^\/+/, ''));
  // Building and packaging are CPU-bound: about 40 s idle, past 180 s on two cores at load 24 (a CI run beside other work).
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('packaged app (linux dir, stand-in Electron)', () => {
  it('produces the executable named in the config and an asar', () => {
    expect(existsSync(join(appDir, 'agentswarm-desktop'))).toBe(true);
    expect(existsSync(archive)).toBe(true);
  });

  it('ships the built main, preload and renderer and package.json', () => {
    for (const file of ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'package.json']) {
      expect(entries).toContain(file);
    }
    const pkg = JSON.parse(extractFile(archive, 'package.json').toString('utf8')) as { main: string };
    expect(pkg.main).toBe('out/main/index.js');
  });

  it('ships nothing of ours but out/ and package.json: no sources, tests, fixtures, test bed or maps', () => {
    const topLevel = new Set(entries.map((e) => e.split('/')[0]));
    expect([...topLevel].sort()).toEqual(['node_modules', 'out', 'package.json']);
    const ours = entries.filter((e) => !e.startsWith('node_modules/'));
    const offending = ours.filter(
      (e) => /(^|\/)(test|tests|fixtures|testbed|electron|renderer\/src|scripts)(\/|$)/.test(e) && !e.startsWith('out/'),
    );
    expect(offending).toEqual([]);
    expect(ours.filter((e) => /\.(ts|mts|cts|svelte|map)$/.test(e) || e.includes('testbed'))).toEqual([]);
    expect(entries.filter((e) => /\.(ts|map)$/.test(e))).toEqual([]);
  });

  it('ships every package the main bundle imports at runtime', async () => {
    const main = await readFile(join(root, 'out/main/index.js'), 'utf8');
    // `from`/`import` as keywords only (not the tail of a name or a string such as 'settings:import'),
    // followed by something shaped like a module specifier (not the rest of a sentence ending in "from").
    const specifiers = [...main.matchAll(/(?:^|[^\w$.:'"])(?:from|import)\s*\(?\s*["'](@?[a-z0-9][\w.-]*(?:[/:][\w./-]+)?)["']/gm)].map((m) => m[1] ?? '');
    const builtins = new Set(builtinModules);
    const packages = new Set(
      specifiers
        .filter((s) => !s.startsWith('node:') && !builtins.has(s) && s !== 'electron')
        .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s))),
    );
    expect(packages.size).toBeGreaterThan(0);
    for (const name of packages) expect(entries, `${name} is imported by main`).toContain(`node_modules/${name}/package.json`);
  });

  it('keeps the packaged preload one self-contained CommonJS file', () => {
    const preload = extractFile(archive, 'out/preload/index.cjs').toString('utf8');
    expect(preload).not.toMatch(/^\s*import\s/m);
    expect(preload).not.toMatch(/^\s*export\s/m);
    const required = [...preload.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    expect(new Set(required)).toEqual(new Set(['electron']));
  });

  it('unpacks native addons next to the asar so they can load', () => {
    const addons = entries.filter((e) => e.endsWith('.node'));
    expect(addons.length).toBeGreaterThan(0);
    for (const addon of addons) expect(existsSync(join(appDir, 'resources', 'app.asar.unpacked', addon)), addon).toBe(true);
  });

  it('ships a renderer whose CSP meta tag is the generated one, without loopback wildcards', () => {
    const html = extractFile(archive, 'out/renderer/index.html').toString('utf8').replaceAll('&#39;', "'");
    expect(html).toContain(`content="${buildCsp({ meta: true })}"`);
    expect(html).not.toMatch(/127\.0\.0\.1:\*|localhost:\*/);
  });

  it('flips the hardening fuses in the packaged executable', async () => {
    const fuses = readFuses(await readFile(join(appDir, 'agentswarm-desktop')));
    expect(fuses).toEqual({
      RunAsNode: '0',
      EnableCookieEncryption: '1',
      EnableNodeOptionsEnvironmentVariable: '0',
      EnableNodeCliInspectArguments: '0',
      EnableEmbeddedAsarIntegrityValidation: '1',
      OnlyLoadAppFromAsar: '1',
      LoadBrowserProcessSpecificV8Snapshot: '0',
      // Off: the UI comes from the agentswarm:// scheme, never file://.
      GrantFileProtocolExtraPrivileges: '0',
    });
  });
});
