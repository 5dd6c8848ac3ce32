import type { DoctorCheck, DoctorReport, Profile } from '../../shared/schemas-profiles';
import type { EngineHealth } from '../../shared/schemas';
import type { ContainerEngine, ContainerSummary, EngineInfo, ImageInfo } from '../engines/container-engine';
import type { EngineRegistry } from '../engines/engine-registry';
import type { EventSink } from '../events';
import type { ProfileStore } from '../profiles/profile-store';
import type { Logger } from '../util/logger';
import { profileLabels, withTimeout, type CheckContext } from './check-kit';
import { plannedChecks, productOf, scopeOf } from './check-plan';

export { DOCTOR_CHECKS } from './check-plan';

/** Each check's own limit: a hung one ends as a warning and never holds up the others. */
export const CHECK_TIMEOUT_MS = 20_000;

export interface DoctorServiceOptions {
  engines: EngineRegistry;
  profiles: ProfileStore;
  events: EventSink;
  logger?: Logger;
  checkTimeoutMs?: number;
}

/** Shares one answer per question between the checks of one run (they run at the same time). */
function once<T>(fetch: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | null = null;
  return () => (promise ??= fetch());
}

function verdictOf(checks: DoctorCheck[]): DoctorReport['verdict'] {
  if (checks.some((c) => c.status === 'fail')) return 'fail';
  if (checks.some((c) => c.status === 'warn')) return 'warn';
  return 'pass';
}

/**
 * The preflight doctor: all checks of a profile on its engine at once, each with its own timeout;
 * the last report per profile kept in memory for this run and pushed as `doctor:report`.
 */
export class DoctorService {
  private readonly reports = new Map<string, DoctorReport>();
  private readonly running = new Map<string, Promise<DoctorReport>>();

  private readonly unsubscribe: () => void;

  constructor(private readonly options: DoctorServiceOptions) {
    // A removed profile's report goes with it (its id may be given to a new profile later).
    this.unsubscribe = options.profiles.onChange(() => {
      const ids = new Set(options.profiles.list().map((p) => p.id));
      for (const id of this.reports.keys()) if (!ids.has(id)) this.reports.delete(id);
    });
  }

  /** Stops following the shared profile store (the app, or a test's services, is shutting down). */
  dispose(): void {
    this.unsubscribe();
  }

  /** Runs the doctor for a profile; a second call while one runs gets the same report (Start and a click at once). */
  run(profileId: string): Promise<DoctorReport> {
    const current = this.running.get(profileId);
    if (current) return current;
    const run = this.runOnce(profileId).finally(() => this.running.delete(profileId));
    this.running.set(profileId, run);
    return run;
  }

  /** The last report of every profile. */
  list(): DoctorReport[] {
    return [...this.reports.values()];
  }

  private async runOnce(profileId: string): Promise<DoctorReport> {
    const profile = this.options.profiles.get(profileId);
    const engine = this.options.engines.get(profile.engineId);
    const started = Date.now();
    const context = this.contextFor(profile, engine);
    const timeoutMs = this.options.checkTimeoutMs ?? CHECK_TIMEOUT_MS;
    // Which checks apply depends on the engine (Docker or Podman, rootless or not): asked first, within the same limit.
    const scope = await scopeOf(context, timeoutMs);
    const checks = await Promise.all(plannedChecks(scope).map(([id, check]) => withTimeout(id, () => check(context), timeoutMs)));
    const report: DoctorReport = {
      profileId,
      engineId: profile.engineId,
      ranAt: new Date().toISOString(),
      durationMs: Math.max(0, Math.round(Date.now() - started)),
      verdict: verdictOf(checks),
      checks,
    };
    // Removed while its checks ran: answer the caller, keep nothing.
    if (this.options.profiles.list().some((p) => p.id === profileId)) this.reports.set(profileId, report);
    const failing = checks.filter((c) => c.status === 'fail').map((c) => c.id);
    this.options.logger?.info?.(`doctor ${profileId} on ${profile.engineId}: ${report.verdict}${failing.length ? ` (${failing.join(', ')})` : ''} in ${report.durationMs} ms`);
    this.options.events.emit('doctor:report', report);
    return report;
  }

  private contextFor(profile: Profile, engine: ContainerEngine): CheckContext {
    const host = engine.host;
    const health = once<EngineHealth>(() => engine.health());
    const info = once<EngineInfo>(() => engine.info());
    return {
      profile,
      engine,
      where: host?.kind === 'local' ? 'local' : 'server',
      hostLabel: host?.label ?? engine.summary.label,
      health,
      info,
      product: once(async () => productOf(engine.summary.kind, await health().catch(() => null))),
      rootless: once(async () => {
        const answer = await health().catch(() => null);
        if (typeof answer?.rootless === 'boolean') return answer.rootless;
        // Docker's /info lists "rootless" among its security options; Podman 4.3's compat /info does not
        // (measured), so only a yes from it is believed.
        if (answer?.reachable && (await info().then((i) => i.rootless, () => false))) return true;
        // Rootful Podman's socket is root's alone, so a user other than root on the engine's host uses
        // rootless Podman.
        if (!host) return null;
        const id = await host.exec('id -u', { timeoutMs: 5_000 }).catch(() => null);
        const uid = id?.code === 0 ? id.stdout.trim() : '';
        return /^\d+$/.test(uid) ? uid !== '0' : null;
      }),
      image: once<ImageInfo | null>(() => engine.inspectImage(profile.image)),
      ownContainers: once<ContainerSummary[]>(() => engine.listContainers(profileLabels(profile))),
      exec: (script, timeoutMs) => {
        if (!host) return Promise.reject(new Error('no shell on the engine host'));
        return host.exec(script, timeoutMs === undefined ? {} : { timeoutMs });
      },
    };
  }
}
