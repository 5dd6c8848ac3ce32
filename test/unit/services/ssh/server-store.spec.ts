import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerStore, slugOf } from '../../../../electron/services/ssh/server-store';
import { ServerProfileInput, type ServerProfileDraft } from '../../../../electron/shared/schemas-servers';

const input = (extra: Partial<ServerProfileDraft> = {}) => ServerProfileInput.parse({ label: 'GPU box', host: 'gpu.example.org', username: 'alice', ...extra });

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentswarm-servers-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('slugOf', () => {
  it('makes ids from labels', () => {
    expect(slugOf('GPU box #2')).toBe('gpu-box-2');
    expect(slugOf('  --Ünïcode  ')).toBe('unicode');
    expect(slugOf('机器')).toBe('server');
    expect(slugOf('x'.repeat(80))).toHaveLength(40);
  });
});

describe('ServerStore', () => {
  it('adds, lists, updates and removes profiles, persisted in servers.json', async () => {
    const store = new ServerStore(dir);
    expect(await store.load()).toEqual([]);
    const added = await store.add(input());
    expect(added).toMatchObject({ id: 'gpu-box', label: 'GPU box', port: 22, tunnelLocalPort: 10086 });
    const updated = await store.update('gpu-box', input({ label: 'GPU box', port: 2200 }));
    expect(updated).toMatchObject({ id: 'gpu-box', port: 2200 });

    const again = new ServerStore(dir);
    expect(await again.load()).toEqual([updated]);
    const file = JSON.parse(await readFile(join(dir, 'servers.json'), 'utf8')) as unknown;
    expect(file).toEqual({ servers: [updated] });

    await again.remove('gpu-box');
    expect(again.list()).toEqual([]);
    expect(await new ServerStore(dir).load()).toEqual([]);
  });

  it('gives unique ids when labels slug the same, and refuses duplicates by label or by login', async () => {
    const store = new ServerStore(dir);
    await store.load();
    const a = await store.add(input({ label: 'gpu box' }));
    const b = await store.add(input({ label: 'GPU-box', host: 'other.example.org' }));
    const c = await store.add(input({ label: 'gpu  box!', host: 'third.example.org' }));
    expect([a.id, b.id, c.id]).toEqual(['gpu-box', 'gpu-box-2', 'gpu-box-3']);
    await expect(store.add(input({ label: 'GPU BOX', host: 'new.example.org' }))).rejects.toMatchObject({ code: 'SERVER_EXISTS' });
    await expect(store.add(input({ label: 'new', host: 'GPU.example.org' }))).rejects.toMatchObject({ code: 'SERVER_EXISTS' });
    // Same host and user on another port is another login.
    await expect(store.add(input({ label: 'new', port: 2222 }))).resolves.toMatchObject({ id: 'new' });
    // Updating a profile to itself is not a duplicate; to another's label is.
    await expect(store.update(a.id, input({ label: 'gpu box' }))).resolves.toMatchObject({ id: a.id });
    await expect(store.update(a.id, input({ label: 'GPU-box' }))).rejects.toMatchObject({ code: 'SERVER_EXISTS' });
    expect(store.list()).toHaveLength(4);
  });

  it('says SERVER_NOT_FOUND for unknown ids', async () => {
    const store = new ServerStore(dir);
    await store.load();
    expect(() => store.get('nope')).toThrow(expect.objectContaining({ code: 'SERVER_NOT_FOUND' }));
    await expect(store.update('nope', input())).rejects.toMatchObject({ code: 'SERVER_NOT_FOUND' });
    await expect(store.remove('nope')).rejects.toMatchObject({ code: 'SERVER_NOT_FOUND' });
  });

  it('keeps a broken file aside instead of losing it', async () => {
    await writeFile(join(dir, 'servers.json'), '{ not json');
    const store = new ServerStore(dir);
    expect(await store.load()).toEqual([]);
    await store.add(input());
    expect(store.list()).toHaveLength(1);
  });

  it('has no field that could hold a secret', async () => {
    const store = new ServerStore(dir);
    await store.load();
    const parsed = ServerProfileInput.safeParse({ ...input(), password: 'hunter2', passphrase: 'x' });
    expect(parsed.success).toBe(true);
    await store.add(parsed.data!);
    expect(await readFile(join(dir, 'servers.json'), 'utf8')).not.toContain('hunter2');
  });
});
