import type { enDoctor } from './en-doctor';

/** Simplified Chinese of `en-doctor.ts`: the same keys (checked by type). */
export const zhCNDoctor: Record<keyof typeof enDoctor, string> = {
  'doctor.placeholder': 'Doctor',
};
