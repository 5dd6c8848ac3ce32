// Stored, followed logs and crash detection against the test bed's real dockerd (and its sshd for
// one test): containers of the fake swarm image (a TEST DOUBLE of the AgentJet server), or of that
// image running a `node -e` script that prints numbered lines. The app's own handlers, contract-checked.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_MANAGED, LABEL_NETWORK, LABEL_PORT, LABEL_ROLE } from '../../electron/services/engines/container-engine';
import type { LogLine } from '../../electron/shared/schemas-profiles';
import { ServerProfileInput, engineIdOfServer } from '../../electron/shared/schemas-servers';
import { freePort, poll, recordSwarmStatuses, waitForEvent } from '../support/helpers';
import { startTestApp, TEST_CONTAINER_LABELS, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';

const tb = loadTestbed();
const docker = new Docker({ socketPath: tb.dockerSocket });
const PHASE = 5000;

/**
 * Waits for /tmp/start (so the test listens before the first line is stored: an idle machine's app stored them all
 * while it started, before the test could listen for the event), then prints `line 0`…`line 4999` on stdout (every
 * 10th also `err <i>` on stderr), waits for /tmp/go,
 * prints `line 5000`…`line 9999` the same way and `done`, then stays up. Writes a swarm_server.log first.
 */
const PRINTER = `
const fs = require('fs');
fs.mkdirSync('/workspace/log', { recursive: true });
fs.writeFileSync('/workspace/log/swarm_server.log', Array.from({ length: 300 }, (_, i) => 'server line ' + i).join('\\n') + '\\n');
function phase(from) {
  let out = '', err = '';
  for (let i = from; i < from + ${PHASE}; i++) { out += 'line ' + i + '\\n'; if (i % 10 === 0) err += 'err ' + i + '\\n'; }
  fs.writeSync(1, out); fs.writeSync(2, err);
}
function after(file, then) { const wait = setInterval(() => { if (fs.existsSync(file)) { clearInterval(wait); then(); } }, 50); }
after('/tmp/start', () => { phase(0); after('/tmp/go', () => { phase(${PHASE}); fs.writeSync(1, 'done\\n'); }); });
setInterval(() => {}, 1 << 30);
`;

/** A container with the swarm labels (so the app watches it) that runs PRINTER instead of the server. */
async function startPrinter(): Promise<string> {
  const port = await freePort();
  const container = await docker.createContainer({
    Image: tb.fakeSwarmImage,
    Entrypoint: ['node'],
    Cmd: ['-e', PRINTER],
    Labels: { ...TEST_CONTAINER_LABELS, [LABEL_MANAGED]: 'true', [LABEL_ROLE]: 'swarm-server', [LABEL_PORT]: String(port), [LABEL_NETWORK]: 'host' },
    HostConfig: { NetworkMode: 'host', Init: true },
  });
  await container.start();
  return container.id;
}

async function execIn(id: string, script: string): Promise<void> {
  const exec = await docker.getContainer(id).exec({ Cmd: ['node', '-e', script], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  await new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.resume();
  });
}

async function allLines(app: TestApp, containerId: string, engineId = 'local'): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  for (;;) {
    const window = await app.handlers['logs:read']({ engineId, containerId, from: lines.length, count: 5000, filter: { text: '', regex: false, stream: 'all' } });
    lines.push(...window.lines);
    if (lines.length >= window.total || window.lines.length === 0) return lines;
  }
}

