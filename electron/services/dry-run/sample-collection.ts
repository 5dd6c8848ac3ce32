/**
 * When a training step has collected enough, by the job's swarm_mode_sample_collection_method (upstream's
 * native_parallel_worker.py as documented in ajet_default.yaml; reference §5.1, §6.2 "Batching"):
 *   rollout_until_finish_enough_episodes         ≥ batch_size × num_repeat finished episodes
 *   rollout_until_finish_enough_tasks            ≥ batch_size task ids with ≥ num_repeat finished episodes each
 *   rollout_until_finish_enough_non_dummy_tasks  as above, counting only tasks whose rewards are not all equal
 *   rollout_until_any_client_agree_sync_weight   an active client has called agree_sync_weight
 *   rollout_until_all_clients_agree_sync_weight  there are active clients and every one has agreed
 * A batch that cannot complete stalls on the GPU server without a word; here the reason is said in plain text.
 */
import type { ActiveClient } from './engine-state';
import { defaultPool, type PoolInformation } from './swarm-models';
import type { SampleCollectionMethod } from './train-config';

export interface StepTargets {
  batchSize: number;
  numRepeat: number;
  method: SampleCollectionMethod;
}

export interface StepCounts {
  episodes: number;
  /** Task ids with num_repeat finished episodes. */
  tasks: number;
  /** Of those, the ones whose rewards are not all equal (GRPO learns nothing from a group with equal rewards). */
  nonDummyTasks: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The finished episodes of one training step, grouped by task id. */
export class StepCollection {
  private readonly episodesByTask = new Map<string, string[]>();
  private readonly rewardsByTask = new Map<string, number[]>();
  private episodeCount = 0;

  constructor(readonly targets: StepTargets) {}

  add(taskId: string, episodeUuid: string, reward: number): void {
    this.episodesByTask.set(taskId, [...(this.episodesByTask.get(taskId) ?? []), episodeUuid]);
    this.rewardsByTask.set(taskId, [...(this.rewardsByTask.get(taskId) ?? []), reward]);
    this.episodeCount += 1;
  }

  counts(): StepCounts {
    const full = [...this.episodesByTask.keys()].filter((task) => (this.episodesByTask.get(task)?.length ?? 0) >= this.targets.numRepeat);
    const nonDummy = full.filter((task) => new Set(this.rewardsByTask.get(task)).size > 1);
    return { episodes: this.episodeCount, tasks: full.length, nonDummyTasks: nonDummy.length };
  }

  /** Every reward of the batch (the step's reward statistics). */
  rewards(): number[] {
    return [...this.rewardsByTask.values()].flat();
  }

  get episodeTarget(): number {
    return this.targets.batchSize * this.targets.numRepeat;
  }

  isComplete(clients: readonly ActiveClient[]): boolean {
    const { batchSize, method } = this.targets;
    const c = this.counts();
    switch (method) {
      case 'rollout_until_finish_enough_episodes':
        return c.episodes >= this.episodeTarget;
      case 'rollout_until_finish_enough_tasks':
        return c.tasks >= batchSize;
      case 'rollout_until_finish_enough_non_dummy_tasks':
        return c.nonDummyTasks >= batchSize;
      case 'rollout_until_any_client_agree_sync_weight':
        return clients.some((client) => client.allowed_sync_weight);
      case 'rollout_until_all_clients_agree_sync_weight':
        return clients.length > 0 && clients.every((client) => client.allowed_sync_weight);
    }
  }

  /** Why the step ended, for the trace: "batch complete: 2 tasks × 2 episodes (rollout_until_finish_enough_tasks)". */
  completionReason(clients: readonly ActiveClient[]): string {
    const { batchSize, numRepeat, method } = this.targets;
    const c = this.counts();
    switch (method) {
      case 'rollout_until_finish_enough_episodes':
        return `batch complete: ${c.episodes} of ${this.episodeTarget} episodes finished (${method})`;
      case 'rollout_until_finish_enough_tasks':
        return `batch complete: ${c.tasks} of ${batchSize} tasks have ${numRepeat} finished episodes each (${method})`;
      case 'rollout_until_finish_enough_non_dummy_tasks':
        return `batch complete: ${c.nonDummyTasks} of ${batchSize} tasks have ${numRepeat} episodes with differing rewards (${method})`;
      case 'rollout_until_any_client_agree_sync_weight':
      case 'rollout_until_all_clients_agree_sync_weight': {
        const agreed = clients.filter((client) => client.allowed_sync_weight).length;
        return `batch complete: ${agreed} of ${plural(clients.length, 'active client')} agreed to sync weights after ${plural(c.episodes, 'episode')} (${method})`;
      }
    }
  }

