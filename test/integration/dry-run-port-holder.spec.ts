// The app recognises its own dry run holding a port (issue 31): the real dry run listens on a port, then the
// doctor, Start and a tunnel's local listener meet that port. Real dockerd (the test bed), real sockets, /proc.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Profile, ProfileInput } from '../../electron/shared/schemas-profiles';
import { runHandler } from '../../electron/services/ipc/run-handler';
import { PROFILES_FILE } from '../../electron/services/profiles/profile-store';
import { listenOnLoopback } from '../../electron/services/ssh/loopback-listen';
import { identifyPortHolder } from '../../electron/services/ssh/port-holder';
import { Empty } from '../../electron/shared/schemas';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';

const tb = loadTestbed();
let app: TestApp;
let dataDir: string;
let port: number;

beforeAll(async () => {
  port = await freePort();
  const now = new Date().toISOString();
  const input = ProfileInput.parse({ label: 'beside-dry-run', engineId: 'local', image: tb.fakeSwarmImage, gpus: { mode: 'none' }, port, shm: { mode: 'size', gb: 16 } });
  dataDir = mkdtempSync(join(tmpdir(), 'agentswarm-port-holder-'));
  writeFileSync(join(dataDir, PROFILES_FILE), JSON.stringify({ profiles: [Profile.parse({ ...input, id: 'beside-dry-run', createdAt: now, updatedAt: now })] }));
  app = await startTestApp({ dataDir });
  const view = await app.handlers['dryrun:start']({
    config: {
      port,
      llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none', secretId: null },
      bootDelayMs: 300,
      trainingStepMs: 300,
      spend: { maxCallsPerEpisode: 5, maxCalls: 10, maxTokens: 10_000 },
    },
  });
  expect(view).toMatchObject({ state: 'running', port });
}, 60_000);

afterAll(async () => {
  await app?.dispose();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("a port held by the app's own dry run", () => {
  it('is named as the dry run (data), not as "node (pid …)"', async () => {
    expect(await identifyPortHolder(port)).toEqual({ kind: 'app-dry-run', port });
  });

  it('the doctor fails the port check with the holder as data, and no `ss` command', async () => {
    const report = await app.handlers['doctor:run']({ profileId: 'beside-dry-run' });
    const check = report.checks.find((c) => c.id === 'port');
    expect(check).toMatchObject({ status: 'fail', portHolder: { kind: 'app-dry-run', port }, command: null });
    expect(check?.detail).toContain("the app's own dry run");
    expect(check?.detail).not.toMatch(/node \(pid/);
  }, 60_000);

  it('Start refuses with PORT_IN_USE carrying holder app-dry-run, and the envelope keeps those params', async () => {
    const start = () => app.handlers['swarm:start']({ engineId: 'local', image: tb.fakeSwarmImage, port, networkMode: 'host', gpus: false, shmSizeGb: 1 });
    await expect(start()).rejects.toMatchObject({ code: 'PORT_IN_USE', params: { holder: 'app-dry-run', port } });
    // Through the one dispatch path both transports use: the renderer gets the params too.
    const envelope = await runHandler(Empty, {}, start);
    expect(envelope).toMatchObject({ ok: false, error: { code: 'PORT_IN_USE', params: { holder: 'app-dry-run', port } } });
  }, 60_000);

  it("a tunnel's local listener skips the port and says the dry run holds it", async () => {
    const server = net.createServer();
    try {
      const binding = await listenOnLoopback(server, port);
      expect(binding).toMatchObject({ requestedPort: port, portWasTaken: true, portHolder: { kind: 'app-dry-run', port } });
      expect(binding.port).not.toBe(port);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });

  it('once the dry run stops, the port is nobody’s: the doctor passes it', async () => {
    await app.handlers['dryrun:stop']({});
    expect(await identifyPortHolder(port)).toBeNull();
    const report = await app.handlers['doctor:run']({ profileId: 'beside-dry-run' });
    expect(report.checks.find((c) => c.id === 'port')).toMatchObject({ status: 'pass' });
  }, 60_000);
});
