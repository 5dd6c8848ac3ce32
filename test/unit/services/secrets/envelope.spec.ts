import { describe, expect, it } from 'vitest';
import { SealBroken, aadOf, newDataKey, open, seal, secretAad, type BoundMeta } from '../../../../electron/services/secrets/envelope';

const meta: BoundMeta = {
  id: 'openai',
  kind: 'llm',
  name: 'OpenAI',
  llm: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
  createdAt: '2026-12-03T00:00:00.000Z',
  updatedAt: '2026-12-03T00:00:00.000Z',
  lastTest: null,
};

/** Flips one bit of a base64 field at `byte`. */
function flip(base64: string, byte: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[byte] = (bytes[byte] ?? 0) ^ 0x01;
  return bytes.toString('base64');
}

describe('envelope (AES-256-GCM, real node:crypto)', () => {
  it('opens what it sealed, with a fresh 96-bit nonce each time', () => {
    const key = newDataKey();
    const aad = secretAad(meta);
    const a = seal(key, Buffer.from('sk-value'), aad);
    const b = seal(key, Buffer.from('sk-value'), aad);
    expect(Buffer.from(a.nonce, 'base64')).toHaveLength(12);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.sealed).not.toBe(b.sealed);
    expect(open(key, a, aad).toString()).toBe('sk-value');
    expect(open(key, b, aad).toString()).toBe('sk-value');
  });

  it('rejects a changed ciphertext, tag or nonce, another key, and other authenticated data', () => {
    const key = newDataKey();
    const aad = secretAad(meta);
    const box = seal(key, Buffer.from('a secret value'), aad);
    const bodyLength = Buffer.from(box.sealed, 'base64').length;
    expect(() => open(key, { ...box, sealed: flip(box.sealed, 0) }, aad)).toThrow(SealBroken);
    expect(() => open(key, { ...box, sealed: flip(box.sealed, bodyLength - 1) }, aad)).toThrow(SealBroken);
    expect(() => open(key, { ...box, nonce: flip(box.nonce, 3) }, aad)).toThrow(SealBroken);
    expect(() => open(key, { ...box, sealed: Buffer.from(box.sealed, 'base64').subarray(0, 10).toString('base64') }, aad)).toThrow(SealBroken);
    expect(() => open(newDataKey(), box, aad)).toThrow(SealBroken);
    expect(() => open(key, box, aadOf('something else'))).toThrow(SealBroken);
  });

  it('binds every stored field of a secret: id, kind, name, LLM endpoint, dates, last test', () => {
    const key = newDataKey();
    const box = seal(key, Buffer.from('v'), secretAad(meta));
    const changed: BoundMeta[] = [
      { ...meta, id: 'other' },
      { ...meta, kind: 'ssh-password' },
      { ...meta, name: 'Other' },
      { ...meta, llm: { baseUrl: 'https://evil.example/v1', model: 'gpt-4o-mini' } },
      { ...meta, llm: null },
      { ...meta, createdAt: '2020-01-01T00:00:00.000Z' },
      { ...meta, lastTest: { ok: true, at: meta.createdAt, status: 200, latencyMs: 1, method: 'models', message: 'ok' } },
    ];
    for (const other of changed) expect(() => open(key, box, secretAad(other))).toThrow(SealBroken);
    expect(open(key, box, secretAad({ ...meta })).toString()).toBe('v');
  });
});
