import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetElectronStub } from '../../stubs/electron';
import { SHELL_DEFAULTS, SHELL_VERSIONING, ShellStore } from '../../../electron/main/shell-store';
import type { Migration } from '../../../electron/services/util/migrations';

/**
 * electron-store 12.0.0 itself (inlined by vitest so its `import 'electron'` reaches the labelled
 * stand-in, test/stubs/electron.ts) writing real files in a temp folder.
 */
let dir: string;
let file: string;
beforeEach(async () => {
  resetElectronStub();
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-shell-store-'));
  file = join(dir, 'shell-state.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readJson = async (): Promise<Record<string, unknown>> => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

describe('ShellStore (electron-store against the stand-in)', () => {
  it('a first launch: defaults, no problem, the file written at the current version with mode 0600', async () => {
    const shell = ShellStore.open({ cwd: dir });
    expect(shell.get()).toEqual(SHELL_DEFAULTS);
    expect(shell.status()).toMatchObject({ file, problem: null, writable: true });
    expect(await readJson()).toEqual({ version: SHELL_VERSIONING.current });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('remembers the password store, the obfuscation choice, the window and the last page across launches', () => {
    const first = ShellStore.open({ cwd: dir });
    first.set('passwordStore', 'gnome-libsecret');
    first.set('allowObfuscation', true);
    first.set('window', { x: 10, y: 20, width: 1000, height: 700, maximized: false });
    first.set('lastPage', 'settings');
    expect(ShellStore.open({ cwd: dir }).get()).toEqual({
      passwordStore: 'gnome-libsecret',
      allowObfuscation: true,
      window: { x: 10, y: 20, width: 1000, height: 700, maximized: false },
      lastPage: 'settings',
    });
  });

  it('refuses a value of the wrong shape without writing it', async () => {
    const shell = ShellStore.open({ cwd: dir });
    expect(() => shell.set('passwordStore', '--evil' as never)).toThrow();
    expect(() => shell.set('lastPage', '../../etc' as never)).toThrow();
    expect(shell.get()).toEqual(SHELL_DEFAULTS);
    expect(await readJson()).toEqual({ version: 1 });
  });

  it('a corrupt file (not JSON) is kept as a backup, defaults load, and the status tells the user where it went', async () => {
    await writeFile(file, '{"passwordStore": "gnome-lib');
    const shell = ShellStore.open({ cwd: dir, now: () => 1234 });
    expect(shell.get()).toEqual(SHELL_DEFAULTS);
    const status = shell.status();
    expect(status).toMatchObject({ problem: 'moved-aside', movedTo: `${file}.corrupt-1234`, writable: true });
    expect(status.detail).toMatch(/^not JSON/);
    expect(await readFile(`${file}.corrupt-1234`, 'utf8')).toBe('{"passwordStore": "gnome-lib');
    // The store works again at once.
    shell.set('lastPage', 'jobs');
    expect(ShellStore.open({ cwd: dir }).get().lastPage).toBe('jobs');
  });

  it('a file that is JSON but not an object is moved aside too', async () => {
    await writeFile(file, '[1,2,3]');
    const shell = ShellStore.open({ cwd: dir, now: () => 5 });
    expect(shell.status()).toMatchObject({ problem: 'moved-aside', movedTo: `${file}.corrupt-5`, detail: 'not a JSON object' });
    expect(await readFile(`${file}.corrupt-5`, 'utf8')).toBe('[1,2,3]');
  });

  it('one bad field falls back alone; the others and unknown keys are kept', async () => {
    const original = JSON.stringify({ version: 1, passwordStore: 'kwallet6', window: { x: 'left' }, lastPage: 'jobs', fromNewer: 42 });
    await writeFile(file, original);
    const shell = ShellStore.open({ cwd: dir, now: () => 3 });
    expect(shell.get()).toEqual({ ...SHELL_DEFAULTS, passwordStore: 'kwallet6', lastPage: 'jobs' });
    expect(shell.status()).toMatchObject({ problem: 'fields-reset', resetFields: ['window'], movedTo: `${file}.invalid-3` });
    expect(await readFile(`${file}.invalid-3`, 'utf8')).toBe(original);
    expect(await readJson()).toEqual({ version: 1, passwordStore: 'kwallet6', window: null, lastPage: 'jobs', fromNewer: 42 });
  });

  it('a store that cannot be opened at all runs in memory and says why', () => {
    const shell = ShellStore.inMemory(file, 'EACCES: permission denied');
    shell.set('lastPage', 'jobs');
    expect(shell.get().lastPage).toBe('jobs');
    expect(shell.status()).toMatchObject({ problem: 'unreadable', writable: false, detail: 'EACCES: permission denied' });
  });
});

describe('ShellStore migrations (a two-step history, as the shell state will grow)', () => {
  // v1 {bounds:{…}}, v2 renames bounds → window, v3 turns the old `keyring: "libsecret"` into passwordStore.
  const steps: Migration[] = [
    { to: 2, describe: 'v2: bounds → window', up: ({ bounds, ...rest }) => ({ ...rest, ...(bounds ? { window: bounds } : {}) }) },
    {
      to: 3,
      describe: 'v3: keyring → passwordStore',
      up: ({ keyring, ...rest }) => ({ ...rest, ...(keyring === 'libsecret' ? { passwordStore: 'gnome-libsecret' } : {}) }),
    },
  ];
  const versioning = { current: 3, migrations: steps };
  const window = { x: 1, y: 2, width: 900, height: 600, maximized: true };

  it('the shipped chain starts at version 1 with no steps yet', () => {
    expect(SHELL_VERSIONING).toEqual({ current: 1, migrations: [] });
  });

  it.each([
    ['v1', { bounds: window, keyring: 'libsecret', lastPage: 'jobs' }],
    ['v2', { version: 2, window, keyring: 'libsecret', lastPage: 'jobs' }],
    ['v3', { version: 3, window, passwordStore: 'gnome-libsecret', lastPage: 'jobs' }],
  ])('from %s: the same state, written as v3, the original kept as a backup', async (from, content) => {
    await writeFile(file, JSON.stringify(content));
    const shell = ShellStore.open({ cwd: dir, versioning, now: () => 7 });
    expect(shell.get()).toEqual({ passwordStore: 'gnome-libsecret', allowObfuscation: false, window, lastPage: 'jobs' });
    expect(shell.status().problem).toBeNull();
    expect(await readJson()).toEqual({ version: 3, window, passwordStore: 'gnome-libsecret', lastPage: 'jobs' });
    const backups = (await readdir(dir)).filter((f) => f.startsWith('shell-state.json.v'));
    if (from === 'v3') expect(backups).toEqual([]);
    else expect(JSON.parse(await readFile(join(dir, backups[0]!), 'utf8'))).toEqual(content);
  });

  it('a failing step keeps the file as a backup and loads defaults', async () => {
    await writeFile(file, JSON.stringify({ bounds: window }));
    const broken = {
      current: 2,
      migrations: [
        {
          to: 2,
          describe: 'broken',
          up: () => {
            throw new Error('bug');
          },
        },
      ],
    };
    const shell = ShellStore.open({ cwd: dir, versioning: broken, now: () => 9 });
    expect(shell.get()).toEqual(SHELL_DEFAULTS);
    expect(shell.status()).toMatchObject({ problem: 'moved-aside', movedTo: `${file}.corrupt-9` });
    expect(shell.status().detail).toContain('(bug)');
    expect(JSON.parse(await readFile(`${file}.corrupt-9`, 'utf8'))).toEqual({ bounds: window });
  });
});
