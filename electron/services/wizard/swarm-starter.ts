import { AppError } from '../../shared/errors';
import { DRY_RUN_CONTAINER_ID, DRY_RUN_ENGINE_ID, DryRunStartRequest } from '../../shared/schemas-dryrun';
import { ProfileStartRequest } from '../../shared/schemas-profiles';
import type { SwarmStatus } from '../../shared/schemas';
import type { SwarmChoiceData, WizardStateData } from '../../shared/schemas-wizard';
import type { Handlers } from '../ipc/handlers';
import type { ProfileStore } from '../profiles/profile-store';
import { SwarmHttpClient } from '../swarm/swarm-http-client';

type SwarmView = NonNullable<WizardStateData['swarm']>;
export type SwarmProgress = Partial<Pick<SwarmView, 'phase' | 'detail' | 'say' | 'engineId' | 'containerId' | 'url'>>;

export interface SwarmWaits {
  /** Until the swarm monitor lists the container with a URL (the tunnel's, for SSH). */
  statusMs: number;
  /** Until GET <url>/health answers `{"status": "ok"}` (a container's HTTP server starts in seconds; booting the model comes later). */
  healthMs: number;
  /** Between two looks at the statuses or /health. */
  pollMs: number;
  /** Between two looks at whether the server is a job still waiting in a queue (asks the scheduler: seldom). */
  queueCheckMs?: number;
}

const QUEUE_CHECK_MS = 5000;
export const DEFAULT_SWARM_WAITS: SwarmWaits = { statusMs: 60_000, healthMs: 180_000, pollMs: 500 };

export interface SwarmStartDeps {
  handlers: () => Handlers;
  profiles: ProfileStore;
  /** Persists the phase and sends `wizard:changed`. */
  progress: (patch: SwarmProgress) => Promise<void>;
  waits: SwarmWaits;
}

export interface DebugLlm {
  secretId: string;
  baseUrl: string;
  model: string;
}

/**
 * Brings the chosen swarm server up through the other domains' handlers (the same checks the
 * pages use; never Docker or SSH directly): the dry run with the wizard's LLM, or a profile
 * (its SSH server connected first, its doctor inside `profiles:start`), then waits for the
 * monitor's URL and for `/health`. Returns the target once healthy; every failure is an AppError
 * whose message says what to do (DOCTOR_FAILED passes through with the doctor's findings).
 */
export async function startSwarm(
  choice: SwarmChoiceData,
  llm: DebugLlm,
  deps: SwarmStartDeps,
  options: { restartDryRun?: boolean } = {},
): Promise<{ engineId: string; containerId: string; url: string }> {
  const handlers = deps.handlers();
  let engineId: string;
  let containerId: string;
  if (choice.kind === 'dry-run') {
    engineId = DRY_RUN_ENGINE_ID;
    containerId = DRY_RUN_CONTAINER_ID;
    const view = await handlers['dryrun:view']({});
    const startOurs = async (): Promise<void> => {
      await deps.progress({ phase: 'starting', detail: `starting the dry run with ${llm.model}`, say: { key: 'dryRunStarting', params: { model: llm.model } }, engineId, containerId, url: null });
      // The contract's defaults (port, boot delay, spend limits) filled in by its own schema.
      await handlers['dryrun:start'](DryRunStartRequest.parse({ config: { llm: { baseUrl: llm.baseUrl, model: llm.model, secretId: llm.secretId } } }));
    };
    if (view.state !== 'running') {
      await startOurs();
    } else {
      // A dry run already running (started on the Servers page) relays to ITS LLM: with another one
      // the debug episode would test the wrong endpoint. Stopping it is the user's call ("Restart").
      const differs = llmDifference(view.config?.llm ?? null, llm);
      if (differs !== null && options.restartDryRun) {
        await deps.progress({ phase: 'starting', detail: 'stopping the dry run that used another LLM', say: { key: 'dryRunRestarting', params: {} }, engineId, containerId, url: null });
        await handlers['dryrun:stop']({});
        await startOurs();
      } else if (differs !== null) {
        throw new AppError('DRY_RUN_STATE', differs.message, { params: { holder: 'wizard-other-llm', differs: differs.what, model: llm.model, baseUrl: llm.baseUrl } });
      }
    }
  } else {
    const profile = deps.profiles.get(choice.profileId);
    engineId = profile.engineId;
    const server = (await handlers['servers:list']({})).find((s) => s.engineId === profile.engineId);
    if (server && server.state !== 'up') {
      await deps.progress({ phase: 'connecting', detail: `connecting to ${server.profile.label} over SSH`, say: { key: 'connecting', params: { server: server.profile.label } }, engineId, containerId: null, url: null });
      await handlers['servers:connect']({ serverId: server.profile.id });
    }
    await deps.progress({ phase: 'doctor', detail: `checking "${profile.label}" (doctor), then starting it`, say: { key: 'doctor', params: { profile: profile.label } }, engineId, containerId: null, url: null });
    const started = await handlers['profiles:start'](ProfileStartRequest.parse({ profileId: profile.id }));
    const container = started.runtime.container;
    if (!container) throw new AppError('CONTAINER_START_FAILED', `"${profile.label}" did not report a container after starting. Open the Servers page to see its state and log.`);
    containerId = container.id;
    await deps.progress({ phase: server ? 'tunnel' : 'starting', detail: server ? 'waiting for the tunnel to the swarm port' : 'waiting for the container to be watched',
      say: { key: server ? 'tunnel' : 'watching', params: {} },
      engineId, containerId });
  }
  const url = await waitForUrl(handlers, engineId, containerId, deps.waits, deps.progress);
  await deps.progress({ phase: 'health', detail: `waiting for ${url}/health`, say: { key: 'health', params: { url } }, url });
  const watched = async () => (await handlers['swarm:statuses']({})).find((s) => s.engineId === engineId && s.containerId === containerId && s.url === url);
  await waitForHealth(url, deps.waits, watched);
  return { engineId, containerId, url };
}

