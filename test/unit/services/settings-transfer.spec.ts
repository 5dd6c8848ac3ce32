import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../electron/services/profiles/profile-store';
import { SecretVault } from '../../../electron/services/secrets/secret-vault';
import type { SecretVaultApi } from '../../../electron/services/secrets/vault-api';
import { SettingsService } from '../../../electron/services/settings/settings-service';
import {
  exportSettings,
  importSettings,
  secretIdsIn,
  SETTINGS_EXPORT_FORMAT,
  type TransferSources,
} from '../../../electron/services/settings/settings-transfer';
import { ServerStore } from '../../../electron/services/ssh/server-store';
import { ProfileInput } from '../../../electron/shared/schemas-profiles';
import { ServerProfileInput } from '../../../electron/shared/schemas-servers';
import type { SecretMeta, SecretSave } from '../../../electron/shared/schemas-vault';

/** A value no export may ever contain, whatever shape the redactor knows. */
const CANARY = 'canary-7f3a9c1e-VALUE-never-exported-5b2d';

/**
 * TEST DOUBLE of the credentials vault (SecretVaultApi): the real one (vault-core) is not on main
 * yet. It holds real values in memory, so the canary test can show that export never asks for one.
 */
class TestDoubleVault implements SecretVaultApi {
  readonly values = new Map<string, string>();
  readonly metas = new Map<string, SecretMeta>();
  revealCalls = 0;
  saveCalls = 0;
  put(meta: Pick<SecretMeta, 'id' | 'name' | 'kind' | 'llm'>, value: string): void {
    const at = '2026-12-03T18:00:00.000Z';
    this.metas.set(meta.id, { ...meta, backend: 'keychain', protected: true, createdAt: at, updatedAt: at, lastTest: null, usedBy: [] });
    this.values.set(meta.id, value);
  }
  state(): never {
    throw new Error('not used by settings transfer');
  }
  list(): SecretMeta[] {
    return [...this.metas.values()];
  }
  meta(id: string): SecretMeta | null {
    return this.metas.get(id) ?? null;
  }
  async reveal(id: string): Promise<string> {
    this.revealCalls += 1;
    return this.values.get(id) ?? '';
  }
  async save(_request: SecretSave): Promise<SecretMeta> {
    this.saveCalls += 1;
    throw new Error('settings import must never save a secret');
  }
  setup = (): never => this.state();
  unlock = (): never => this.state();
  lock = (): never => this.state();
  remove = (): never => this.state();
  recordTest = (): never => this.state();
  addUsageSource(): void {}
  onChange(): () => void {
    return () => undefined;
  }
}

interface Machine {
  dir: string;
  settings: SettingsService;
  servers: ServerStore;
  profiles: ProfileStore;
  vault: TestDoubleVault;
  sources: TransferSources;
}

/** One "computer": real settings, server and profile files in a temp folder, the vault double. */
async function machine(): Promise<Machine> {
  const dir = await mkdtemp(join(tmpdir(), 'agentswarm-transfer-'));
  const settings = new SettingsService(dir);
  const servers = new ServerStore(dir);
  const profiles = new ProfileStore(dir);
  await settings.load();
  await servers.load();
  await profiles.load();
  const vault = new TestDoubleVault();
  const sources: TransferSources = {
    settings,
    vault,
    downloadsDir: join(dir, 'Downloads'),
    appVersion: '9.9.9-test',
    now: () => new Date('2026-12-03T19:00:00.000Z'),
    targets: () => ({
      servers: { list: async () => servers.list(), add: (i) => servers.add(i), update: (id, i) => servers.update(id, i) },
      profiles: { list: async () => profiles.list(), add: (i) => profiles.add(i), update: (id, i) => profiles.update(id, i) },
    }),
  };
  return { dir, settings, servers, profiles, vault, sources };
}

const made: Machine[] = [];
let a: Machine;
let b: Machine;
beforeEach(async () => {
  a = await machine();
  b = await machine();
  made.push(a, b);
});
afterEach(async () => {
  for (const m of made.splice(0)) await rm(m.dir, { recursive: true, force: true });
});

