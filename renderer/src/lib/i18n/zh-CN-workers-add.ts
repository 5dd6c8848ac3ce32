import type { enWorkersAdd } from './en-workers-add';

/** 为含 Slurm 工作进程的池“添加工作进程”（issue 34）。键与 en-workers-add.ts 相同。 */
export const zhCNWorkersAdd: Record<keyof typeof enWorkersAdd, string> = {
  'workers.addSlurm.count': '再加 Slurm 工作进程',
  'workers.addSlurm.show': '显示添加 {count} 个的 Slurm 脚本',
  'workers.addSlurm.title': '加入此池：将要提交的 Slurm 作业数组',
  'workers.addSlurm.restarts': '{count} 个正在运行的 Slurm 工作进程将以更小的份额在此数组中重启，使整个池占用的任务不超过一个批次。',
  'workers.addSlurm.submit': '提交并添加 {count} 个工作进程',
};
