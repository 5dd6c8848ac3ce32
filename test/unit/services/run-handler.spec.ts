import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../../electron/shared/errors';
import { runHandler } from '../../../electron/services/ipc/run-handler';

describe('runHandler', () => {
  const schema = z.object({ port: z.number().int().max(65535, 'port must be 65535 or lower') });

  it('returns ok with the value for a valid payload', async () => {
    await expect(runHandler(schema, { port: 10086 }, ({ port }) => port + 1)).resolves.toEqual({ ok: true, value: 10087 });
  });

  it('names the bad field for an invalid payload and never calls the handler', async () => {
    let called = false;
    const result = await runHandler(schema, { port: 70000 }, () => {
      called = true;
    });
    expect(called).toBe(false);
    expect(result).toEqual({ ok: false, error: { code: 'VALIDATION_FAILED', message: 'port: port must be 65535 or lower' } });
  });

  it('passes AppError codes through and hides the text of unexpected errors', async () => {
    const known = await runHandler(schema, { port: 1 }, () => {
      throw new AppError('PORT_IN_USE', 'Port 1 is in use');
    });
    expect(known).toEqual({ ok: false, error: { code: 'PORT_IN_USE', message: 'Port 1 is in use' } });
    const warnings: string[] = [];
    const unknown = await runHandler(
      schema,
      { port: 1 },
      () => {
        throw new Error('password=hunter2 leaked');
      },
      { warn: (m) => warnings.push(m) },
    );
    expect(unknown.ok).toBe(false);
    expect(JSON.stringify(unknown)).not.toContain('hunter2');
    expect(JSON.stringify(warnings)).not.toContain('hunter2');
    expect(!unknown.ok && unknown.error.code).toBe('INTERNAL');
  });

  it('caps what a validation error echoes: a 900 KB unknown key gives a short reply', async () => {
    const strict = z.object({ port: z.number() }).strict();
    const hugeKey = 'k'.repeat(900 * 1024);
    const result = await runHandler(strict, { port: 1, [hugeKey]: 1, [`${hugeKey}2`]: 2 }, () => 'never');
    expect(result.ok).toBe(false);
    const reply = JSON.stringify(result);
    expect(reply.length).toBeLessThan(2_000);
    expect(!result.ok && result.error.code).toBe('VALIDATION_FAILED');
    expect(!result.ok && result.error.message).toMatch(/kkkk/);
  });

  it('caps each echoed path and the number of issues', async () => {
    const many = z.object(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, z.number()])));
    const result = await runHandler(many, {}, () => 'never');
    const message = !result.ok ? result.error.message : '';
    expect(message).toMatch(/and 45 more$/);
    const deep = z.object({ a: z.record(z.string(), z.number()) });
    const deepResult = await runHandler(deep, { a: { ['p'.repeat(100_000)]: 'x' } }, () => 'never');
    expect(JSON.stringify(deepResult).length).toBeLessThan(1_000);
  });
});
