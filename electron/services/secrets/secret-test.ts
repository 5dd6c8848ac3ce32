import { AppError } from '../../shared/errors';
import type { SecretTestResult } from '../../shared/schemas-vault';
import type { SecretVaultApi } from './vault-api';

/**
 * PLACEHOLDER (integrator, issue 14): the vault-use helper builds it. Tests a secret for real:
 * an LLM endpoint with GET {base}/models, or a 1-token chat completion where that route is missing.
 */
export async function testSecret(_vault: SecretVaultApi, _id: string): Promise<SecretTestResult> {
  throw new AppError('INTERNAL', 'Testing secrets is not built yet.');
}
