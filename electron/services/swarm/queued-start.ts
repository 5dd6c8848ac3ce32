import type { ContainerSpec } from '../engines/container-engine';

/*
 * Swarm servers that do not run right after start: a Slurm job waits in the queue (its container is
 * `created`, "queued: Resources (position 1)"), and once on a node it needs a moment to choose its port
 * and write its endpoint. Start returns with such a server; it is adopted (GPU check, URL, monitor)
 * when its engine reports its `start` event (register.ts). Pure helpers, unit-tested.
 */

/** A container that waits for its turn (a scheduler's queued job), as opposed to Docker's `created` (made, never started). */
export function isQueued(c: { state: string; statusText: string }): boolean {
  return c.state === 'created' && /^queued\b/i.test(c.statusText);
}

/** What the GPU check needs of a spec, kept from start until the queued job runs. */
export type GpuSpec = Pick<ContainerSpec, 'gpus' | 'runtime' | 'batch'>;

export function gpuSpecOf(spec: ContainerSpec): GpuSpec {
  return { gpus: spec.gpus, ...(spec.runtime ? { runtime: spec.runtime } : {}), ...(spec.batch ? { batch: spec.batch } : {}) };
}

export interface UrlWait {
  /** The engine's URL for the server (throws while it has none). */
  url: () => Promise<string>;
  /** Whether the server still runs: no use waiting for the URL of a job that was cancelled or ended. */
  running: () => Promise<boolean>;
  everyMs: number;
  forMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The server's URL once the engine has one: asked every `everyMs` for up to `forMs`. */
export async function waitForUrl(wait: UrlWait): Promise<{ url: string } | { url: null; why: string }> {
  const now = wait.now ?? Date.now;
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + wait.forMs;
  for (;;) {
    let last: string;
    try {
      return { url: await wait.url() };
    } catch (error) {
      last = String((error as Error)?.message ?? error);
    }
    if (!(await wait.running().catch(() => true))) return { url: null, why: 'it is not running any more' };
    if (now() >= deadline) return { url: null, why: `no URL within ${Math.round(wait.forMs / 1000)} s (${last})` };
    await sleep(wait.everyMs);
  }
}
