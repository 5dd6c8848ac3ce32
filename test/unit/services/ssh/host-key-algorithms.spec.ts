// The host key order we hand to ssh2, run through ssh2's own list builder (not a copy of it): what the
// client really offers the server in KEXINIT.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { hostKeyAlgorithms, withHostKeyOrder } from '../../../../electron/services/ssh/host-key-algorithms';

const require = createRequire(import.meta.url);
const { generateAlgorithmList } = require('ssh2/lib/utils.js') as { generateAlgorithmList: (list: unknown, def: string[], sup: string[]) => string[] };
const { DEFAULT_SERVER_HOST_KEY, SUPPORTED_SERVER_HOST_KEY } = require('ssh2/lib/protocol/constants.js') as Record<string, string[]>;
const offered = (known: string[]) => generateAlgorithmList(hostKeyAlgorithms(known), DEFAULT_SERVER_HOST_KEY!, SUPPORTED_SERVER_HOST_KEY!);

describe('hostKeyAlgorithms (OpenSSH order_hostkeyalgs)', () => {
  it('keeps ssh2 defaults when nothing is known', () => {
    expect(hostKeyAlgorithms([])).toBeUndefined();
    expect(hostKeyAlgorithms(['sk-ssh-ed25519@openssh.com'])).toBeUndefined();
  });

  it('puts a known ECDSA key first, ahead of the ed25519 ssh2 prefers, and keeps every other algorithm', () => {
    const list = offered(['ecdsa-sha2-nistp256']);
    expect(list[0]).toBe('ecdsa-sha2-nistp256');
    expect([...list].sort()).toEqual([...DEFAULT_SERVER_HOST_KEY!].sort());
  });

  it('orders several known types in known_hosts order, RSA with SHA-2 signatures first', () => {
    expect(offered(['ssh-rsa', 'ssh-ed25519']).slice(0, 4)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519']);
  });

  it('leaves a serverHostKey the caller chose alone and keeps other preferences', () => {
    const chosen = { serverHostKey: ['ssh-ed25519' as const] };
    expect(withHostKeyOrder(chosen, ['ssh-rsa'])).toBe(chosen);
    const merged = withHostKeyOrder({ cipher: ['aes128-gcm@openssh.com'] }, ['ssh-rsa']);
    expect(merged?.cipher).toEqual(['aes128-gcm@openssh.com']);
    expect(merged?.serverHostKey).toBeDefined();
    expect(withHostKeyOrder(undefined, [])).toBeUndefined();
  });
});
