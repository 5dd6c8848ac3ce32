import type { enWizardRun } from './en-wizard-run';

/** 向导第 3–5 步（swarm 服务器、调试回合、训练）。键与英文文件相同。 */
export const zhCNWizardRun: Record<keyof typeof enWizardRun, string> = {};
