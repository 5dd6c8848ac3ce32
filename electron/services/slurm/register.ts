import { AppError } from '../../shared/errors';
import type { DomainModule, ServiceContext } from '../domain';
import { SlurmEngine } from '../engines/slurm/slurm-engine';
import type { SlurmQueueAnswer } from '../engines/slurm/slurm-queue-watch';
import { clearEndedJobs } from './clear-jobs';
import { SlurmLimitWarnings, type SlurmLimitWarningsOptions } from './limit-warnings';

export type SlurmModule = DomainModule<'slurm'>;

/** What the jobs panel shows of an answer: a change in any of these is worth telling the renderer. */
function answerSignature(answer: SlurmQueueAnswer): string {
  const jobs = answer.jobs.map((j) => `${j.id}:${j.state}:${j.reason ?? ''}:${j.pendingPosition ?? ''}:${j.node ?? ''}:${j.exitCode ?? ''}`).sort();
  return `${jobs.join(',')}|${[...answer.records.keys()].sort().join(',')}`;
}

/**
 * `slurm:*`: what only a Slurm login node has: its queue of the app's jobs (the engines do the rest); and
 * the time-limit warnings of running jobs, told once each through the fleet's alert book. The jobs panel is
 * told of changes (`swarm:containers-changed` for the engine, when the queue poll's answer changed what it shows)
 * instead of polling; `slurm:jobs` reads the poll's newest answer, so windows cost the controller nothing.
 */
export function registerSlurm(context: ServiceContext, deps: { alerts?: SlurmLimitWarningsOptions['alerts'] } = {}): SlurmModule {
  const slurmEngines = () => context.engines.all().filter((e): e is SlurmEngine => e instanceof SlurmEngine);
  const warnings = new SlurmLimitWarnings({
    sources: () => slurmEngines().map((e) => ({ engineId: e.summary.id, jobViews: () => e.jobViews() })),
    notifier: context.notifier,
    logger: context.logger,
    // The fleet's alert book tells the warning (issue 33): one of its alerts, told once per job.
    ...(deps.alerts ? { alerts: deps.alerts } : {}),
  });
  const watched = new Map<string, { engine: SlurmEngine; off: () => void }>();
  const follow = () => {
    const engines = slurmEngines();
    for (const [engineId, w] of watched) {
      if (!engines.includes(w.engine)) {
        w.off();
        watched.delete(engineId);
      }
    }
    for (const engine of engines) {
      const engineId = engine.summary.id;
      if (watched.has(engineId)) continue;
      let last: string | null = null;
      const off = engine.queueWatch.subscribe((answer) => {
        const signature = answerSignature(answer);
        if (last !== null && signature !== last) context.events.emit('swarm:containers-changed', { engineId });
        last = signature;
      });
      watched.set(engineId, { engine, off });
    }
  };
  let stopFollowing: (() => void) | null = null;
  const engineOf = (engineId: string): SlurmEngine => {
    const engine = context.engines.get(engineId);
    if (!(engine instanceof SlurmEngine)) {
      throw new AppError('VALIDATION_FAILED', `${engine.summary.label} is not a Slurm login node: it has no job queue. Pick a server added as "Slurm (login node)".`);
    }
    return engine;
  };
  return {
    start: () => {
      warnings.start();
      follow();
      stopFollowing = context.engines.onChange(() => follow());
      return Promise.resolve();
    },
    dispose: () => {
      warnings.dispose();
      stopFollowing?.();
      for (const w of watched.values()) w.off();
      watched.clear();
    },
    handlers: {
      'slurm:jobs': async ({ engineId }) => engineOf(engineId).jobViews(),
      'slurm:clear': async ({ engineId, jobIds }) => {
        const result = await clearEndedJobs(engineOf(engineId), jobIds);
        context.events.emit('swarm:containers-changed', { engineId });
        return result;
      },
    },
  };
}
