import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/services/events';
import { DEFAULT_SETTINGS, SettingsService } from '../../../electron/services/settings/settings-service';

describe('SettingsService (real files)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentswarm-settings-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('starts from defaults when no file exists', async () => {
    const settings = new SettingsService(dir);
    await expect(settings.load()).resolves.toEqual(DEFAULT_SETTINGS);
    expect(await readdir(dir)).toEqual([]);
  });

  it('persists an update atomically, emits it, and reloads it', async () => {
    const hub = new EventHub();
    const seen: unknown[] = [];
    hub.subscribe((channel, payload) => seen.push({ channel, payload }));
    const settings = new SettingsService(dir, hub);
    await settings.load();
    const updated = await settings.update({ language: 'zh-CN', swarm: { port: 10090 } });
    expect(updated.language).toBe('zh-CN');
    expect(updated.swarm).toEqual({ ...DEFAULT_SETTINGS.swarm, port: 10090 });
    expect(await readdir(dir)).toEqual(['settings.json']);
    expect(JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8'))).toEqual(updated);
    expect(seen).toEqual([{ channel: 'settings:changed', payload: updated }]);
    await expect(new SettingsService(dir).load()).resolves.toEqual(updated);
  });

  it('refuses an invalid update with SETTINGS_INVALID and keeps the old values', async () => {
    const settings = new SettingsService(dir);
    await settings.load();
    await expect(settings.update({ swarm: { port: 80 } })).rejects.toMatchObject({ code: 'SETTINGS_INVALID' });
    expect(settings.get()).toEqual(DEFAULT_SETTINGS);
  });

  it('moves an unreadable file aside instead of overwriting it', async () => {
    await writeFile(join(dir, 'settings.json'), '{ not json');
    const settings = new SettingsService(dir);
    await expect(settings.load()).resolves.toEqual(DEFAULT_SETTINGS);
    const files = await readdir(dir);
    const aside = files.find((f) => f.startsWith('settings.json.unreadable-'));
    expect(aside).toBeDefined();
    expect(await readFile(join(dir, aside ?? ''), 'utf8')).toBe('{ not json');
  });

  it('fills keys missing from an older file with defaults', async () => {
    await writeFile(join(dir, 'settings.json'), JSON.stringify({ language: 'zh-CN', swarm: { port: 12000 } }));
    const loaded = await new SettingsService(dir).load();
    expect(loaded).toEqual({ language: 'zh-CN', swarm: { ...DEFAULT_SETTINGS.swarm, port: 12000 } });
  });
});