async function fillA(): Promise<void> {
  await a.settings.update({ language: 'zh-CN', swarm: { port: 10090 } });
  await a.servers.add(ServerProfileInput.parse({ label: 'GPU box', host: 'gpu.example.org', username: 'alice' }));
  await a.profiles.add(ProfileInput.parse({ label: 'qwen 7b', engineId: 'ssh-gpu-box', image: '127.0.0.1:5000/agentjet:1', port: 10087 }));
  a.vault.put({ id: 'openai', name: 'OpenAI key', kind: 'llm', llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } }, CANARY);
  a.vault.put({ id: 'swan', name: 'SwanLab', kind: 'swanlab', llm: null }, `${CANARY}-swan`);
}

describe('settings export', () => {
  it('writes every non-secret setting, servers, profiles and secret metadata to one versioned file in Downloads (0600)', async () => {
    await fillA();
    const { path, bytes } = await exportSettings(a.sources);
    expect(path).toBe(join(a.dir, 'Downloads', 'agentswarm-settings-2026-12-03T19-00-00.json'));
    const text = await readFile(path, 'utf8');
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // Atomic write: no temp file left next to it.
    expect(await readdir(join(a.dir, 'Downloads'))).toEqual(['agentswarm-settings-2026-12-03T19-00-00.json']);
    const file = JSON.parse(text) as Record<string, unknown>;
    expect(file).toMatchObject({ format: SETTINGS_EXPORT_FORMAT, formatVersion: 1, appVersion: '9.9.9-test', settings: a.settings.get() });
    expect(file.servers).toEqual(a.servers.list());
    expect(file.profiles).toEqual(a.profiles.list());
    expect(file.secrets).toEqual([
      { id: 'openai', name: 'OpenAI key', kind: 'llm', llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
      { id: 'swan', name: 'SwanLab', kind: 'swanlab', llm: null },
    ]);
  });

  it('CANARY: the export holds no secret value even when the vault holds one, and never asks the vault for one', async () => {
    await fillA();
    const { path } = await exportSettings(a.sources);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('canary-7f3a9c1e');
    expect(a.vault.revealCalls).toBe(0);
  });
});

describe('settings export with the real vault (session backend)', () => {
  it('CANARY: a secret saved in the real SecretVault is exported as metadata only', async () => {
    const vault = new SecretVault({ dataDir: a.dir, host: 'browser', logger: { warn: () => undefined } });
    await vault.load();
    await vault.setup({ backend: 'session' });
    const saved = await vault.save({ name: 'OpenAI key', kind: 'llm', value: CANARY, llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } });
    const { path } = await exportSettings({ ...a.sources, vault });
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(CANARY);
    expect((JSON.parse(text) as { secrets: unknown[] }).secrets).toEqual([
      { id: saved.id, name: 'OpenAI key', kind: 'llm', llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    ]);
  });
});

describe('settings import', () => {
  it('round trip: settings, servers and profiles arrive on another machine; secrets are reported missing, not imported', async () => {
    await fillA();
    const { path } = await exportSettings(a.sources);
    const result = await importSettings(b.sources, await readFile(path, 'utf8'));
    expect(result).toEqual({
      imported: ['settings', 'server GPU box', 'profile qwen 7b'],
      skipped: [],
      missingSecrets: ['OpenAI key (openai)', 'SwanLab (swan)'],
      pending: [],
      detached: [],
    });
    expect(b.settings.get()).toEqual(a.settings.get());
    expect(b.servers.list()).toEqual(a.servers.list());
    expect(b.profiles.list().map(({ createdAt: _c, updatedAt: _u, ...p }) => p)).toEqual(
      a.profiles.list().map(({ createdAt: _c, updatedAt: _u, ...p }) => p),
    );
    expect(b.vault.saveCalls).toBe(0);
    expect(b.vault.list()).toEqual([]);
  });

  it('updates items with the same id, adds new ones, deletes none; a secret this vault has is not missing', async () => {
    await fillA();
    const { path } = await exportSettings(a.sources);
    const text = await readFile(path, 'utf8');
    const kept = await b.servers.add(ServerProfileInput.parse({ label: 'Other', host: 'other.example.org', username: 'bob' }));
    await b.servers.add(ServerProfileInput.parse({ label: 'GPU box', host: 'old.example.org', username: 'alice' }));
    b.vault.put({ id: 'openai', name: 'OpenAI key', kind: 'llm', llm: null }, 'another value');
    const result = await importSettings(b.sources, text);
    expect(result.missingSecrets).toEqual(['SwanLab (swan)']);
    // A new host for an existing server waits for the user's confirmation (issue 29, item 4).
    expect(result.pending.map((p) => [p.key, p.changes])).toEqual([['server:gpu-box', [{ field: 'host', from: 'old.example.org', to: 'gpu.example.org' }]]]);
    await importSettings(b.sources, text, ['server:gpu-box']);
    expect(b.servers.list().map((s) => [s.id, s.host])).toEqual([
      [kept.id, 'other.example.org'],
      ['gpu-box', 'gpu.example.org'],
    ]);
  });

  it('a server added under another id takes its profiles along (engine id re-pointed)', async () => {
    // On A the server got id gpu-box-2 (its slug was taken when it was added); B has no such id,
    // so the import adds it as gpu-box, and its profile must follow to ssh-gpu-box.
    const first = await a.servers.add(ServerProfileInput.parse({ label: 'gpu box!', host: 'x.example.org', username: 'carol' }));
    const server = await a.servers.add(ServerProfileInput.parse({ label: 'GPU box', host: 'gpu.example.org', username: 'alice' }));
    await a.servers.remove(first.id);
    expect(server.id).toBe('gpu-box-2');
    await a.profiles.add(ProfileInput.parse({ label: 'qwen 7b', engineId: 'ssh-gpu-box-2', image: '127.0.0.1:5000/agentjet:1' }));
    const text = await readFile((await exportSettings(a.sources)).path, 'utf8');
    await importSettings(b.sources, text);
    expect(b.servers.list().map((s) => s.id)).toEqual(['gpu-box']);
    expect(b.profiles.list()[0]?.engineId).toBe('ssh-gpu-box');
  });

  it('skips what this machine refuses (a port taken on the same engine), with the reason, and imports the rest', async () => {
    await fillA();
    const text = await readFile((await exportSettings(a.sources)).path, 'utf8');
    await b.profiles.add(ProfileInput.parse({ label: 'mine', engineId: 'ssh-gpu-box', image: '127.0.0.1:5000/agentjet:1', port: 10087 }));
    const result = await importSettings(b.sources, text);
    expect(result.imported).toEqual(['settings', 'server GPU box']);
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]).toMatch(/^profile qwen 7b: "mine" already uses port 10087 on the same engine/);
    expect(b.profiles.list().map((p) => p.label)).toEqual(['mine']);
  });

  it('never imports a secret value smuggled into the file', async () => {
    await fillA();
    const file = JSON.parse(await readFile((await exportSettings(a.sources)).path, 'utf8')) as { secrets: Record<string, unknown>[] };
    file.secrets[0]!.value = CANARY;
    const result = await importSettings(b.sources, JSON.stringify(file));
    expect(result.missingSecrets).toContain('OpenAI key (openai)');
    expect(b.vault.saveCalls).toBe(0);
    for (const name of await readdir(b.dir)) {
      if (name.endsWith('.json')) expect(await readFile(join(b.dir, name), 'utf8')).not.toContain(CANARY);
    }
  });

  it.each([
    ['not JSON', '{oops', /not JSON/],
    ['another format', JSON.stringify({ format: 'vscode-settings', formatVersion: 1 }), /format: not an AgentSwarm settings export/],
    ['a newer format', JSON.stringify({ format: SETTINGS_EXPORT_FORMAT, formatVersion: 2 }), /formatVersion: exported by a newer AgentSwarm/],
    [
      'a bad server',
      JSON.stringify({ format: SETTINGS_EXPORT_FORMAT, formatVersion: 1, servers: [{ id: 'x', label: 'x', host: '-oProxyCommand=evil', username: 'u' }] }),
      /servers\.0\.host: host must be a host name/,
    ],
  ])('refuses %s with SETTINGS_IMPORT_INVALID naming what is wrong, changing nothing', async (_name, text, message) => {
    const before = b.settings.get();
    const error = await importSettings(b.sources, text).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SETTINGS_IMPORT_INVALID' });
    expect((error as Error).message).toMatch(message);
    expect(b.settings.get()).toEqual(before);
    expect(b.servers.list()).toEqual([]);
  });
});

