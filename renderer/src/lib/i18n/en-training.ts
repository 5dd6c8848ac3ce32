/** English strings of the swarm training part (issue 13), spread into `en.ts`; zh-CN-training.ts has the same keys. */
export const enTraining = {
  'training.placeholder': 'Training',
} as const;
