import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../electron/shared/schemas-runs';
import { request } from '../conformance/support/http';
import { loadTestbed } from '../testbed/testbed';
import { launchChromium } from '../e2e/browser';
import { installFakeNvidiaSmi, type FakeNvidiaSmi } from '../support/fake-nvidia-smi';
import { FakeSwarmVariants } from '../support/fake-variants';
import { freePort, poll, waitForEvent } from '../support/helpers';
import { upstreamJob } from '../support/job-yaml';
import { SwarmTestClient } from '../support/swarm-test-client';
import { startTestApp, type TestApp } from '../support/test-app';

const PAGE = 'runs-integration-page';
/** The secret that must never reach a run card: an OpenAI-shaped key in the synced YAML (a judge's key). */
const CANARY = `sk-canary-runs-${Date.now().toString(36)}-Zq8Lw3Rt5Yv7Xb9N`;

/** `runs:list` with no filter but the state. */
const filter = (state: 'any' | 'running' | 'ended' = 'any') => ({ engine: null, profile: null, state, since: null, until: null, text: '' });

function jobYaml(learningRate: string): string {
  return upstreamJob(
    `  model:\n    path: /models/Qwen2.5-0.5B-Instruct\n  data:\n    train_batch_size: 1\n  rollout:\n    num_repeat: 2\n` +
      `  swarm_mode_sample_collection_method: rollout_until_finish_enough_tasks\n  trainer_common:\n    learning_rate: ${learningRate}\n` +
      `  judge:\n    api_key: ${CANARY}\n`,
  );
}

/** One file as a tar archive (ustar), for Docker's archive API: the fake's image has no shell to write with. */
function tarOf(path: string, text: string): Buffer {
  const body = Buffer.from(text);
  const header = Buffer.alloc(512);
  header.write(path, 0, 100);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\x0000', 257);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padding = Buffer.alloc((512 - (body.length % 512)) % 512);
  return Buffer.concat([header, body, padding, Buffer.alloc(1024)]);
}

