import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerProfileInput } from '../../../../electron/shared/schemas-servers';
import { KnownHostsFile } from '../../../../electron/services/ssh/known-hosts';
import { SecretPrompts } from '../../../../electron/services/ssh/secret-prompts';
import { ServerSession } from '../../../../electron/services/ssh/server-session';
import { MemoryVault } from '../../../support/memory-vault';

const sessions: ServerSession[] = [];
const dirs: string[] = [];
afterEach(async () => {
  while (sessions.length) await sessions.pop()!.dispose();
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

async function setup(refs: { passwordSecretId?: string; passphraseSecretId?: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'ssh-vault-'));
  dirs.push(dir);
  const vault = new MemoryVault();
  await vault.save({ id: 'gpu-pw', name: 'gpu password', kind: 'ssh-password', value: 'vault-password-1', llm: null });
  await vault.save({ id: 'key-pp', name: 'key passphrase', kind: 'ssh-passphrase', value: 'vault-passphrase-1', llm: null });
  const prompts = new SecretPrompts(() => undefined);
  const profile = { ...ServerProfileInput.parse({ label: 'gpu', host: '127.0.0.1', username: 'u', ...refs }), id: 'gpu' };
  const logged: string[] = [];
  const session = new ServerSession(profile, {
    profile,
    knownHosts: new KnownHostsFile(join(dir, 'known_hosts')),
    prompts,
    env: {},
    logger: { warn: (m) => logged.push(m), info: (m, meta) => logged.push(`${m} ${JSON.stringify(meta)}`) },
    onChange: () => undefined,
    vault,
  });
  sessions.push(session);
  return { session, vault, prompts, logged };
}

/** The vault is asked first (async), so the prompt shows a moment after the question. */
async function shownPrompt(prompts: SecretPrompts): Promise<string> {
  await expect.poll(() => prompts.current('gpu')).not.toBeNull();
  return prompts.current('gpu')!.promptId;
}

const password = { kind: 'password' as const, prompt: 'Password for u@127.0.0.1:22', echo: false };
const passphrase = { kind: 'passphrase' as const, prompt: 'Passphrase for /k', echo: false };

describe('SSH logins with vault secrets by reference', () => {
  it('uses the referenced password for the server and passphrase for key files, without asking', async () => {
    const { session, prompts } = await setup({ passwordSecretId: 'gpu-pw', passphraseSecretId: 'key-pp' });
    expect(await session.askSecret(true, password)).toBe('vault-password-1');
    expect(await session.askSecret(false, passphrase)).toBe('vault-passphrase-1');
    expect(prompts.current('gpu')).toBeNull();
  });

  it('asks the user for a jump host\'s password (the reference is the server\'s own) and when no secret is referenced', async () => {
    const { session, prompts } = await setup({ passwordSecretId: 'gpu-pw' });
    const jump = session.askSecret(false, password);
    const shown = prompts.current('gpu');
    expect(shown?.kind).toBe('password');
    prompts.answer(shown!.promptId, 'typed-1');
    expect(await jump).toBe('typed-1');
    const key = session.askSecret(true, passphrase);
    prompts.answer(await shownPrompt(prompts), 'typed-2');
    expect(await key).toBe('typed-2');
  });

  it('falls back to the prompt when the vault is locked or the secret is gone, and logs why without the value', async () => {
    const { session, vault, prompts, logged } = await setup({ passwordSecretId: 'gpu-pw', passphraseSecretId: 'missing' });
    vault.locked = true;
    const asked = session.askSecret(true, password);
    prompts.answer(await shownPrompt(prompts), 'typed-3');
    expect(await asked).toBe('typed-3');
    vault.locked = false;
    const asked2 = session.askSecret(true, passphrase);
    prompts.answer(await shownPrompt(prompts), 'typed-4');
    expect(await asked2).toBe('typed-4');
    expect(logged.join('\n')).toMatch(/VAULT_LOCKED[\s\S]*SECRET_NOT_FOUND/);
    expect(logged.join('\n')).not.toContain('vault-password-1');
  });
});