describe('secretIdsIn (references found by field name, so later schema fields are covered)', () => {
  it('finds …SecretId fields, secretId entries and secretRefs values at any depth', () => {
    expect(
      secretIdsIn([
        { passwordSecretId: 'pw', passphraseSecretId: null, nested: { refs: [{ name: 'X', secretId: 'x' }] } },
        { secretRefs: { SWANLAB_API_KEY: 'swan', OPENAI_API_KEY: 'openai' } },
      ]),
    ).toEqual(['pw', 'x', 'swan', 'openai']);
  });

  it('an imported server and profile that refer to secrets this vault lacks are reported by name', async () => {
    await a.servers.add(ServerProfileInput.parse({ label: 'GPU box', host: 'gpu.example.org', username: 'alice', passwordSecretId: 'gpu-pw' }));
    await a.profiles.add(
      ProfileInput.parse({ label: 'qwen 7b', engineId: 'ssh-gpu-box', image: '127.0.0.1:5000/agentjet:1', secretRefs: { SWANLAB_API_KEY: 'swan' } }),
    );
    a.vault.put({ id: 'swan', name: 'SwanLab', kind: 'swanlab', llm: null }, `${CANARY}-swan`);
    const text = await readFile((await exportSettings(a.sources)).path, 'utf8');
    expect(text).not.toContain(CANARY);
    const result = await importSettings(b.sources, text);
    expect(result.missingSecrets.sort()).toEqual(['SwanLab (swan)', 'gpu-pw']);
    expect(b.servers.list()[0]?.passwordSecretId).toBe('gpu-pw');
    expect(b.profiles.list()[0]?.secretRefs).toEqual({ SWANLAB_API_KEY: 'swan' });
  });
});

