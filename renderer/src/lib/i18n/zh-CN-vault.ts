import type { enVault } from './en-vault';

/** Simplified Chinese of `en-vault.ts`: the same keys (checked by type). */
export const zhCNVault: Record<keyof typeof enVault, string> = {
  'vault.title': '密钥',
};
