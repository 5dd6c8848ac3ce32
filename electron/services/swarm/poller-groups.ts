import type { TargetPoller } from './target-poller';
import type { WatchTarget } from './watch-types';

/** A Docker container id: 64 hex digits, random per daemon, so the same id under two engines is one container. */
const DOCKER_ID = /^[0-9a-f]{64}$/;

export interface GroupMember {
  target: WatchTarget;
  /** Reached without a tunnel: the better of two URLs to the same server. */
  direct: boolean;
}

/** The watches that share one poller: one server, reached through one or more engines. */
export class PollerGroup<M extends GroupMember> {
  members: M[] = [];
  poller!: TargetPoller;

  /** The member whose URL the poller asks: a direct one when there is one. */
  polled(): M | undefined {
    return this.members.find((m) => m.direct) ?? this.members[0];
  }
}

/**
 * One poller per swarm server, whichever engines reach it. A Docker daemon reached both as local
 * Docker and over SSH (the test bed's case) lists each container under both engines, with the
 * same id; both watches (and both statuses) stay, but they share one poller, which asks through
 * the direct URL when one of them has it. Other ids (native runs, Slurm jobs) are never shared.
 */
export class PollerGroups<M extends GroupMember> {
  private readonly shared = new Map<string, PollerGroup<M>>();

  /** The group `member` joins (`created`: a new one, whose poller `create` made; start it). */
  join(member: M, create: (group: PollerGroup<M>) => TargetPoller): { group: PollerGroup<M>; created: boolean } {
    const id = member.target.containerId;
    const existing = DOCKER_ID.test(id) ? this.shared.get(id) : undefined;
    if (existing) {
      existing.members.push(member);
      existing.poller.moveTo(existing.polled()!.target);
      return { group: existing, created: false };
    }
    const group = new PollerGroup<M>();
    group.members.push(member);
    group.poller = create(group);
    if (DOCKER_ID.test(id)) this.shared.set(id, group);
    return { group, created: true };
  }

  /** A member's target moved (a new tunnel port): the poller asks through the right URL. */
  moved(group: PollerGroup<M>): void {
    group.poller.moveTo(group.polled()!.target);
  }

  /** `member` stops watching: the poller stops with the last member, else asks through a URL of those left. */
  leave(member: M, group: PollerGroup<M>): void {
    group.members = group.members.filter((m) => m !== member);
    if (group.members.length > 0) return this.moved(group);
    group.poller.stop();
    if (this.shared.get(member.target.containerId) === group) this.shared.delete(member.target.containerId);
  }
}
