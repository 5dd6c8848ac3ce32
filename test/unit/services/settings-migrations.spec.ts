import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SETTINGS_VERSIONING } from '../../../electron/services/settings/settings-migrations';
import { DEFAULT_SETTINGS, SettingsService } from '../../../electron/services/settings/settings-service';
import { JsonStore, type JsonStoreMigration } from '../../../electron/services/util/json-store';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-migrations-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readJson = async (file: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

describe('Settings migrations from each earlier version (settings.json)', () => {
  it('the chain ends at the version the app writes', () => {
    expect(SETTINGS_VERSIONING.current).toBe(2);
    expect(SETTINGS_VERSIONING.migrations.map((m) => m.to)).toEqual([2]);
  });

  it('v1 (no version field) → v2: values kept, version written, the v1 original copied aside before the first write', async () => {
    const file = join(dir, 'settings.json');
    const v1 = { language: 'zh-CN', swarm: { ...DEFAULT_SETTINGS.swarm, port: 12000, gpus: false }, wizard: { step: 2 } };
    const original = JSON.stringify(v1);
    await writeFile(file, original);
    const settings = new SettingsService(dir);
    expect(await settings.load()).toEqual({ language: 'zh-CN', swarm: { ...DEFAULT_SETTINGS.swarm, port: 12000, gpus: false } });
    expect(settings.status().problem).toBeNull();
    // Reading migrates in memory only; the file is untouched until a save.
    expect(await readFile(file, 'utf8')).toBe(original);

    await settings.update({ swarm: { shmSizeGb: 32 } });
    expect(await readJson(file)).toEqual({ ...v1, version: 2, swarm: { ...v1.swarm, shmSizeGb: 32 } });
    const backups = (await readdir(dir)).filter((f) => f.startsWith('settings.json.v1-'));
    expect(backups).toHaveLength(1);
    expect(await readFile(join(dir, backups[0]!), 'utf8')).toBe(original);

    // A second save does not copy again: the file is v2 now.
    await settings.update({ language: 'en' });
    expect((await readdir(dir)).filter((f) => f.startsWith('settings.json.v1-'))).toHaveLength(1);
  });

  it('v2 is read as it is: no backup on save', async () => {
    const file = join(dir, 'settings.json');
    await writeFile(file, JSON.stringify({ version: 2, language: 'zh-CN', swarm: DEFAULT_SETTINGS.swarm }));
    const settings = new SettingsService(dir);
    expect((await settings.load()).language).toBe('zh-CN');
    await settings.update({ language: 'en' });
    expect(await readdir(dir)).toEqual(['settings.json']);
    expect((await readJson(file)).version).toBe(2);
  });

  it('a file from a newer app keeps its version number and its unknown keys', async () => {
    const file = join(dir, 'settings.json');
    await writeFile(file, JSON.stringify({ version: 9, language: 'en', swarm: DEFAULT_SETTINGS.swarm, future: { x: 1 } }));
    const settings = new SettingsService(dir);
    await settings.load();
    await settings.update({ language: 'zh-CN' });
    expect(await readJson(file)).toEqual({ version: 9, language: 'zh-CN', swarm: DEFAULT_SETTINGS.swarm, future: { x: 1 } });
    expect(await readdir(dir)).toEqual(['settings.json']);
  });
});

describe('JsonStore versioning (a three-step history, as settings will grow)', () => {
  // v1 {name}, v2 renames name → label, v3 moves port into a `net` section.
  const Shape = z.object({ label: z.string(), net: z.object({ port: z.number().int() }) });
  const steps: JsonStoreMigration[] = [
    {
      to: 2,
      describe: 'v2: name → label',
      up: ({ name, ...rest }) => ({ ...rest, ...(name === undefined ? {} : { label: name }) }),
    },
    {
      to: 3,
      describe: 'v3: port → net.port',
      up: ({ port, ...rest }) => ({ ...rest, ...(port === undefined ? {} : { net: { port } }) }),
    },
  ];
  const store = (file: string, migrations = steps): JsonStore<typeof Shape> =>
    new JsonStore({
      file,
      schema: Shape,
      defaults: { label: 'default', net: { port: 1 } },
      errors: { invalid: 'SETTINGS_INVALID', notSaved: 'SETTINGS_NOT_SAVED' },
      versioning: { current: 3, migrations },
    });

  it.each([
    ['v1', { name: 'a', port: 7, extra: true }],
    ['v2', { version: 2, label: 'a', port: 7, extra: true }],
    ['v3', { version: 3, label: 'a', net: { port: 7 }, extra: true }],
  ])('from %s: the same values, unknown keys kept, written as v3', async (from, content) => {
    const file = join(dir, `${from}.json`);
    await writeFile(file, JSON.stringify(content));
    const s = store(file);
    expect(await s.load()).toEqual({ label: 'a', net: { port: 7 } });
    await s.update((v) => ({ ...v, label: 'b' }));
    expect(await readJson(file)).toEqual({ version: 3, label: 'b', net: { port: 7 }, extra: true });
    const backups = (await readdir(dir)).filter((f) => f.startsWith(`${from}.json.v`));
    expect(backups).toHaveLength(from === 'v3' ? 0 : 1);
    if (from !== 'v3') expect(await readJson(join(dir, backups[0]!))).toEqual(content);
  });

  it('a version field that is not a whole number counts as v1', async () => {
    const file = join(dir, 'odd.json');
    await writeFile(file, JSON.stringify({ version: 'two', name: 'a', port: 7 }));
    expect(await store(file).load()).toEqual({ label: 'a', net: { port: 7 } });
  });

  it('a failing step leaves the file untouched and not written over, and says why', async () => {
    const file = join(dir, 'broken.json');
    const original = JSON.stringify({ name: 'a', port: 7 });
    await writeFile(file, original);
    const failing: JsonStoreMigration[] = [
      steps[0]!,
      {
        to: 3,
        describe: 'v3 (broken)',
        up: () => {
          throw new Error('step bug');
        },
      },
    ];
    const s = store(file, failing);
    expect(await s.load()).toEqual({ label: 'default', net: { port: 1 } });
    expect(s.status()).toMatchObject({ problem: 'unreadable', writable: false });
    expect(s.status().detail).toContain('from version 1 to 3 (step bug)');
    await expect(s.update((v) => v)).rejects.toMatchObject({ code: 'SETTINGS_NOT_SAVED' });
    expect(await readFile(file, 'utf8')).toBe(original);
  });

  it('refuses a chain with a gap (a programming error, caught at construction)', () => {
    expect(() => store(join(dir, 'x.json'), [steps[1]!])).toThrow(/versions 2, 3 in order/);
  });
});
