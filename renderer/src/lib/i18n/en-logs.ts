/** English strings of the swarm logs part (issue 13), spread into `en.ts`; zh-CN-logs.ts has the same keys. */
export const enLogs = {
  'logs.placeholder': 'Logs',
} as const;
