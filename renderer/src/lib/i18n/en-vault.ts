/** English strings of the vault part (issue 14), spread into `en.ts`; zh-CN-vault.ts has the same keys. */
export const enVault = {
  'vault.title': 'Secrets',
};
