import type { enFleetAlerts } from './en-fleet-alerts';

/** Simplified Chinese of `en-fleet-alerts.ts`: the same keys (checked by type). */
export const zhCNFleetAlerts: Record<keyof typeof enFleetAlerts, string> = {
  'fleet.say.gpusIdle': '{n} 块 GPU 的利用率低于 {pct} % 已有 {minutes} 分钟',
  'fleet.say.stalled': '第 {step} 步之后 {minutes} 分钟没有新的步（每步通常需要 {seconds} 秒）',
  'fleet.say.stalledStepTimeUnknown': '第 {step} 步之后 {minutes} 分钟没有新的步（还不知道每步需要多久）',
  'fleet.say.noClient': '引擎处于 ROLLING 状态，但已有 {minutes} 分钟没有活动的客户端',
  'fleet.say.rewardNotANumber': '平均奖励不是数字（{value}）',
  'fleet.say.rewardDrop': '平均奖励在 {steps} 步内从 {from} 降到了 {to}',
  'fleet.say.diskOf': '{path} 所在的磁盘已用 {pct} %',
  'fleet.say.disk': '磁盘已用 {pct} %',
  'fleet.say.slurmLimitIn': 'Slurm 作业 {job} 约 {seconds} 秒后达到时间限制：届时训练将停止；请保存检查点，或用更长的时间限制重新启动。',
  'fleet.say.slurmLimitSoon': 'Slurm 作业 {job} 即将达到时间限制：届时训练将停止；请保存检查点，或用更长的时间限制重新启动。',
};
