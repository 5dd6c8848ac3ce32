import type { enWorkerNotes } from './en-worker-notes';

/** Simplified Chinese of `en-worker-notes.ts`: the same keys (checked by type). */
export const zhCNWorkerNotes: Record<keyof typeof enWorkerNotes, string> = {
  'workers.where.local': '本机',
  'workers.noteSeparator': '；',
  'workers.noteSay.resumed': '已重新启动：它运行时应用被关闭了',
  'workers.noteSay.restarted': '已重新启动',
  'workers.noteSay.reshared': '以 {share} 个任务的份额重新启动：池中现在有 {workers} 个活动 worker',
  'workers.noteSay.keepsShare': '在重新启动之前保持 {share} 个任务的份额（按 {workers} 个 worker 的划分它应得 {splitShare} 个；较小的份额永远不会多领任务）',
  'workers.noteSay.reverseTunnel': '通过到本机的反向隧道连接 swarm 服务器：这个 worker 的每次 LLM 调用都经过本机及其到服务器的链路（更慢；本应用或其网络断开时，worker 就不再提供数据）',
  'workers.noteSay.projectThere': '项目 {hash} 已在那里',
  'workers.noteSay.projectSent': '项目 {hash}：发送了 {sent} 个文件，复用了 {reused} 个',
  'workers.noteSay.slurmTask': 'Slurm 数组作业 {array}，任务 {task}',
};