describe('stored logs on the local Docker engine', () => {
  let first: TestApp;
  let app: TestApp | null = null;
  let printer = '';

  beforeAll(async () => {
    printer = await startPrinter();
    first = await startTestApp();
  });

  afterAll(async () => {
    await app?.stop();
    await first?.dispose();
  });

  it('follows every line in order, and after a backend restart continues without duplicates or gaps', async () => {
    const ref = { engineId: 'local', containerId: printer };
    const appended = waitForEvent(first.hub, 'logs:appended', (e) => e.containerId === printer && e.total > 0);
    await execIn(printer, "require('fs').writeFileSync('/tmp/start', '')");
    await poll('the first phase stored', 30_000, async () => ((await first.handlers['logs:read']({ ...ref, from: -1, count: 1, filter: { text: '', regex: false, stream: 'all' } })).total >= PHASE * 1.1 ? true : undefined));
    const event = await appended;
    expect(event.lines.length).toBeLessThanOrEqual(200);
    expect(event.lines.at(-1)?.n).toBe(event.total - 1);

    // The backend goes away; the container prints the second half meanwhile.
    await first.stop();
    await execIn(printer, "require('fs').writeFileSync('/tmp/go', '')");
    await poll('the container printed everything', 30_000, async () => {
      // stdout and stderr are two pipes: `done` need not be the very last line Docker stored.
      const tail = (await docker.getContainer(printer).logs({ stdout: true, stderr: true, tail: 1000, follow: false })) as unknown as Buffer;
      return tail.toString().includes('done\n') ? true : undefined;
    });

    app = await startTestApp({ dataDir: first.dataDir });
    const expected = PHASE * 2 * 1.1 + 1;
    await poll('every line stored after the restart', 30_000, async () => ((await app!.handlers['logs:read']({ ...ref, from: -1, count: 1, filter: { text: '', regex: false, stream: 'all' } })).total >= expected ? true : undefined));
    const lines = await allLines(app, printer);
    expect(lines).toHaveLength(expected);
    expect(lines.map((l) => l.n)).toEqual(lines.map((_, i) => i));
    const stdout = lines.filter((l) => l.stream === 'stdout').map((l) => l.text);
    expect(stdout).toEqual([...Array.from({ length: PHASE * 2 }, (_, i) => `line ${i}`), 'done']);
    const stderr = lines.filter((l) => l.stream === 'stderr').map((l) => l.text);
    expect(stderr).toEqual(Array.from({ length: PHASE / 5 }, (_, i) => `err ${i * 10}`));
    expect(lines.every((l) => l.time !== null)).toBe(true);
  });

  it('searches by substring (any case) and regex, filters stderr, refuses an invalid regex with the reason', async () => {
    const read = (filter: { text: string; regex: boolean; stream: 'all' | 'stdout' | 'stderr' }, from = 0, count = 500) =>
      app!.handlers['logs:read']({ engineId: 'local', containerId: printer, from, count, filter });
    const substring = await read({ text: 'LINE 42', regex: false, stream: 'all' });
    // line 42, 420–429, 4200–4299.
    expect(substring.matching).toBe(111);
    expect(substring.lines.map((l) => l.text).slice(0, 3)).toEqual(['line 42', 'line 420', 'line 421']);
    const regex = await read({ text: '^line 9\\d{3}$', regex: true, stream: 'stdout' }, -1, 10);
    expect(regex.matching).toBe(1000);
    expect(regex.from).toBe(990);
    expect(regex.lines.map((l) => l.text)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${9990 + i}`));
    const stderr = await read({ text: '', regex: false, stream: 'stderr' }, 0, 3);
    expect(stderr.matching).toBe(1000);
    expect(stderr.lines.every((l) => l.stream === 'stderr')).toBe(true);
    await expect(read({ text: '(unclosed', regex: true, stream: 'all' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('regular expression') });
  });

  it('exports the whole stored log as plain text and says where', async () => {
    const exported = await app!.handlers['logs:export']({ engineId: 'local', containerId: printer });
    try {
      expect(exported.lines).toBe(PHASE * 2 * 1.1 + 1);
      const text = readFileSync(exported.path, 'utf8').split('\n');
      // stdout and stderr are two pipes: how their lines interleave varies; each stream's first line is known.
      expect(text.find((l) => !l.includes('[stderr]'))).toMatch(/^\d{4}-\d\d-\d\dT\S+ line 0$/);
      expect(text.find((l) => l.includes('[stderr]'))).toMatch(/^\d{4}-\d\d-\d\dT\S+ \[stderr\] err 0$/);
      expect(text.filter((l) => l.includes('[stderr] err '))).toHaveLength(PHASE / 5);
      expect(exported.bytes).toBe(readFileSync(exported.path).length);
    } finally {
      rmSync(exported.path, { force: true });
    }
  });

  it('reads the tail of /workspace/log/swarm_server.log inside the container', async () => {
    const tail = await app!.handlers['logs:server-log']({ engineId: 'local', containerId: printer, lines: 100 });
    expect(tail).toEqual({ path: '/workspace/log/swarm_server.log', found: true, lines: Array.from({ length: 100 }, (_, i) => `server line ${200 + i}`) });
  });

  it('reports a killed server with its exit code and last lines from the event stream, long before the next poll', async () => {
    // A poll interval of a minute: only Docker's `die` event can report the crash quickly.
    const slow = await startTestApp({ monitorIntervalMs: 60_000 });
    try {
      const port = await freePort();
      const statuses = recordSwarmStatuses(slow.hub);
      const container = await slow.handlers['swarm:start']({ engineId: 'local', image: tb.fakeSwarmImage, port, networkMode: 'host', gpus: false, shmSizeGb: 1 });
      await statuses.of(container.id, (s) => s.connection === 'online', 60_000).finally(statuses.stop);
      const crashed = waitForEvent(slow.hub, 'swarm:status', (s) => s.containerId === container.id && s.connection === 'stopped' && s.exit !== null, 20_000);
      const killedAt = Date.now();
      await docker.getContainer(container.id).kill();
      const status = await crashed;
      expect(Date.now() - killedAt).toBeLessThan(20_000);
      expect(status.exit).toMatchObject({ kind: 'killed', code: 137 });
      expect(status.exit?.tail?.join('\n')).toContain('Interchange server is running');
      // The swarm_server.log is absent in the fake: said plainly, not an error.
      await expect(slow.handlers['logs:server-log']({ engineId: 'local', containerId: container.id, lines: 10 })).resolves.toMatchObject({ found: false, lines: [] });
      // The ended container's log was read to its end and is kept.
      await poll('the log read to its end', 10_000, async () => {
        const window = await slow.handlers['logs:read']({ engineId: 'local', containerId: container.id, from: 0, count: 100, filter: { text: 'Interchange', regex: false, stream: 'all' } });
        return window.matching > 0 && !window.following ? true : undefined;
      });
      // Removed with the container: the stored log goes too, once the monitor has seen it gone (a moment after Remove
      // returns). Read all along meanwhile: a read while it was being removed opened the file again, and that empty log
      // stayed (idle CI-AC).
      await slow.handlers['swarm:remove']({ engineId: 'local', containerId: container.id });
      const readIt = () => slow.handlers['logs:read']({ engineId: 'local', containerId: container.id, from: 0, count: 1, filter: { text: '', regex: false, stream: 'all' } });
      await poll('the stored log removed with its container', 15_000, () => readIt().then(() => undefined, (error: { code?: string }) => (error.code === 'LOG_NOT_FOUND' ? true : undefined)), 10);
      await expect(readIt()).rejects.toMatchObject({ code: 'LOG_NOT_FOUND' });
      // Not found from the moment it is being removed; its file is gone a moment later.
      await poll('the stored log file deleted', 15_000, async () => (existsSync(join(slow.dataDir, 'logs', 'local', `${container.id}.log`)) ? undefined : true));
    } finally {
      await slow.stop();
    }
  });
});

describe('stored logs and crash detection over SSH (the test bed sshd)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(async () => {
    await app?.dispose();
  });

  it('follows the log of a server on an SSH engine and reports its crash from the event stream', async () => {
    const input = ServerProfileInput.parse({ label: 'logs-testbed', host: tb.ssh.host, port: tb.ssh.port, username: tb.ssh.user, authMethods: ['key'], identityFiles: [tb.ssh.plainKeyPath] });
    const view = await app.handlers['servers:add'](input);
    const serverId = view.profile.id;
    const engineId = engineIdOfServer(serverId);
    await app.handlers['servers:connect']({ serverId });
    const up = await app.handlers['servers:trust-host-key']({ serverId, fingerprint: tb.ssh.hostKeyFingerprint });
    expect(up.state).toBe('up');

    const port = await freePort();
    const statuses = recordSwarmStatuses(app.hub);
    const container = await app.handlers['swarm:start']({ engineId, image: tb.fakeSwarmImage, port, networkMode: 'host', gpus: false, shmSizeGb: 1 });
    await statuses.of(container.id, (s) => s.engineId === engineId && s.connection === 'online', 60_000).finally(statuses.stop);
    await poll('the startup lines stored', 30_000, async () => {
      const window = await app.handlers['logs:read']({ engineId, containerId: container.id, from: 0, count: 100, filter: { text: 'interchange server is running', regex: false, stream: 'all' } });
      return window.matching === 1 && window.following ? true : undefined;
    });

    const crashed = waitForEvent(app.hub, 'swarm:status', (s) => s.engineId === engineId && s.containerId === container.id && s.connection === 'stopped' && s.exit !== null, 30_000);
    await docker.getContainer(container.id).kill();
    const status = await crashed;
    expect(status.exit).toMatchObject({ kind: 'killed', code: 137 });
    expect(status.exit?.tail?.join('\n')).toContain('Interchange server is running');
  });
});