type RunningLlm = { baseUrl: string; model: string; secretId: string | null };

/**
 * What makes the running dry run's LLM another one than the wizard's, named exactly (the endpoint
 * may be the same with another key: typed on the Servers page, or another vault entry); null when
 * it is the same.
 */
export function llmDifference(running: RunningLlm | null, ours: DebugLlm): { what: 'endpoint' | 'model' | 'typed-key' | 'other-key'; message: string } | null {
  if (!running) return null;
  const intro = 'The dry run is already running';
  if (running.baseUrl !== ours.baseUrl) {
    return { what: 'endpoint', message: `${intro} with the LLM at ${running.baseUrl}, not the wizard's ${ours.baseUrl}.` };
  }
  if (running.model !== ours.model) {
    return { what: 'model', message: `${intro} with model ${running.model}, not the wizard's ${ours.model} (same endpoint ${ours.baseUrl}).` };
  }
  if (running.secretId === null) {
    return { what: 'typed-key', message: `${intro} with the same endpoint (${ours.model} at ${ours.baseUrl}) but a key typed for that run, not the vault key the wizard tested.` };
  }
  if (running.secretId !== ours.secretId) {
    return { what: 'other-key', message: `${intro} with the same endpoint (${ours.model} at ${ours.baseUrl}) but another vault key than the one the wizard tested.` };
  }
  return null;
}

async function waitForUrl(handlers: Handlers, engineId: string, containerId: string, waits: SwarmWaits, progress: (p: SwarmProgress) => Promise<void>): Promise<string> {
  let deadline = Date.now() + waits.statusMs;
  let queuedSaid = '';
  let listedAt = 0;
  for (;;) {
    const status = (await handlers['swarm:statuses']({})).find((s) => s.engineId === engineId && s.containerId === containerId);
    if (status?.url) return status.url;
    // A batch job waiting in a Slurm queue may wait for hours: no address is due until it runs, so the wait
    // starts when it leaves the queue, and meanwhile the step says why it waits.
    // Listing asks the cluster's scheduler (squeue): every few seconds, not at every poll.
    if (Date.now() - listedAt >= (waits.queueCheckMs ?? QUEUE_CHECK_MS)) {
      listedAt = Date.now();
      const queued = (await handlers['swarm:list']({ engineId }).catch(() => [])).find((c) => c.id === containerId && c.state === 'created');
      if (queued && queued.statusText !== queuedSaid) {
        await progress({ phase: 'starting', detail: `Slurm job ${containerId} ${queued.statusText}: it gets its address once it runs on a node (cancel it on the Servers page to stop waiting)`,
          say: { key: 'slurmQueued', params: { jobId: containerId, status: queued.statusText } },
        });
      }
      queuedSaid = queued?.statusText ?? '';
    }
    if (queuedSaid !== '') {
      deadline = Date.now() + waits.statusMs;
    } else if (Date.now() >= deadline) {
      throw new AppError(
        'SWARM_UNREACHABLE',
        `The swarm server ${containerId} on ${engineId} was started, but no address for it appeared within ${Math.round(waits.statusMs / 1000)} s (for an SSH server: the tunnel). Check the server's state on the Servers page, then press Start again.`,
      );
    }
    await delay(waits.pollMs);
  }
}

/**
 * Until the server answers. The swarm monitor already polls a server it watches (every status it
 * publishes is an answer, or why none came): its word is read, not a second poll of /health. A URL the
 * monitor does not watch is asked directly.
 */
async function waitForHealth(url: string, waits: SwarmWaits, watched: () => Promise<SwarmStatus | undefined>): Promise<void> {
  const client = new SwarmHttpClient(url, Math.min(3000, waits.healthMs));
  const deadline = Date.now() + waits.healthMs;
  let last = 'no answer yet';
  for (;;) {
    const status = await watched().catch(() => undefined);
    if (status) {
      if (status.connection === 'online') return;
      last = status.lastError ?? `the swarm monitor says "${status.connection}"`;
    } else {
      try {
        if (await client.health()) return;
        last = 'it answered, but not {"status": "ok"}';
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
    }
    if (Date.now() >= deadline) {
      throw new AppError(
        'SWARM_UNREACHABLE',
        `${url}/health did not answer "ok" within ${Math.round(waits.healthMs / 1000)} s (last: ${last}). The server may still be starting or may have stopped: look at its log on the Servers page, then press Start again.`,
      );
    }
    await delay(waits.pollMs);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
