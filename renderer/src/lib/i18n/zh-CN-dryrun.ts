import type { enDryrun } from './en-dryrun';

/** Simplified Chinese of `en-dryrun.ts`: the same keys (checked by type). */
export const zhCNDryrun: Record<keyof typeof enDryrun, string> = {
  'dryrun.title': '本机（试运行，无 GPU）',
};
