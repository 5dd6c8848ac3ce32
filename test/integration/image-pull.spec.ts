// Image pulls through the app's own handlers (contract-checked) from the test bed's real registry
// into its real dockerd, locally and through the SSH engine. Needs `bash test/testbed/testbed.sh up`.
// The test image is built once on top of the fake swarm image (a TEST DOUBLE) with three more layers,
// one of them 120 MB of random data, and pushed under a test-only repository.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PullView } from '../../electron/shared/schemas-profiles';
import type { EventHub } from '../../electron/services/events';
import { startTestApp, type TestApp } from '../support/test-app';
import { connectTestbedServer } from '../support/testbed-server';
import { freePort, waitForEvent } from '../support/helpers';
import { loadTestbed } from '../testbed/testbed';

const tb = loadTestbed();
const docker = new Docker({ socketPath: tb.dockerSocket });
const REPO = 'agentswarm-test/pull-layers';
const IMAGE = `${tb.registry}/${REPO}:1`;
const BIG_LAYER_BYTES = 120 * 1024 * 1024;

async function registryHas(repo: string, tag: string): Promise<boolean> {
  const response = await fetch(`${tb.registryUrl}/v2/${repo}/manifests/${tag}`, {
    method: 'HEAD',
    headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' },
  });
  return response.ok;
}