  /**
   * Why the batch is not complete although the episodes a correct client would have sent are in (at least
   * batch_size × num_repeat finished); null while it is still simply collecting. Names the likely mistake.
   */
  stallReason(clients: readonly ActiveClient[]): string | null {
    const { batchSize, numRepeat, method } = this.targets;
    const c = this.counts();
    if (c.episodes < this.episodeTarget || this.isComplete(clients)) return null;
    const sizes = [...this.episodesByTask.values()].map((episodes) => episodes.length);
    const short = sizes.filter((n) => n < numRepeat).length;
    switch (method) {
      case 'rollout_until_finish_enough_tasks':
      case 'rollout_until_finish_enough_non_dummy_tasks': {
        const shortText = short > 0 ? `; the others: ${describeSizes(sizes.filter((n) => n < numRepeat))}` : '';
        const grouping =
          `${c.episodes} episodes finished, but only ${c.tasks} of ${batchSize} tasks have num_repeat=${numRepeat} episodes${shortText}. ` +
          `The batch completes when ${batchSize} task ids each get ${numRepeat} episodes: submit every task num_repeat times with the same task_id (task_id grouping?).`;
        if (method === 'rollout_until_finish_enough_tasks' || c.tasks < batchSize) return grouping;
        return (
          `${c.tasks} tasks have ${numRepeat} episodes each, but only ${c.nonDummyTasks} of ${batchSize} needed have rewards that differ ` +
          `(${method} skips tasks whose episodes all got the same reward): check that the reward varies.`
        );
      }
      case 'rollout_until_any_client_agree_sync_weight':
      case 'rollout_until_all_clients_agree_sync_weight': {
        if (clients.length === 0) {
          return `${c.episodes} episodes finished but no client is active: ${method} needs a client that ended a rewarded episode (end_episode with declare_client_active) and then called agree_sync_weight.`;
        }
        const agreed = clients.filter((client) => client.allowed_sync_weight).length;
        const need = method === 'rollout_until_any_client_agree_sync_weight' ? 'one' : 'all';
        return `${c.episodes} episodes finished; ${agreed} of ${plural(clients.length, 'active client')} called agree_sync_weight and ${method} waits for ${need}.`;
      }
      case 'rollout_until_finish_enough_episodes':
        return null;
    }
  }

  /** The pool information upstream's trainer pushes about every 12 s (here: on every change). */
  poolInformation(): PoolInformation {
    const { batchSize, numRepeat, method } = this.targets;
    const c = this.counts();
    return {
      ...defaultPool(),
      sample_collection_method: method,
      completed_episodes: c.episodes,
      completed_episode_target: this.episodeTarget,
      completed_tasks: c.tasks,
      completed_task_target: batchSize,
      completed_non_dummy_tasks: c.nonDummyTasks,
      completed_non_dummy_task_target: batchSize,
      task_expected_num_repeat: numRepeat,
      completed_tasks_details: Object.fromEntries([...this.episodesByTask].map(([task, episodes]) => [task, [...episodes]])),
      completed_tasks_rewards: Object.fromEntries([...this.rewardsByTask].map(([task, rewards]) => [task, [...rewards]])),
    };
  }
}

/** "6 tasks have 1, 1 task has 3" from the episode counts of the short tasks. */
function describeSizes(sizes: number[]): string {
  const byCount = new Map<number, number>();
  for (const n of sizes) byCount.set(n, (byCount.get(n) ?? 0) + 1);
  return [...byCount.entries()]
    .sort(([a], [b]) => a - b)
    .map(([episodes, tasks]) => `${plural(tasks, 'task')} with ${plural(episodes, 'episode')}`)
    .join(', ');
}
