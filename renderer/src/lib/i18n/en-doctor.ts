/** English strings of the swarm doctor part (issue 13), spread into `en.ts`; zh-CN-doctor.ts has the same keys. */
export const enDoctor = {
  'doctor.placeholder': 'Doctor',
} as const;
