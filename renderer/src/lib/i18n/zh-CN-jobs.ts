import type { enJobs } from './en-jobs';

export const zhCNJobs: Record<keyof typeof enJobs, string> = {};
