import type { enLogs } from './en-logs';

/** Simplified Chinese of `en-logs.ts`: the same keys (checked by type). */
export const zhCNLogs: Record<keyof typeof enLogs, string> = {
  'logs.placeholder': 'Logs',
};
