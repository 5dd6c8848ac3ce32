import type { enWizard } from './en-wizard';

export const zhCNWizard: Record<keyof typeof enWizard, string> = {};
