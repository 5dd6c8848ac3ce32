/**
 * English of a fleet alert's detail (issue 32), worded from the facts the backend sends
 * (FleetAlert.say → `fleet.say.<key>`). Spread into `en.ts`; zh-CN-fleet-alerts.ts has the same keys.
 */
export const enFleetAlerts = {
  'fleet.say.gpusIdle': '{n} GPU(s) under {pct} % for {minutes} min',
  'fleet.say.stalled': 'no new step for {minutes} min after step {step} (a step takes {seconds} s)',
  'fleet.say.stalledStepTimeUnknown': 'no new step for {minutes} min after step {step} (how long a step takes is not known yet)',
  'fleet.say.noClient': 'no active client for {minutes} min while the engine is ROLLING',
  'fleet.say.rewardNotANumber': 'the mean reward is not a number ({value})',
  'fleet.say.rewardDrop': 'the mean reward fell from {from} to {to} over {steps} steps',
  'fleet.say.diskOf': 'the disk of {path} is {pct} % full',
  'fleet.say.disk': 'the disk is {pct} % full',
  'fleet.say.slurmLimitIn': 'Slurm job {job} reaches its time limit in about {seconds} s: training stops then; save a checkpoint or restart with a longer limit.',
  'fleet.say.slurmLimitSoon': 'Slurm job {job} reaches its time limit soon: training stops then; save a checkpoint or restart with a longer limit.',
} as const;
