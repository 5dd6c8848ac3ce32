// The training step as a client sees it, with the server playing the trainer itself (target.startTraining): after a
// batch completes, by any sample collection method, the engine goes ROLLING_POST → WEIGHT_SYNCING and stays out of
// ROLLING long enough for SwarmClient to see it. SwarmClient.agree_sync_weight() returns only once its cached status
// (polled every 1 s, or 0.33 s after a get_engine_status() call) reads ROLLING_POST or WEIGHT_SYNCING, and it looks
// every ENGINE_STATUS_POLL_INTERVAL = 5 s (reference §2): a step that passes in less is never seen, the next step
// needs a new agreement, and the client waits for ever (issue 30). Upstream's GPU step takes minutes.
import { afterEach, describe, expect, it } from 'vitest';
import type { PartContext, SwarmUnderTest, TrainingStartOptions } from '../swarm-conformance';
import { newClientUuid, STATUS, Swarm } from '../support/swarm';
import { upstreamJob } from '../../support/job-yaml';

/** SwarmClient's wait loop period plus the age of its cached status right after get_engine_status() (fast poll). */
const CLIENT_SEES_WITHIN_MS = 5000 + 330;
const SYNC_STATES: readonly string[] = [STATUS.ROLLING_POST, STATUS.WEIGHT_SYNCING];

const jobYaml = (method: string) =>
  upstreamJob(`  model:\n    path: /models/m\n  data:\n    train_batch_size: 1\n  rollout:\n    num_repeat: 1\n  swarm_mode_sample_collection_method: ${method}\n`);

async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

/** Sync + start as SwarmClient does, wait for ROLLING, claim the episode the server's trainer registered. */
async function claimFirst(s: Swarm, method: string, client: string): Promise<string> {
  expect((await s.post('/sync_train_config', { yaml_as_string: jobYaml(method) })).json).toEqual({ success: true });
  expect((await s.post('/start_engine', {})).json).toMatchObject({ success: true });
  await until('ROLLING at step 1', 10_000, async () => ((await s.engineStatus()).engine_status === STATUS.ROLLING ? true : undefined));
  return until('a registered episode to claim', 5000, async () => {
    const r = await s.claim(client);
    return r.json.success === true ? (r.json.episode_uuid as string) : undefined;
  });
}

/** Polls /get_engine_status from now until ROLLING at `step` (or `forMs` passed); returns what it saw, with times. */
async function watch(s: Swarm, options: { step?: number; forMs?: number }): Promise<Array<{ at: number; status: string; step: number | null }>> {
  const started = Date.now();
  const seen: Array<{ at: number; status: string; step: number | null }> = [];
  for (;;) {
    const status = await s.engineStatus();
    seen.push({ at: Date.now() - started, status: status.engine_status, step: status.global_step });
    if (options.step !== undefined && status.engine_status === STATUS.ROLLING && status.global_step === options.step) return seen;
    if (options.forMs !== undefined && Date.now() - started >= options.forMs) return seen;
    if (Date.now() - started > 60_000) throw new Error(`no end in 60 s: ${JSON.stringify(seen.slice(-3))}`);
    await new Promise((ok) => setTimeout(ok, 40));
  }
}

/**
 * When the status was first seen outside ROLLING_POST / WEIGHT_SYNCING (the last sample if never): the sync lasted at
 * least until then minus one poll. Not the last sample inside it: polls 40 ms apart can be 200 ms apart on a loaded
 * machine, and the sync's end lies anywhere between those two samples.
 */
function syncSeenUntilMs(seen: Array<{ at: number; status: string }>): number {
  const firstOut = seen.find((x) => !SYNC_STATES.includes(x.status));
  return (firstOut ?? seen.at(-1))?.at ?? 0;
}

/** The window's lower bound for a 700 ms step: the watch starts a request after the agreement (slack for a loaded machine). */
const SYNC_AT_LEAST_MS = 700 - 150;

export function trainingStepPart(ctx: PartContext): void {
  const start = ctx.target.startTraining;
  let server: SwarmUnderTest | undefined;
  const open = async (options: TrainingStartOptions): Promise<Swarm> => {
    if (!start) throw new Error('no startTraining');
    server = await start(options);
    return new Swarm(server.baseUrl);
  };

  describe.skipIf(!start)('the training step a client sees (the server plays the trainer)', () => {
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('after an agreement the weight sync stays visible for the configured training step, then the next step rolls', async () => {
      const s = await open({ bootDelayMs: 100, trainingStepMs: 700 });
      const client = newClientUuid();
      const episode = await claimFirst(s, 'rollout_until_any_client_agree_sync_weight', client);
      expect((await s.end(client, episode, 't')).status).toBe(200);
      // The agreement completes the batch (any client agreed): the step begins at once, not before.
      expect((await s.engineStatus()).engine_status).toBe(STATUS.ROLLING);
      expect((await s.post('/agree_sync_weight', { client_uuid: client })).json).toEqual({ success: true, failure_reason: '' });
      const seen = await watch(s, { step: 2 });
      expect(SYNC_STATES, JSON.stringify(seen.slice(0, 3))).toContain(seen[0]?.status);
      expect(seen.map((x) => x.status)).toContain(STATUS.WEIGHT_SYNCING);
      expect(syncSeenUntilMs(seen), JSON.stringify(seen)).toBeGreaterThanOrEqual(SYNC_AT_LEAST_MS);
      expect(seen.at(-1)).toMatchObject({ status: STATUS.ROLLING, step: 2 });
    });

    it('a batch completed by count goes through the same visible training step', async () => {
      const s = await open({ bootDelayMs: 100, trainingStepMs: 700 });
      const client = newClientUuid();
      const episode = await claimFirst(s, 'rollout_until_finish_enough_episodes', client);
      expect((await s.end(client, episode, 't')).status).toBe(200);
      const seen = await watch(s, { step: 2 });
      expect(SYNC_STATES).toContain(seen[0]?.status);
      expect(syncSeenUntilMs(seen), JSON.stringify(seen)).toBeGreaterThanOrEqual(SYNC_AT_LEAST_MS);
    });

    it('by default the weight sync after an agreement outlasts one client poll period (5 s) plus its cache age', async () => {
      const s = await open({ bootDelayMs: 100 });
      const client = newClientUuid();
      const episode = await claimFirst(s, 'rollout_until_all_clients_agree_sync_weight', client);
      expect((await s.end(client, episode, 't')).status).toBe(200);
      expect((await s.post('/agree_sync_weight', { client_uuid: client })).json).toEqual({ success: true, failure_reason: '' });
      const seen = await watch(s, { forMs: CLIENT_SEES_WITHIN_MS + 200 });
      // Every look from the agreement until past the client's second look must find the sync still going.
      expect(seen.filter((x) => !SYNC_STATES.includes(x.status)), JSON.stringify(seen)).toEqual([]);
    }, 120_000);
  });
}