// Real dockerd from the test bed, the fake swarm image (a labelled TEST DOUBLE of the server) in a container, the
// labelled nvidia-smi double for the GPU count, the app's real services; Debian's Chromium opens the card offline.
describe('every run kept: history across a backend restart, compare, the run card', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  const variants = new FakeSwarmVariants(docker, testbed.fakeSwarmImage);
  let fake: FakeNvidiaSmi;
  let app: TestApp;
  let containerId: string;
  let client: SwarmTestClient;

  beforeAll(async () => {
    fake = await installFakeNvidiaSmi([{ utilizationPct: 90 }, { utilizationPct: 80 }]);
    app = await startTestApp({ monitorIntervalMs: 100, gpus: { command: fake.command } });
    const port = await freePort();
    // A 1 s training step instead of the fake's 8 s (its default is for SwarmClient's 5 s poll, not used here): the
    // four steps below waited 32 s for it. Runs are recorded from the steps' statuses and pools, whatever they last.
    const image = await variants.image(`runs-step-${process.pid}`, 'AJET_FAKE_WEIGHT_SYNC_DELAY_MS=1000');
    ({ id: containerId } = await app.handlers['swarm:start']({ engineId: 'local', image, port, networkMode: 'host', gpus: false, shmSizeGb: 1 }));
    await app.handlers['training:interest']({ pageId: PAGE, engineId: 'local', containerId, shown: true });
    client = new SwarmTestClient(`http://127.0.0.1:${port}`);
  }, 120_000);

  afterAll(async () => {
    await app?.dispose();
    await fake?.remove();
    await variants.dispose();
  });

  /**
   * A client's run: sync, start, then (as upstream's server does at start_engine, which the fake leaves out)
   * yaml_backup.yaml in the experiment folder, written through Docker's archive API by this test.
   */
  async function startRun(yaml: string): Promise<void> {
    await engineIs('ENGINE.OFFLINE');
    expect(await client.post('/sync_train_config', { yaml_as_string: yaml })).toEqual({ success: true });
    expect(await client.post('/start_engine')).toMatchObject({ success: true });
    const dir = (await request(client.url, 'GET', '/get_server_experiment_dir')).json.server_experiment_dir as string;
    await docker.getContainer(containerId).putArchive(tarOf(`${dir.replace(/^\//, '')}/yaml_backup.yaml`, yaml), { path: '/' });
    await engineIs('ENGINE.ROLLING');
  }

  /** The training monitor's view says this status (read, not awaited as an event: it may have come before the wait). */
  async function engineIs(status: string): Promise<void> {
    await poll(status, 30_000, async () => ((await app.handlers['training:view']({ engineId: 'local', containerId })).engineStatus === status ? true : undefined));
  }

  /**
   * One step: two episodes of one task, rewards `low` and `high`. A third episode is held claimed while the step
   * closes, so the pool (read every 200 ms while the dashboard's lease is renewed, as a page does) is seen with
   * the whole batch before the step moves on; then it is aborted.
   */
  async function playStep(low: number, high: number): Promise<void> {
    await app.handlers['training:interest']({ pageId: PAGE, engineId: 'local', containerId, shown: true });
    const a = await client.claim();
    const step = (await client.step()) as number;
    const b = await client.claim();
    await client.end(a, `task-${step}`, low);
    const held = await client.claim();
    const seen = waitForEvent(app.hub, 'training:changed', (v) => v.containerId === containerId && v.engineStatus === 'ENGINE.ROLLING_POST' && v.runningEpisodes.length > 0, 15_000);
    await client.end(b, `task-${step}`, high);
    await seen;
    const next = waitForEvent(app.hub, 'training:changed', (v) => v.containerId === containerId && v.globalStep === step + 1, 15_000);
    await client.abort(held);
    await next;
  }

  /** This file's runs: the test bed's dockerd may run other files' servers meanwhile (npm test's lanes), each a run too. */
  const ours = (runs: RunSummary[]) => runs.filter((run) => run.containerId === containerId);

  async function endedRuns(count: number): Promise<RunSummary[]> {
    return poll(`${count} ended runs`, 30_000, async () => {
      const runs = ours(await app.handlers['runs:list'](filter('ended')));
      return runs.length === count ? runs : undefined;
    });
  }

  it('keeps each run with its YAML, steps and GPU-hours, across a backend restart in the middle of a run', async () => {
    await startRun(jobYaml('0.001'));
    await playStep(0, 1);
    await playStep(0, 0.5);
    expect(await client.post('/stop_engine')).toMatchObject({ success: true });
    const [first] = await endedRuns(1);
    expect(first).toMatchObject({ engineId: 'local', containerId, endKind: 'engine-stopped', gpus: 2, gpuSource: 'sample', stats: { steps: 2, rewardFirst: 0.5, rewardLast: 0.25 } });
    expect(first!.yamlSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(first!.gpuHours).toBeGreaterThan(0);

    // The second run goes on while the backend restarts.
    await startRun(jobYaml('0.0005'));
    await playStep(1, 1);
    await poll('the second run written', 15_000, async () => {
      const [running] = ours(await app.handlers['runs:list'](filter('running')));
      return running?.stats.steps === 1 ? running : undefined;
    });
    await app.stop();
    app = await startTestApp({ dataDir: app.dataDir, monitorIntervalMs: 100, gpus: { command: fake.command } });
    await app.handlers['training:interest']({ pageId: PAGE, engineId: 'local', containerId, shown: true });
    await engineIs('ENGINE.ROLLING');
    await playStep(0, 1);
    expect(await client.post('/stop_engine')).toMatchObject({ success: true });
    const runs = await endedRuns(2);
    const second = runs.find((r) => r.runId !== first!.runId)!;
    expect(second).toMatchObject({ endKind: 'engine-stopped', stats: { steps: 2, rewardFirst: 1, rewardLast: 0.5 } });
    // The first run, as kept before the restart.
    expect(runs.find((r) => r.runId === first!.runId)).toMatchObject({ stats: first!.stats, yamlSha256: first!.yamlSha256 });

    // A rate for this engine prices every run on it.
    await app.handlers['runs:set-rate']({ engineId: 'local', perGpuHour: 2.5, currency: 'EUR' });
    const priced = await app.handlers['runs:get']({ runId: second.runId });
    expect(priced.currency).toBe('EUR');
    expect(priced.cost).toBeCloseTo(priced.gpuHours! * 2.5, 2);
    expect(priced.yaml).toContain('learning_rate: 0.0005');
    expect(priced.yaml).not.toContain(CANARY);
  }, 240_000);

  it('compares the two runs: both curves by step, the YAML side by side', async () => {
    const [newer, older] = ours(await app.handlers['runs:list'](filter()));
    const comparison = await app.handlers['runs:compare']({ runIds: [older!.runId, newer!.runId] });
    expect(comparison.runs.map((r) => r.points.map((p) => p.rewardMean))).toEqual([
      [0.5, 0.25],
      [1, 0.5],
    ]);
    const rows = comparison.diffs[0]!.rows!;
    expect(rows).toContainEqual(expect.objectContaining({ kind: 'changed', left: '    learning_rate: 0.001', right: '    learning_rate: 0.0005' }));
    expect(comparison.diffs[0]!.changed).toBe(1);
  });

  it('exports a run card that opens in Chromium offline, shows the chart, and holds no secret; Markdown with its PNG', async () => {
    const [run] = ours(await app.handlers['runs:list'](filter()));
    const html = await app.handlers['runs:export-card']({ format: 'html', runId: run!.runId });
    const text = await readFile(html.path, 'utf8');
    expect(text).not.toContain(CANARY);

    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ offline: true });
      const requests: string[] = [];
      context.on('request', (request) => requests.push(request.url()));
      await context.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
      const page = await context.newPage();
      await page.goto(pathToFileURL(html.path).href);
      expect(await page.locator('svg[data-chart="reward"] polyline').count()).toBe(1);
      expect(await page.locator('h1').textContent()).toContain(run!.runId);
      // The card itself, and nothing else.
      expect(requests).toEqual([pathToFileURL(html.path).href]);

      // The Markdown card's picture, rasterised from the card's SVG as the page does it.
      const { svg, width, height } = await app.handlers['runs:card']({ runId: run!.runId });
      const pngBase64 = await page.evaluate(
        async ({ svg, width, height }) => {
          const image = new Image();
          image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
          await image.decode();
          const canvas = document.createElement('canvas');
          canvas.width = width;
          canvas.height = height;
          canvas.getContext('2d')!.drawImage(image, 0, 0);
          return canvas.toDataURL('image/png').split(',')[1]!;
        },
        { svg, width, height },
      );
      const md = await app.handlers['runs:export-card']({ format: 'markdown', runId: run!.runId, pngBase64 });
      expect(md.pngPath).not.toBeNull();
      expect((await readFile(md.pngPath!)).subarray(1, 4).toString()).toBe('PNG');
      const markdown = await readFile(md.path, 'utf8');
      expect(markdown).toContain(`![Mean reward per step](agentswarm-run-${run!.runId}.png)`);
      expect(markdown).not.toContain(CANARY);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
