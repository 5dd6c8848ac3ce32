import { GIB } from '../../shared/defaults';
import type { EngineHealth, EngineProduct } from '../../shared/schemas';
import type { DoctorCheck, DoctorCheckId, Profile } from '../../shared/schemas-profiles';
import { shellQuote, type ContainerEngine, type ContainerSummary, type EngineInfo, type HostExecResult, type ImageInfo } from '../engines/container-engine';
import { LABEL_PROFILE } from '../engines/container-engine';

/** What a check finds: a DoctorCheck without its id (the runner adds it). */
export type Finding = Omit<DoctorCheck, 'id'>;

/**
 * What every check may ask, each answer fetched once per run and shared: the checks run at the same
 * time, and three of them need `docker info`.
 */
export interface CheckContext {
  readonly profile: Profile;
  readonly engine: ContainerEngine;
  /** Where a command for the engine's host runs: this computer for local Docker, else the server. */
  readonly where: 'server' | 'local';
  /** How messages name the engine's host: "this computer", "gpu-1 (alice@10.0.0.5)". */
  readonly hostLabel: string;
  health(): Promise<EngineHealth>;
  /** Docker or Podman, as the engine answers (or its kind says when it does not); null when neither tells. */
  product(): Promise<EngineProduct | null>;
  /** Rootless engine; null when nothing tells (the engine does not answer and there is no shell on its host). */
  rootless(): Promise<boolean | null>;
  info(): Promise<EngineInfo>;
  image(): Promise<ImageInfo | null>;
  /** The containers (and native runs) of this profile, as the engine lists them by label. */
  ownContainers(): Promise<ContainerSummary[]>;
  /** Runs a POSIX script on the engine's host; only called by checks after `hostOrSkip`. */
  exec(script: string, timeoutMs?: number): Promise<HostExecResult>;
}

export type Check = (context: CheckContext) => Promise<Finding>;

export { GIB } from '../../shared/defaults';

/**
 * The facts of a detail for the renderer's words (DoctorCheck.say): `doctor.say.<key>` words the
 * detail and, for a warning or failure, `doctor.sayFix.<key>` the fix, both from `params`. The
 * English detail and fix stay beside them (logs, tests, a renderer without the key).
 */
export type Say = NonNullable<DoctorCheck['say']>;

export function say(key: string, params: Say['params'] = {}): Say {
  return { key, params };
}

/** The engine's host as data: '' is this computer (worded by the renderer), else the server's label. */
export function hostParam(context: Pick<CheckContext, 'where' | 'hostLabel'>): string {
  return context.where === 'local' ? '' : context.hostLabel;
}

export function pass(detail: string, words?: Say): Finding {
  return { status: 'pass', detail, fix: null, command: null, commandWhere: null, ...(words ? { say: words } : {}) };
}

export function skip(detail: string, words?: Say): Finding {
  return { status: 'skip', detail, fix: null, command: null, commandWhere: null, ...(words ? { say: words } : {}) };
}

export function problem(
  status: 'warn' | 'fail',
  detail: string,
  fix: string,
  command: string | null = null,
  where: 'server' | 'local' | null = null,
  words?: Say,
): Finding {
  return { status, detail, fix, command, commandWhere: command === null ? null : where, ...(words ? { say: words } : {}) };
}

/** Why host checks cannot run on this engine (no shell there), or null when they can. */
export function noHostReason(context: CheckContext): string | null {
  if (context.engine.host) return null;
  return `The app cannot run commands on this engine's host (${context.engine.summary.endpoint}: Docker on Windows, or a remote DOCKER_HOST without SSH), so this was not checked there.`;
}

/** The skip of a host check on an engine without a shell on its host, as data. */
export function noHostSkip(context: CheckContext, why: string): Finding {
  return skip(why, say('noHost', { endpoint: context.engine.summary.endpoint }));
}

/**
 * A host path as a sh word: `~/models/x` → `"$HOME"/'models/x'` (a quoted `~` would not expand),
 * anything else single-quoted.
 */
export function hostPathWord(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

/** The engine's own CLI name in copyable commands: "docker", "podman". */
export function cli(context: CheckContext): string {
  return context.engine.wording.product.toLowerCase();
}

export function gib(bytes: number): string {
  const value = bytes / GIB;
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} GiB`;
}

/** Labels that find this profile's own container(s). */
export function profileLabels(profile: Profile): Record<string, string> {
  return { [LABEL_PROFILE]: profile.id };
}

/** Runs `work` at most `timeoutMs`; a check that hangs (a stuck nvidia-smi, a dead SSH link) ends as a warning. */
export async function withTimeout(id: DoctorCheckId, work: () => Promise<Finding>, timeoutMs: number): Promise<DoctorCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Finding>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          status: 'warn',
          detail: `This check did not finish within ${Math.round(timeoutMs / 1000)} s, so its result is unknown.`,
          fix: 'Run the doctor again; if it keeps timing out, the engine or its host is overloaded or a command there hangs.',
          command: null,
          commandWhere: null,
          say: say('timedOut', { seconds: Math.round(timeoutMs / 1000) }),
        }),
      timeoutMs,
    );
  });
  try {
    const finding = await Promise.race([
      work().catch(
        (error: unknown): Finding => ({
          status: 'warn',
          detail: `This check could not run: ${(error as Error)?.message ?? String(error)}`,
          fix: 'Run the doctor again once the engine and its host answer.',
          command: null,
          commandWhere: null,
          // What went wrong is the failing call's own text: quoted as it is after the words.
          say: say('couldNotRun', { said: (error as Error)?.message ?? String(error) }),
        }),
      ),
      timeout,
    ]);
    return { id, ...finding };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A check that asks the engine's API: skipped when the engine does not answer (the first two checks
 * already say why), instead of repeating the same connection error in every line.
 */
export function needsEngine(check: Check): Check {
  return async (c) => {
    if (c.profile.mode === 'container') {
      const health = await c.health();
      if (!health.reachable) return skip(`${c.engine.wording.product} does not answer, so this could not be checked (see the first checks).`, say('engineSilent', { product: c.engine.wording.product }));
    }
    return check(c);
  };
}
