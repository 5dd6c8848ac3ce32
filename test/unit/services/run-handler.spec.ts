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
});
