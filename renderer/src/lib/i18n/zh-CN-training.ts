import type { enTraining } from './en-training';

/** Simplified Chinese of `en-training.ts`: the same keys (checked by type). */
export const zhCNTraining: Record<keyof typeof enTraining, string> = {
  'training.placeholder': 'Training',
};
