import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notifier } from '../../electron/services/notifier';
import type { AppNotification, TrainingView } from '../../electron/shared/schemas-profiles';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll, waitForEvent } from '../support/helpers';
import { FakeSwarmVariants } from '../support/fake-variants';
import { SwarmTestClient, smallJobYaml } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** TEST DOUBLE: a Notifier that records what the app would show, instead of a desktop notification. */
class RecordingNotifier implements Notifier {
  readonly shown: AppNotification[] = [];
  notify(notification: AppNotification): void {
    this.shown.push(notification);
  }
}

const MODEL_PATH = '/models/Qwen2.5-0.5B-Instruct';
// One task of two episodes per step: the fake's trainer ends a step when one task id has num_repeat episodes.
const JOB_YAML = smallJobYaml(MODEL_PATH);
const TRAINING_STATES = ['ENGINE.ROLLING', 'ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING', 'ENGINE.WEIGHT_EXPORTING'];

// Real dockerd from the test bed, the fake swarm image (a labelled test double of the server) in a
// container with host networking, the app's real services polling it over HTTP.
describe('training monitor against the fake swarm server in a container', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  const notifier = new RecordingNotifier();
  const variants = new FakeSwarmVariants(docker, testbed.fakeSwarmImage);
  let app: TestApp;
  let containerId: string;
  let client: SwarmTestClient;
  /** Every training view the app emitted since before the server started (of any server: its id is known only after). */
  const emitted: TrainingView[] = [];
  const views = () => emitted.filter((v) => v.containerId === containerId);
  /** What was told of this file's server: the test bed's dockerd may run other files' servers meanwhile (npm test's lanes). */
  const shownOf = (kind: string) => notifier.shown.filter((n) => n.kind === kind && n.containerId === containerId);

  beforeAll(async () => {
    app = await startTestApp({ monitorIntervalMs: 100, notifier });
    // Before the start: the first views can come before swarm:start returns (its last Docker calls took long enough
    // under load in idle CI-AT that ENGINE.OFFLINE was emitted before a later subscription, and never again).
    app.hub.subscribe((name, payload) => {
      if (name === 'training:changed') emitted.push(payload as TrainingView);
    });
    const port = await freePort();
    // A 3 s training step instead of the fake's 8 s (its default is for SwarmClient's 5 s poll, not used here): still
    // 30 of the monitor's 100 ms polls to see WEIGHT_SYNCING in, and the four steps below wait 20 s less.
    const image = await variants.image(`monitor-step-${process.pid}`, 'AJET_FAKE_WEIGHT_SYNC_DELAY_MS=3000');
    const container = await app.handlers['swarm:start']({ engineId: 'local', image, port, networkMode: 'host', gpus: false, shmSizeGb: 1 });
    containerId = container.id;
    // As the dashboard does while it shows this server: the pool route is polled only then.
    await app.handlers['training:interest']({ pageId: 'integration-test-page', engineId: 'local', containerId, shown: true });
    client = new SwarmTestClient(`http://127.0.0.1:${port}`);
  });

  afterAll(async () => {
    await app?.dispose();
    await variants.dispose();
  });

  /**
   * One step as a client plays it: two episodes of one task (rewards 0 and 1); a third episode is
   * held claimed while the step closes, so ROLLING_POST lasts long enough to be seen, then aborted.
   */
  async function playStep(): Promise<number> {
    const a = await client.claim();
    const step = (await client.step()) as number;
    const b = await client.claim();
    await client.end(a, `task-${step}`, 0);
    const held = await client.claim();
    const post = waitForEvent(app.hub, 'training:changed', (v) => v.containerId === containerId && v.engineStatus === 'ENGINE.ROLLING_POST' && v.runningEpisodes.length > 0, 15_000);
    await client.end(b, `task-${step}`, 1);
    const seen = await post;
    const from = emitted.length;
    await client.abort(held);
    await poll(`global step ${step + 1}`, 15_000, async () => (emitted.slice(from).some((v) => v.containerId === containerId && v.globalStep === step + 1) ? true : undefined));
    return step === seen.globalStep ? step : -1;
  }

  it('reports every state as the engine boots and trains, with the pool parsed and steps rising', async () => {
    await poll('the first ENGINE.OFFLINE view', 30_000, async () => (views().some((v) => v.engineStatus === 'ENGINE.OFFLINE') ? true : undefined)).catch(async (error: Error) => {
      const state = await docker.getContainer(containerId).inspect().then((c) => c.State, (e: Error) => e.message);
      throw new Error(`${error.message}; views: ${JSON.stringify(views().map((v) => [v.engineStatus, v.lastError]))}; the container: ${JSON.stringify(state)}`);
    });
    expect(await client.post('/sync_train_config', { yaml_as_string: JOB_YAML })).toEqual({ success: true });
    expect(await client.post('/start_engine')).toMatchObject({ success: true });
    const rolling = await poll('ENGINE.ROLLING', 30_000, async () => views().find((v) => v.engineStatus === 'ENGINE.ROLLING'));
    expect(rolling).toMatchObject({ globalStep: 1, modelPath: MODEL_PATH, sampleCollectionMethod: 'rollout_until_finish_enough_tasks', expectedRepeat: 2 });
    expect(rolling.episodes).toEqual({ done: 0, target: 2 });
    expect(rolling.tasks).toEqual({ done: 0, target: 1 });

    expect(await playStep()).toBe(1);
    expect(await playStep()).toBe(2);
    expect(await playStep()).toBe(3);

    // Every status, in order, as the page saw them.
    // (null: polls before the server listened, which carry only the connection error)
    const order = views().map((v) => v.engineStatus).filter((s, i, all) => s !== null && s !== all[i - 1]);
    expect(order.slice(0, 6)).toEqual(['ENGINE.OFFLINE', 'ENGINE.BOOTING', 'ENGINE.ROLLING', 'ENGINE.ROLLING_POST', 'ENGINE.WEIGHT_SYNCING', 'ENGINE.ROLLING']);
    const steps = views().map((v) => v.globalStep).filter((s): s is number => s !== null);
    expect(steps).toEqual([...steps].sort((x, y) => x - y));
    expect(steps.at(-1)).toBe(4);
    // Only a training engine has a step; booting shows how long it has booted instead.
    for (const v of views()) if (!TRAINING_STATES.includes(v.engineStatus ?? '')) expect(v.globalStep).toBeNull();
    expect(views().find((v) => v.engineStatus === 'ENGINE.BOOTING')?.bootingSeconds).toBeGreaterThanOrEqual(0);

    // The pool as upstream sends it: string-typed running episode details read as numbers.
    const post = views().find((v) => v.engineStatus === 'ENGINE.ROLLING_POST' && v.runningEpisodes.length > 0)!;
    expect(post.runningEpisodes[0]).toMatchObject({ status: 'claimed', llmCalls: 0, patienceSeconds: 60, clientUuid: client.uuid });
    expect(post.runningEpisodes[0]?.idleSeconds).toEqual(expect.any(Number));
    expect(post.episodes).toEqual({ done: 2, target: 2 });
    expect(post.tasks).toEqual({ done: 1, target: 1 });
    expect(post.taskRewards).toEqual([{ taskId: 'task-1', episodes: 2, mean: 0.5, std: 0.5 }]);
    expect(post).toMatchObject({ rewardMean: 0.5, rewardStd: 0.5, missingRoutes: [], lastError: null });
    expect(post.activeClients).toEqual([{ clientUuid: client.uuid, agreedSyncWeight: false }]);

    // The series: one point per finished step with the step's reward statistics and time per status.
    const series = await app.handlers['training:series']({ engineId: 'local', containerId });
    expect(series.runId).toBe(rolling.runId);
    expect(series.points.map((p) => p.step)).toEqual([1, 2, 3]);
    for (const p of series.points) {
      // The last pool snapshot before the step changed held the whole batch: "pool", not a partial or unobserved step.
      expect(p).toMatchObject({ batch: 'pool', rewardMean: 0.5, rewardStd: 0.5, rewardMin: 0, rewardMax: 1, episodes: 2, llmTokens: null, failures: null });
      expect(p.seconds).toBeGreaterThan(0);
      expect(p.secondsInStatus['ENGINE.ROLLING']).toBeGreaterThan(0);
    }
    expect(series.timeline.slice(0, 3).map((s) => s.status)).toEqual(['ENGINE.BOOTING', 'ENGINE.ROLLING', 'ENGINE.ROLLING_POST']);
    expect(shownOf('engine-rolling')).toEqual([
      expect.objectContaining({ containerId, engineId: 'local', title: expect.stringContaining('Local Docker') }),
    ]);
  });

  it('keeps the series across a backend restart and continues the same run', async () => {
    const before = await app.handlers['training:series']({ engineId: 'local', containerId });
    await app.stop();
    const restarted = await startTestApp({ dataDir: app.dataDir, monitorIntervalMs: 100, notifier });
    // The restarted app is the one afterAll disposes (with the container).
    app = restarted;
    // The reloaded dashboard says again that it shows this server.
    await restarted.handlers['training:interest']({ pageId: 'integration-test-page', engineId: 'local', containerId, shown: true });
    {
      const resumed = await poll('the stored series after the restart', 30_000, async () => {
        const s = await restarted.handlers['training:series']({ engineId: 'local', containerId });
        return s.points.length >= 3 ? s : undefined;
      });
      expect(resumed.runId).toBe(before.runId);
      expect(resumed.points.map((p) => p.step)).toEqual([1, 2, 3]);
      // Training goes on: the next step joins the same run.
      app.hub.subscribe((name, payload) => {
        if (name === 'training:changed') emitted.push(payload as TrainingView);
      });
      expect(await playStep()).toBe(4);
      const after = await app.handlers['training:series']({ engineId: 'local', containerId });
      expect(after.runId).toBe(before.runId);
      expect(after.points.map((p) => p.step)).toEqual([1, 2, 3, 4]);
      // A restart is not a new run reaching ROLLING.
      expect(shownOf('engine-rolling')).toHaveLength(1);
    }
  });

  it('notifies when a client stops the engine, hides the stale step, and notifies when the container dies', async () => {
    // Views from the stop on (a poll may emit OFFLINE before this test would have subscribed after the POST).
    const from = emitted.length;
    expect(await client.post('/stop_engine')).toEqual({ success: true, failure_reason: '' });
    const offline = await poll('ENGINE.OFFLINE after /stop_engine', 15_000, async () => emitted.slice(from).find((v) => v.containerId === containerId && v.engineStatus === 'ENGINE.OFFLINE'));
    // The server still says global_step 5 (upstream keeps it after a stop): not progress.
    expect(await client.step()).toBe(5);
    expect(offline).toMatchObject({ globalStep: null, episodes: null, taskRewards: [], runningEpisodes: [] });
    await poll('the engine-offline notification', 15_000, async () => shownOf('engine-offline')[0]);
    const series = await app.handlers['training:series']({ engineId: 'local', containerId });
    expect(series.timeline.at(-1)).toMatchObject({ status: 'ENGINE.OFFLINE', to: null });

    await docker.getContainer(containerId).kill();
    // Told once, by the server-state store's EndTeller, worded from the server's state.
    const died = await poll('the server-ended notification', 30_000, async () => shownOf('server-ended')[0]);
    expect(died).toMatchObject({ containerId, engineId: 'local', body: expect.stringContaining('was killed with exit code 137'), end: { kind: 'killed', code: 137 } });
    expect(shownOf('container-died')).toEqual([]);
  });
});