describe('an import shows what it would re-point and applies it only once confirmed (issue 29, item 4)', () => {
  const prod = (port: number, extra: Partial<ServerProfileInput> = {}) =>
    ServerProfileInput.parse({ label: 'prod', host: 'prod.example.org', port, username: 'deploy', passwordSecretId: 'prod-pw', ...extra });

  it('a server moved from port 2222 to 2291 is held back, listed old → new, and keeps nothing of its password once confirmed', async () => {
    await b.servers.add(prod(2222));
    b.vault.put({ id: 'prod-pw', name: 'prod password', kind: 'ssh-password', llm: null }, `${CANARY}-pw`);
    await a.servers.add(prod(2291, { label: 'prod', identityFiles: ['~/.ssh/id_prod'] }));
    await a.settings.update({ language: 'zh-CN' });
    const text = await readFile((await exportSettings(a.sources)).path, 'utf8');
    const id = b.servers.list()[0]!.id;

    const first = await importSettings(b.sources, text);
    expect(first.pending).toEqual([
      {
        key: `server:${id}`,
        kind: 'server',
        label: 'prod',
        changes: [
          { field: 'port', from: '2222', to: '2291' },
          { field: 'identityFiles', from: null, to: '~/.ssh/id_prod' },
        ],
      },
    ]);
    expect(first.imported).toEqual(['settings']);
    expect(first.detached).toEqual([]);
    expect(b.servers.list()[0]).toMatchObject({ port: 2222, passwordSecretId: 'prod-pw', identityFiles: [] });

    // The second pass applies only what was confirmed (nothing else is applied twice).
    const second = await importSettings(b.sources, text, [`server:${id}`]);
    expect(second).toMatchObject({ imported: ['server prod'], pending: [], detached: [{ kind: 'server', label: 'prod', field: 'passwordSecretId', secretId: 'prod-pw' }] });
    expect(b.servers.list()[0]).toMatchObject({ port: 2291, identityFiles: ['~/.ssh/id_prod'], passwordSecretId: null, passphraseSecretId: null });
    expect(b.vault.revealCalls).toBe(0);
  });

  it('a second pass without the item confirmed leaves it as it is and lists it again', async () => {
    await b.servers.add(prod(2222));
    await a.servers.add(prod(2222, { host: 'evil.example.org', username: 'root' }));
    const text = await readFile((await exportSettings(a.sources)).path, 'utf8');
    const second = await importSettings(b.sources, text, []);
    expect(second.imported).toEqual([]);
    expect(second.pending[0]?.changes).toEqual([
      { field: 'host', from: 'prod.example.org', to: 'evil.example.org' },
      { field: 'username', from: 'deploy', to: 'root' },
    ]);
    expect(b.servers.list()[0]).toMatchObject({ host: 'prod.example.org', username: 'deploy' });
  });

  it('a change that re-points nothing (a new label on the same host) is applied at once and keeps its secrets', async () => {
    await b.servers.add(prod(2222));
    const id = b.servers.list()[0]!.id;
    const file = { format: SETTINGS_EXPORT_FORMAT, formatVersion: 1, servers: [{ ...b.servers.list()[0], label: 'prod (eu)', tunnelLocalPort: 10099 }] };
    const result = await importSettings(b.sources, JSON.stringify(file));
    expect(result).toMatchObject({ imported: ['server prod (eu)'], pending: [], detached: [] });
    expect(b.servers.get(id)).toMatchObject({ label: 'prod (eu)', tunnelLocalPort: 10099, passwordSecretId: 'prod-pw' });
  });

  it('an added server that would use a password of this vault is held until confirmed; one this vault lacks is not', async () => {
    b.vault.put({ id: 'prod-pw', name: 'prod password', kind: 'ssh-password', llm: null }, `${CANARY}-pw`);
    await a.servers.add(prod(22, { label: 'new box', host: 'new.example.org' }));
    await a.servers.add(ServerProfileInput.parse({ label: 'other', host: 'other.example.org', username: 'u', passwordSecretId: 'not-here' }));
    const text = await readFile((await exportSettings(a.sources)).path, 'utf8');
    const first = await importSettings(b.sources, text);
    expect(first.imported).toEqual(['settings', 'server other']);
    expect(first.pending).toEqual([{ key: expect.stringMatching(/^server:/), kind: 'server', label: 'new box', changes: [{ field: 'passwordSecretId', from: null, to: 'prod-pw' }] }]);
    const second = await importSettings(b.sources, text, [first.pending[0]!.key]);
    expect(second.imported).toEqual(['server new box']);
    // Confirmed: that use of the password is what the user agreed to.
    expect(b.servers.list().find((s) => s.label === 'new box')).toMatchObject({ host: 'new.example.org', passwordSecretId: 'prod-pw' });
  });

  it("a profile's new engine or image is held back; confirmed, its vault env references are detached", async () => {
    await b.profiles.add(ProfileInput.parse({ label: 'qwen', engineId: 'local', image: '127.0.0.1:5000/agentjet:1', secretEnv: ['SWANLAB_API_KEY'], secretRefs: { SWANLAB_API_KEY: 'swan' } }));
    const here = b.profiles.list()[0]!;
    const file = { format: SETTINGS_EXPORT_FORMAT, formatVersion: 1, profiles: [{ ...here, image: 'docker.io/someone/agentjet:latest', gpus: { mode: 'none' } }] };
    const first = await importSettings(b.sources, JSON.stringify(file));
    expect(first.pending).toEqual([
      { key: `profile:${here.id}`, kind: 'profile', label: 'qwen', changes: [{ field: 'image', from: '127.0.0.1:5000/agentjet:1', to: 'docker.io/someone/agentjet:latest' }] },
    ]);
    expect(b.profiles.list()[0]).toMatchObject({ image: '127.0.0.1:5000/agentjet:1', gpus: { mode: 'all' } });
    const second = await importSettings(b.sources, JSON.stringify(file), [`profile:${here.id}`]);
    expect(second.detached).toEqual([{ kind: 'profile', label: 'qwen', field: 'SWANLAB_API_KEY', secretId: 'swan' }]);
    expect(b.profiles.list()[0]).toMatchObject({ image: 'docker.io/someone/agentjet:latest', secretRefs: {} });
  });
});
