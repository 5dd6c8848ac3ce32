import { describe, expect, it } from 'vitest';
import { llmSecretEnv, revealRefs } from '../../../../electron/services/secrets/secret-env';
import { MemoryVault } from '../../../support/memory-vault';

async function vault(): Promise<MemoryVault> {
  const v = new MemoryVault();
  await v.save({ id: 'llm', name: 'LLM', kind: 'llm', value: 'sk-env-canary-000000000000', llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } });
  await v.save({ id: 'swan', name: 'SwanLab', kind: 'swanlab', value: 'swan-value-1', llm: null });
  return v;
}

describe('secret-env: secrets reach child processes as env only', () => {
  it('gives an LLM endpoint as OPENAI_API_KEY/OPENAI_BASE_URL and AgentJet\'s API_KEY/BASE_URL', async () => {
    expect(await llmSecretEnv(await vault(), 'llm')).toEqual({
      OPENAI_API_KEY: 'sk-env-canary-000000000000',
      API_KEY: 'sk-env-canary-000000000000',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_BASE: 'http://127.0.0.1:9/v1',
    });
  });

  it('refuses a secret that is not an LLM endpoint, and a missing one', async () => {
    const v = await vault();
    await expect(llmSecretEnv(v, 'swan')).rejects.toMatchObject({ code: 'SECRET_WRONG_KIND', message: expect.stringContaining('takes an LLM endpoint key, and "SwanLab" is a SwanLab key') });
    await expect(llmSecretEnv(v, 'gone')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
  });

  it('revealRefs names the variable and what to do for a locked vault and a missing secret', async () => {
    const v = await vault();
    expect(await revealRefs(v, { SWANLAB_API_KEY: 'swan' }, '"p"')).toEqual({ SWANLAB_API_KEY: 'swan-value-1' });
    await expect(revealRefs(v, { X_KEY: 'gone' }, '"p"')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND', message: expect.stringContaining('Choose another secret for X_KEY') });
    // An LLM key is not env: a container could send it anywhere. Refused before it is read.
    const reveals = v.reveals;
    await expect(revealRefs(v, { OPENAI_API_KEY: 'llm' }, 'Profile p')).rejects.toMatchObject({ code: 'SECRET_WRONG_KIND', message: expect.stringContaining("Profile p's OPENAI_API_KEY takes a SwanLab key or a secret env value") });
    expect(v.reveals).toBe(reveals);
    v.locked = true;
    await expect(revealRefs(v, { SWANLAB_API_KEY: 'swan' }, '"p"')).rejects.toMatchObject({ code: 'VAULT_LOCKED', message: expect.stringContaining('"p" takes SWANLAB_API_KEY') });
  });
});
