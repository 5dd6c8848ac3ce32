import type { SwarmStatus } from '../../shared/schemas';
import type { EngineMemory } from './engine-view';
import type { PollerGroup } from './poller-groups';
import type { TargetPoller } from './target-poller';
import type { WatchTarget } from './watch-types';

/** What the swarm monitor keeps of one watched server (engine:container). */
export type Watch = {
  key: string;
  target: WatchTarget;
  status: SwarmStatus;
  stopped: boolean;
  /** The schedule, connection and last reading of this server (shared with its other engine's watch: poller-groups.ts). */
  poller: TargetPoller;
  group: PollerGroup<Watch>;
  direct: boolean;
  /** A "still running?" question is out: asked beside the polls, one at a time. */
  checkingRunning: boolean;
  lastRunningCheckAt: number;
  memory: EngineMemory;
};

/** How many of the newest log lines are read to explain a boot. */
export const BOOT_LOG_LINES = 200;

/** What is compared to decide whether a status is news: not the poll or answer times. */
export function withoutTime(status: SwarmStatus): string {
  const { checkedAt: _checkedAt, confirmedAt: _confirmedAt, ...rest } = status;
  return JSON.stringify(rest);
}