/** Builds and pushes the test image once per registry (it persists between runs of the test bed). */
async function ensureTestImage(): Promise<void> {
  if (await registryHas(REPO, '1')) return;
  const dir = mkdtempSync(join(tmpdir(), 'agentswarm-pull-image-'));
  try {
    writeFileSync(join(dir, 'small'), 'small layer\n');
    // Random bytes do not compress: the registry really sends 120 MB.
    writeFileSync(join(dir, 'big'), randomBytes(BIG_LAYER_BYTES));
    writeFileSync(join(dir, 'mid'), randomBytes(256 * 1024));
    writeFileSync(join(dir, 'Dockerfile'), `FROM ${tb.fakeSwarmLocalImage}\nCOPY small /opt/pull-test/small\nCOPY big /opt/pull-test/big\nCOPY mid /opt/pull-test/mid\n`);
    execFileSync('docker', ['build', '-q', '-t', IMAGE, dir], { stdio: 'pipe' });
    execFileSync('docker', ['push', IMAGE], { stdio: 'pipe' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Removes every tag of the image `ref` names (and so its own layers), if present. */
async function removeImage(ref: string): Promise<void> {
  const info = await docker.getImage(ref).inspect().catch(() => null);
  if (info) await docker.getImage(info.Id).remove({ force: true });
}

/** Every progress event of one pull until its final one (done, failed or cancelled). */
function collectPull(hub: EventHub, pullId: string, timeoutMs = 90_000): { events: PullView[]; final: Promise<PullView> } {
  const events: PullView[] = [];
  const unsubscribe = hub.subscribe((channel, payload) => {
    if (channel === 'images:pull-progress' && (payload as PullView).pullId === pullId) events.push(payload as PullView);
  });
  const final = waitForEvent(hub, 'images:pull-progress', (p) => p.pullId === pullId && ['done', 'failed', 'cancelled'].includes(p.phase), timeoutMs).finally(unsubscribe);
  return { events, final };
}

/**
 * A slow link in front of the real registry (test-only, not a double: every byte comes from the
 * registry): about `bytesPerSecond`, so a pull runs long enough to be cancelled half-way.
 */
async function slowRegistryProxy(bytesPerSecond: number): Promise<{ port: number; close: () => Promise<void> }> {
  const [host, portText] = tb.registry.split(':') as [string, string];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(portText), host);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      upstream.pause();
      client.write(chunk, () => setTimeout(() => upstream.resume(), (chunk.length / bytesPerSecond) * 1000));
    });
    upstream.on('end', () => client.end());
    for (const s of [client, upstream]) s.on('error', () => undefined).on('close', () => (client.destroy(), upstream.destroy()));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}

let app: TestApp;

beforeAll(async () => {
  await ensureTestImage();
  app = await startTestApp();
}, 300_000);

afterAll(async () => {
  await app?.dispose();
  await removeImage(IMAGE).catch(() => undefined);
});

describe('image pulls with progress (local engine, real registry)', () => {
  it('pulls a many-layer image: progress reaches the view model, percent rises to 100, layers done = total', async () => {
    await removeImage(IMAGE);
    const started = await app.handlers['images:pull']({ engineId: 'local', image: IMAGE });
    expect(started).toMatchObject({ engineId: 'local', image: IMAGE, phase: 'resolving', endedAt: null, error: null });
    const { events, final } = collectPull(app.hub, started.pullId);
    // A second request for the same image joins the running pull instead of starting another.
    expect((await app.handlers['images:pull']({ engineId: 'local', image: IMAGE })).pullId).toBe(started.pullId);

    const done = await final;
    expect(done).toMatchObject({ phase: 'done', percent: 100, error: null, etaSeconds: null });
    // The fake swarm's own layer "Already exists"; the three new ones are fetched.
    expect(done.layersTotal).toBeGreaterThanOrEqual(4);
    expect(done.layersDone).toBe(done.layersTotal);
    expect(done.bytesTotal).toBeGreaterThan(BIG_LAYER_BYTES);
    expect(done.bytesDone).toBe(done.bytesTotal);

    const percents = events.map((e) => e.percent).filter((p): p is number => p !== null);
    expect(percents.length).toBeGreaterThan(2);
    for (let i = 1; i < percents.length; i += 1) expect(percents[i]).toBeGreaterThanOrEqual(percents[i - 1]!);
    const phases = events.map((e) => e.phase).filter((p, i, all) => p !== all[i - 1]);
    expect(phases).toContain('downloading');
    expect(phases).toContain('extracting');
    expect(phases[phases.length - 1]).toBe('done');
    // Throttled: far fewer events than Docker sent messages for 120 MB.
    expect(events.length).toBeLessThan(200);

    const present = await docker.getImage(IMAGE).inspect();
    expect(present.RepoDigests.some((d) => d.startsWith(`${tb.registry}/${REPO}@sha256:`))).toBe(true);
    expect((await app.handlers['images:pulls']({})).find((p) => p.pullId === started.pullId)?.phase).toBe('done');
  });

  it('a missing tag fails with IMAGE_NOT_FOUND naming the image and the registry', async () => {
    const missing = `${tb.registry}/${REPO}:no-such-tag`;
    const started = await app.handlers['images:pull']({ engineId: 'local', image: missing });
    const { final } = collectPull(app.hub, started.pullId);
    const failed = await final;
    expect(failed.phase).toBe('failed');
    expect(failed.error?.code).toBe('IMAGE_NOT_FOUND');
    expect(failed.error?.message).toContain(missing);
    expect(failed.error?.message).toContain(`not found on ${tb.registry}`);
  });

  it('a registry that does not answer fails with IMAGE_PULL_FAILED naming it', async () => {
    const closed = await freePort();
    const image = `127.0.0.1:${closed}/${REPO}:1`;
    const started = await app.handlers['images:pull']({ engineId: 'local', image });
    const failed = await collectPull(app.hub, started.pullId).final;
    expect(failed.error?.code).toBe('IMAGE_PULL_FAILED');
    expect(failed.error?.message).toContain(`127.0.0.1:${closed}`);
  });

  it('cancel mid-pull: the pull ends as cancelled, with an ETA shown while it ran, and the image is not there', async () => {
    const proxy = await slowRegistryProxy(8 * 1024 * 1024);
    const viaProxy = `127.0.0.1:${proxy.port}/${REPO}:1`;
    try {
      await removeImage(IMAGE);
      await removeImage(viaProxy);
      const started = await app.handlers['images:pull']({ engineId: 'local', image: viaProxy });
      const { final } = collectPull(app.hub, started.pullId);
      const running = await waitForEvent(app.hub, 'images:pull-progress', (p) => p.pullId === started.pullId && p.phase === 'downloading' && p.etaSeconds !== null, 60_000);
      expect(running.percent).toBeGreaterThan(0);
      expect(running.percent).toBeLessThan(100);
      expect(running.etaSeconds).toBeGreaterThan(0);

      const answer = await app.handlers['images:cancel-pull']({ pullId: started.pullId });
      expect(answer).toMatchObject({ pullId: started.pullId, phase: 'cancelled', error: null });
      expect(answer.endedAt).not.toBeNull();
      expect((await final).phase).toBe('cancelled');
      expect(await docker.getImage(viaProxy).inspect().then(() => true, () => false)).toBe(false);
      // Cancelling again answers with how it ended.
      expect((await app.handlers['images:cancel-pull']({ pullId: started.pullId })).phase).toBe('cancelled');
    } finally {
      await proxy.close();
      await removeImage(viaProxy).catch(() => undefined);
    }
  });

  it('an unknown pull id is PULL_NOT_FOUND', async () => {
    await expect(app.handlers['images:cancel-pull']({ pullId: 'pull-nope' })).rejects.toMatchObject({ code: 'PULL_NOT_FOUND' });
  });
});

describe('image pulls through the SSH engine', () => {
  it('pulls over the test bed sshd with the same progress view', async () => {
    const engineId = await connectTestbedServer(app);
    await removeImage(IMAGE);
    const started = await app.handlers['images:pull']({ engineId, image: IMAGE });
    const { events, final } = collectPull(app.hub, started.pullId);
    const done = await final;
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ engineId, phase: 'done', percent: 100 });
    expect(done.layersDone).toBe(done.layersTotal);
    expect(done.bytesTotal).toBeGreaterThan(BIG_LAYER_BYTES);
    expect(events.some((e) => e.phase === 'downloading' || e.phase === 'extracting')).toBe(true);
    expect(await docker.getImage(IMAGE).inspect().then(() => true)).toBe(true);
  });
});
