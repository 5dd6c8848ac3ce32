import type { PoolViewData, WorkerViewData } from '../../shared/schemas-workers';
import { isActive } from './pool-records';
import type { PoolRecordData } from './pool-store';
import type { WorkerLifecycle } from './worker-lifecycle';

/** A pool as the UI shows it: each worker's saved record with what its log said while the app ran. */
export function poolView(pool: PoolRecordData, lifecycle: WorkerLifecycle): PoolViewData {
  const workers = pool.workers.map((w): WorkerViewData => {
    const live = lifecycle.liveOf(pool.poolId, w.index);
    const running = w.state === 'running';
    return {
      index: w.index,
      placement: w.placement,
      where: lifecycle.backend(w).where(w.placement),
      state: w.state,
      exitCode: w.exitCode,
      signal: w.signal,
      pid: w.handle?.pid ?? null,
      jobId: w.handle?.jobId ?? null,
      batchShare: w.batchShare,
      parallelEpisodes: w.parallelEpisodes,
      clientUuid: live.progress.clientUuid,
      episodes: live.progress.episodes,
      failedEpisodes: live.progress.failedEpisodes,
      episodesPerMinute: running ? live.progress.perMinute() : null,
      llmCalls: live.progress.llmCalls,
      lastError: w.lastError,
      startedAt: w.startedAt,
      endedAt: w.endedAt,
      logLines: live.total,
      note: w.note,
      notes: w.notes,
    };
  });
  return {
    poolId: pool.poolId,
    label: pool.label,
    createdAt: pool.createdAt,
    state: pool.workers.some((w) => isActive(w.state)) ? 'running' : 'ended',
    swarm: pool.request.swarm,
    swarmUrl: pool.swarmUrl,
    split: pool.split,
    workers,
    episodesPerMinute: Math.round(workers.reduce((sum, w) => sum + (w.episodesPerMinute ?? 0), 0) * 10) / 10,
    episodes: workers.reduce((sum, w) => sum + w.episodes, 0),
  };
}
