import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventHub } from '../../electron/services/events';
import type { Handlers } from '../../electron/services/ipc/handlers';
import type { SwarmStatus } from '../../electron/shared/schemas';
import { loadTestbed } from '../testbed/testbed';
import { freePort, poll, waitForEvent } from '../support/helpers';
import { startTestApp, TEST_CONTAINER_LABELS, type TestApp } from '../support/test-app';
import { upstreamJob } from '../support/job-yaml';

// The two GPU-less boot outcomes of upstream's real server (reference §1.5, appendix points 6 and 18), at the
// service level: a real container of the fake swarm image (a TEST DOUBLE) started by the app's own services on the
// test bed's dockerd, a client's /start_engine sent to it, and the swarm:status events the UI would get.
//   fail-offline   BOOTING, then the trainer dies and the status goes back to OFFLINE (global_step 0); the reason
//                  is only in the container log.
//   stuck-booting  /start_engine answers {success:false,error} and the status sticks in BOOTING.
const JOB_YAML = upstreamJob('  model:\n    path: /models/Qwen2.5-0.5B-Instruct\n  data:\n    train_batch_size: 2\n  rollout:\n    num_repeat: 2\n');
const ERROR_LINE = "ModuleNotFoundError: No module named 'vllm'";

describe('engine boot outcomes of a GPU-less server, seen through the app services', () => {
  const testbed = loadTestbed();
  const docker = new Docker({ socketPath: testbed.dockerSocket });
  const images: string[] = [];
  let app: TestApp;
  let hub: EventHub;
  let handlers: Handlers;

  /** A variant of the fake image with the given environment, removed in afterAll. */
  async function variantImage(name: string, env: Record<string, string>): Promise<string> {
    const base = await docker.createContainer({ Image: testbed.fakeSwarmImage, Cmd: ['ajet-swarm', 'start'], Labels: TEST_CONTAINER_LABELS });
    const repo = `agentswarm-test/fake-swarm-${name}`;
    await base.commit({ repo, tag: '1', changes: Object.entries(env).map(([k, v]) => `ENV ${k}=${v}`) });
    images.push(`${repo}:1`);
    return `${repo}:1`;
  }

  /** Starts a server from the image through the app and waits until the app reads ENGINE.OFFLINE from it. */
  async function startServer(image: string): Promise<{ containerId: string; url: string }> {
    const port = await freePort();
    const online = waitForEvent(hub, 'swarm:status', (s) => s.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE' && s.url.endsWith(`:${port}`));
    const container = await handlers['swarm:start']({ engineId: 'local', image, port, networkMode: 'host', gpus: false, shmSizeGb: 1 });
    const status = await online;
    expect(status).toMatchObject({ containerId: container.id, engineProblem: null, bootingSince: null });
    return { containerId: container.id, url: status.url };
  }

  /** What SwarmClient.auto_sync_train_config_and_start_engine sends (appendix point 9). */
  async function syncAndStart(url: string): Promise<unknown> {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await post('/sync_train_config', { yaml_as_string: JOB_YAML })).toEqual({ success: true });
    return post('/start_engine', {});
  }

  /** Records every swarm:status of one container, so the test can look at the whole sequence. */
  function recordStatuses(containerId: string): SwarmStatus[] {
    const seen: SwarmStatus[] = [];
    hub.subscribe((name, payload) => {
      if (name === 'swarm:status' && (payload as SwarmStatus).containerId === containerId) seen.push(payload as SwarmStatus);
    });
    return seen;
  }

  beforeAll(async () => {
    app = await startTestApp();
    ({ hub, handlers } = app);
  });

  afterAll(async () => {
    // Removes the app's containers and the image bases by their label; the images after them.
    await app?.dispose();
    for (const image of images) await docker.getImage(image).remove({ force: true }).catch(() => undefined);
  });

  it('fail-offline: BOOTING with bootingSince, then OFFLINE with a boot-failed engineProblem carrying the log lines', async () => {
    // A boot long enough for several 200 ms polls to see BOOTING.
    const image = await variantImage('fail-offline', { AJET_FAKE_BOOT_OUTCOME: 'fail-offline', AJET_FAKE_BOOT_DELAY_MS: '2000' });
    const { containerId, url } = await startServer(image);
    const seen = recordStatuses(containerId);
    const booting = waitForEvent(hub, 'swarm:status', (s) => s.containerId === containerId && s.engineStatus === 'ENGINE.BOOTING');
    const failed = waitForEvent(hub, 'swarm:status', (s) => s.containerId === containerId && s.engineStatus === 'ENGINE.OFFLINE' && s.engineProblem !== null);
    const startedAt = Date.now();
    // The trainer subprocess was spawned, so upstream answers success; it dies afterwards.
    expect(await syncAndStart(url)).toEqual({ success: true, pid: expect.any(Number) });

    const boot = await booting;
    expect(boot.connection).toBe('online');
    expect(boot.bootingSince).not.toBeNull();
    expect(Math.abs(Date.parse(String(boot.bootingSince)) - startedAt)).toBeLessThan(5000);
    expect(boot.engineProblem).toBeNull(); // nothing in the log explains a failure yet

    const offline = await failed;
    expect(offline).toMatchObject({
      connection: 'online',
      engineStatus: 'ENGINE.OFFLINE',
      // The failure hook posts global_step 0, a step nobody reached: neither current nor history.
      globalStep: null,
      lastGlobalStep: null,
      bootingSince: null,
      engineProblem: { kind: 'boot-failed', log: { explains: true } },
    });
    const lines = offline.engineProblem?.log.lines ?? [];
    expect(lines).toContain(ERROR_LINE);
    expect(lines.some((l) => l.includes('Error running subprocess:'))).toBe(true);
    // The sequence the row went through: OFFLINE, BOOTING (at least one poll), OFFLINE with the problem.
    const engineStatuses = seen.map((s) => s.engineStatus).filter((s, i, all) => i === 0 || s !== all[i - 1]);
    expect(engineStatuses).toEqual(['ENGINE.BOOTING', 'ENGINE.OFFLINE']);

    // The problem stays on later polls and is served with the statuses (a reload still explains it).
    await new Promise((ok) => setTimeout(ok, 600));
    const served = (await handlers['swarm:statuses']({})).find((s) => s.containerId === containerId);
    expect(served).toMatchObject({ engineStatus: 'ENGINE.OFFLINE', engineProblem: { kind: 'boot-failed' } });
  });

  it('stuck-booting: start_engine fails with the Python error and the row stays BOOTING, with bootingSince and the explaining log', async () => {
    const image = await variantImage('stuck-booting', { AJET_FAKE_BOOT_OUTCOME: 'stuck-booting' });
    const { containerId, url } = await startServer(image);
    const explained = waitForEvent(hub, 'swarm:status', (s) => s.containerId === containerId && s.engineStatus === 'ENGINE.BOOTING' && s.engineProblem !== null);
    expect(await syncAndStart(url)).toEqual({ success: false, error: "No module named 'vllm'" });

    const stuck = await explained;
    expect(stuck).toMatchObject({ connection: 'online', globalStep: null, engineProblem: { kind: 'boot-errors', log: { explains: true } } });
    expect(stuck.bootingSince).not.toBeNull();
    expect(stuck.engineProblem?.log.lines).toContain(ERROR_LINE);
    expect(stuck.engineProblem?.log.lines.some((l) => l.includes("[start_engine] Error starting engine: No module named 'vllm'"))).toBe(true);

    // It sticks: later polls (the monitor announces only changes; the statuses it serves are current) still say
    // BOOTING, from the same start, with the same problem.
    // With no page shown the monitor polls at its hidden pace (four intervals): wait for a poll a second later.
    const later = await poll('a poll over a second after the problem was seen', 10_000, async () => {
      const s = (await handlers['swarm:statuses']({})).find((x) => x.containerId === containerId);
      return s && Date.parse(s.checkedAt) > Date.parse(stuck.checkedAt) + 1000 ? s : undefined;
    }, 100);
    expect(later).toMatchObject({ engineStatus: 'ENGINE.BOOTING', bootingSince: stuck.bootingSince, engineProblem: { kind: 'boot-errors', since: stuck.engineProblem?.since } });

    // Only stop_engine gets the server out of BOOTING (appendix point 6); the row then reads OFFLINE.
    const offline = waitForEvent(hub, 'swarm:status', (s) => s.containerId === containerId && s.engineStatus === 'ENGINE.OFFLINE');
    const stop = await fetch(`${url}/stop_engine`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await stop.json()).toEqual({ success: true, failure_reason: '' });
    expect(await offline).toMatchObject({ bootingSince: null, globalStep: null });
  });
});
