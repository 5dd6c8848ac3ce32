import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/services/events';
import { DEFAULT_SETTINGS, SettingsService } from '../../../electron/services/settings/settings-service';
import type { StoreStatus } from '../../../electron/shared/schemas';

describe('SettingsService (real files)', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-settings-'));
    file = join(dir, 'settings.json');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** `seen`: the settings:changed events; `statuses`: the settings:status-changed snapshots. */
  function recordEvents(): { hub: EventHub; seen: unknown[]; statuses: StoreStatus[] } {
    const hub = new EventHub();
    const seen: unknown[] = [];
    const statuses: StoreStatus[] = [];
    hub.subscribe((channel, payload) => {
      if (channel === 'settings:status-changed') statuses.push(payload as StoreStatus);
      else seen.push({ channel, payload });
    });
    return { hub, seen, statuses };
  }

  it('starts from defaults when no file exists', async () => {
    const settings = new SettingsService(dir);
    await expect(settings.load()).resolves.toEqual(DEFAULT_SETTINGS);
    expect(await readdir(dir)).toEqual([]);
    expect(settings.status()).toMatchObject({ file, problem: null, writable: true });
  });

  it('persists an update atomically, emits it, and reloads it', async () => {
    const { hub, seen } = recordEvents();
    const settings = new SettingsService(dir, hub);
    await settings.load();
    const updated = await settings.update({ language: 'zh-CN', swarm: { port: 10090 } });
    expect(updated.language).toBe('zh-CN');
    expect(updated.swarm).toEqual({ ...DEFAULT_SETTINGS.swarm, port: 10090 });
    expect(await readdir(dir)).toEqual(['settings.json']);
    // The file carries its version (settings-migrations.ts); the UI's settings do not.
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ ...updated, version: 2 });
    expect(seen).toEqual([{ channel: 'settings:changed', payload: updated }]);
    await expect(new SettingsService(dir).load()).resolves.toEqual(updated);
  });

  it('refuses an invalid update with SETTINGS_INVALID and keeps the old values', async () => {
    const settings = new SettingsService(dir);
    await settings.load();
    await expect(settings.update({ swarm: { port: 80 } })).rejects.toMatchObject({ code: 'SETTINGS_INVALID' });
    expect(settings.get()).toEqual(DEFAULT_SETTINGS);
  });

  it('applies two quick updates in order, neither losing the other', async () => {
    const settings = new SettingsService(dir);
    await settings.load();
    await Promise.all([settings.update({ swarm: { port: 10091 } }), settings.update({ language: 'zh-CN' })]);
    const expected = { language: 'zh-CN', swarm: { ...DEFAULT_SETTINGS.swarm, port: 10091 } };
    expect(settings.get()).toEqual(expected);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ ...expected, version: 2 });
  });

  it('moves broken JSON aside instead of overwriting it', async () => {
    await writeFile(file, '{ not json');
    const settings = new SettingsService(dir);
    await expect(settings.load()).resolves.toEqual(DEFAULT_SETTINGS);
    const aside = (await readdir(dir)).find((f) => f.startsWith('settings.json.unreadable-'));
    expect(aside).toBeDefined();
    expect(await readFile(join(dir, aside ?? ''), 'utf8')).toBe('{ not json');
    expect(settings.status()).toMatchObject({ problem: 'moved-aside', movedTo: join(dir, aside ?? ''), writable: true });
  });

  it.each([
    ['a JSON array', '[{"language":"zh-CN"}]'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"zh-CN"'],
  ])('moves a file holding %s aside like any unreadable file', async (_label, text) => {
    await writeFile(file, text);
    const settings = new SettingsService(dir);
    await expect(settings.load()).resolves.toEqual(DEFAULT_SETTINGS);
    const files = await readdir(dir);
    const aside = files.find((f) => f.startsWith('settings.json.unreadable-'));
    expect(aside).toBeDefined();
    expect(await readFile(join(dir, aside ?? ''), 'utf8')).toBe(text);
    expect(files).not.toContain('settings.json');
    await settings.update({ language: 'zh-CN' });
    expect(await readFile(join(dir, aside ?? ''), 'utf8')).toBe(text);
  });

  it('fills keys missing from an older file with defaults, without calling it a problem', async () => {
    await writeFile(file, JSON.stringify({ language: 'zh-CN', swarm: { port: 12000 } }));
    const settings = new SettingsService(dir);
    const loaded = await settings.load();
    expect(loaded).toEqual({ language: 'zh-CN', swarm: { ...DEFAULT_SETTINGS.swarm, port: 12000 } });
    expect(settings.status().problem).toBeNull();
  });

  it('keeps keys written by a newer version, top level and inside sections, on the next write', async () => {
    const newer = {
      language: 'en',
      swarm: { ...DEFAULT_SETTINGS.swarm, futureFlag: 'on', port: 12001 },
      wizard: { step: 3, answers: ['a', 'b'] },
      schemaVersion: 7,
    };
    await writeFile(file, JSON.stringify(newer));
    const settings = new SettingsService(dir);
    await settings.load();
    await settings.update({ language: 'zh-CN', swarm: { gpus: false } });
    const written = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(written).toEqual({ ...newer, version: 2, language: 'zh-CN', swarm: { ...newer.swarm, gpus: false } });
    // The UI sees only what this version knows.
    expect(settings.get()).toEqual({ language: 'zh-CN', swarm: { ...DEFAULT_SETTINGS.swarm, port: 12001, gpus: false } });
  });

  it('keeps the valid fields when one field is invalid, and copies the original aside before writing', async () => {
    const original = JSON.stringify({
      language: 'klingon',
      swarm: { image: '127.0.0.1:5000/team/agentjet:v2', port: 80, networkMode: 'host', gpus: false, shmSizeGb: 64 },
    });
    await writeFile(file, original);
    const settings = new SettingsService(dir);
    const loaded = await settings.load();
    expect(loaded).toEqual({
      language: 'en',
      swarm: { image: '127.0.0.1:5000/team/agentjet:v2', port: 10086, networkMode: 'host', gpus: false, shmSizeGb: 64 },
    });
    expect(settings.status()).toMatchObject({ problem: 'fields-reset', resetFields: ['language', 'swarm.port'], writable: true });
    // Loading alone writes nothing.
    expect(await readFile(file, 'utf8')).toBe(original);
    await settings.update({ swarm: { port: 10100 } });
    const backup = (await readdir(dir)).find((f) => f.startsWith('settings.json.invalid-'));
    expect(backup).toBeDefined();
    expect(await readFile(join(dir, backup ?? ''), 'utf8')).toBe(original);
    expect(settings.status().movedTo).toBe(join(dir, backup ?? ''));
  });

  it('a section that is not an object falls back as a whole, the rest stays', async () => {
    await writeFile(file, JSON.stringify({ language: 'zh-CN', swarm: 'fast' }));
    const settings = new SettingsService(dir);
    await expect(settings.load()).resolves.toEqual({ language: 'zh-CN', swarm: DEFAULT_SETTINGS.swarm });
    expect(settings.status().resetFields).toEqual(['swarm']);
  });

  describe('a file that cannot be read: defaults in memory, never written over', () => {
    async function expectUnreadable(dataDir: string, detail: RegExp): Promise<void> {
      const { hub, seen, statuses } = recordEvents();
      const settings = new SettingsService(dataDir, hub);
      expect(settings.path).toBe(join(dataDir, 'settings.json'));
      await expect(settings.load()).resolves.toEqual(DEFAULT_SETTINGS);
      // The UI learns at once what happened and where (the app shell and Settings show it).
      expect(statuses).toEqual([settings.status()]);
      expect(settings.status()).toMatchObject({ problem: 'unreadable', writable: false, detail: expect.stringMatching(detail) });
      const saving = settings.update({ language: 'zh-CN' });
      await expect(saving).rejects.toMatchObject({ code: 'SETTINGS_NOT_SAVED', message: expect.stringContaining(settings.path) });
      expect(settings.get()).toEqual(DEFAULT_SETTINGS);
      expect(seen).toEqual([]);
    }

    it('settings.json is a directory (EISDIR)', async () => {
      await mkdir(file);
      await writeFile(join(file, 'keep.txt'), 'mine');
      await expectUnreadable(dir, /^EISDIR/);
      expect(await readFile(join(file, 'keep.txt'), 'utf8')).toBe('mine');
      expect(await readdir(dir)).toEqual(['settings.json']);
    });

    it('the data folder path is a file (ENOTDIR)', async () => {
      const notADir = join(dir, 'data');
      await writeFile(notADir, 'a file where the data folder should be');
      await expectUnreadable(notADir, /^ENOTDIR/);
      expect(await readFile(notADir, 'utf8')).toBe('a file where the data folder should be');
    });

    it('settings.json is a FIFO: refused at once instead of blocking the start forever', async () => {
      execFileSync('mkfifo', [file]);
      await expectUnreadable(dir, /^ENOTREG/);
    });

    // EACCES for real: the tests run as root, which reads any file whatever its mode, so the read
    // runs with the effective uid of `nobody` (seteuid; the real uid stays root, so it is undone in
    // `finally`). As a normal user a mode-000 file is enough.
    it('no permission to read settings.json (EACCES)', async () => {
      await writeFile(file, JSON.stringify({ language: 'zh-CN' }), { mode: 0o600 });
      const asRoot = process.getuid?.() === 0;
      if (asRoot) await chmod(dir, 0o755);
      else await chmod(file, 0o000);
      const nobody = 65534;
      if (asRoot) process.seteuid?.(nobody);
      try {
        expect(process.geteuid?.()).not.toBe(0);
        await expectUnreadable(dir, /^EACCES/);
      } finally {
        if (asRoot) process.seteuid?.(0);
      }
      await chmod(file, 0o600);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ language: 'zh-CN' });
    });

    it('saves again once the user has fixed the file', async () => {
      await mkdir(file);
      const settings = new SettingsService(dir);
      await settings.load();
      await expect(settings.update({ language: 'zh-CN' })).rejects.toMatchObject({ code: 'SETTINGS_NOT_SAVED' });
      await rm(file, { recursive: true });
      await expect(settings.update({ language: 'zh-CN' })).resolves.toMatchObject({ language: 'zh-CN' });
      expect(settings.status()).toMatchObject({ problem: null, writable: true });
    });
  });

  it('a failed write leaves memory unchanged, emits nothing, and names the file', async () => {
    const { hub, seen } = recordEvents();
    const settings = new SettingsService(dir, hub);
    await settings.load();
    await settings.update({ swarm: { port: 10087 } });
    seen.length = 0;
    // Make the write fail for real after a good load: a non-empty directory now stands where the
    // file is, so the atomic rename over it fails (root is not stopped by permission bits).
    await rm(file);
    await mkdir(file);
    await writeFile(join(file, 'x'), 'x');
    const failed = settings.update({ swarm: { port: 10088 } });
    await expect(failed).rejects.toMatchObject({ code: 'SETTINGS_NOT_SAVED' });
    await expect(failed).rejects.toThrow(file);
    expect(settings.get().swarm.port).toBe(10087);
    expect(seen).toEqual([]);
    // No temp file left behind.
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('SettingsService status events (real files)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-settings-status-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('announces the status after load and again only when a save changes it', async () => {
    const file = join(dir, 'settings.json');
    await mkdir(file);
    const hub = new EventHub();
    const statuses: StoreStatus[] = [];
    hub.subscribe((channel, payload) => {
      if (channel === 'settings:status-changed') statuses.push(payload as StoreStatus);
    });
    const settings = new SettingsService(dir, hub);
    await settings.load();
    await expect(settings.update({ language: 'zh-CN' })).rejects.toMatchObject({ code: 'SETTINGS_NOT_SAVED' });
    expect(statuses.map((s) => s.problem)).toEqual(['unreadable']);
    // The user moves the folder away: the next save re-reads, writes, and the notice goes away.
    await rm(file, { recursive: true });
    await settings.update({ language: 'zh-CN' });
    await settings.update({ language: 'en' });
    expect(statuses.map((s) => s.problem)).toEqual(['unreadable', null]);
  });
});
