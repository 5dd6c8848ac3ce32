// SSH servers end to end through the app's own handlers (contract-checked): the test bed's real
// OpenSSH sshd (127.0.0.1:2222, a user in group docker) and its real dockerd, the fake swarm image.
// Needs `bash test/testbed/testbed.sh up`. Nothing is mocked except the swarm server (a labelled
// TEST DOUBLE image).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshAuthOutcome } from '../../electron/services/ssh/ssh-auth';
import type { ServerProfileDraft, ServerView } from '../../electron/shared/schemas-servers';
import { ServerProfileInput, engineIdOfServer } from '../../electron/shared/schemas-servers';
import { freePort, poll, recordSwarmStatuses, waitForEvent } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadTestbed } from '../testbed/testbed';

const tb = loadTestbed();

/** Every auth attempt the app's sessions made, in order (the outcomes never hold a secret). */
const authAttempts: { hop: number; outcome: SshAuthOutcome }[] = [];
const tuning = { onAuthAttempt: (hop: number, outcome: SshAuthOutcome) => authAttempts.push({ hop, outcome }) };
const triedSince = (from: number) => authAttempts.slice(from).filter((a) => a.outcome.result === 'tried');

function profile(extra: Partial<ServerProfileDraft> = {}): ServerProfileInput {
  return ServerProfileInput.parse({
    label: 'testbed',
    host: tb.ssh.host,
    port: tb.ssh.port,
    username: tb.ssh.user,
    authMethods: ['key'],
    identityFiles: [tb.ssh.plainKeyPath],
    ...extra,
  });
}

/** All events the app emitted, as JSON: where the canary must never show up. */
function recordEvents(app: TestApp): string[] {
  const seen: string[] = [];
  app.hub.subscribe((channel, payload) => seen.push(`${channel} ${JSON.stringify(payload)}`));
  return seen;
}

function serverIn(views: ServerView[], id: string): ServerView | undefined {
  return views.find((v) => v.profile.id === id);
}

/** The servers as listed now if they already satisfy `predicate`, else the first snapshot event that does. */
async function serversWhen(app: TestApp, predicate: (views: ServerView[]) => boolean, timeoutMs = 30_000): Promise<ServerView[]> {
  const event = waitForEvent(app.hub, 'servers:changed', predicate, timeoutMs);
  const now = await app.handlers['servers:list']({});
  if (predicate(now)) {
    event.catch(() => undefined);
    return now;
  }
  return event;
}

/** Up, with every tunnel's probe green. */
/**
 * This file's swarm server's tunnel (by its remote port): the test bed's dockerd may run other servers meanwhile
 * (npm test's timer lane starts its own beside this file), each with a tunnel of its own on this server.
 */
const ownTunnel = (view: ServerView | undefined, remotePort: number) => view?.tunnels.find((t) => t.remotePort === remotePort);
/**
 * The link is up as far as this file's server goes: 'up', or 'degraded' only for another server's tunnel (a probe of a
 * server that another file stops or kills meanwhile names that server's port), never for ours.
 */
const upForOurs = (view: ServerView | undefined, remotePort: number): boolean =>
  view?.state === 'up' || (view?.state === 'degraded' && view.reason !== null && !view.reason.message.includes(`port ${remotePort} `));
const upAndGreen = (id: string, remotePort: number) => (views: ServerView[]) => {
  const v = serverIn(views, id);
  return upForOurs(v, remotePort) && ownTunnel(v, remotePort)?.probe?.ok === true;
};

/**
 * The PIDs of the sshd processes that hold the other end of this process's connection to the test
 * bed's sshd, read from `ss -tnp` (both ends are on this machine).
 */
function sshdPidsServingUs(): number[] {
  const rows = execFileSync('ss', ['-tnpH', 'state', 'established'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 5);
  const sshd = `${tb.ssh.host}:${tb.ssh.port}`;
  const ourPorts = rows.filter((f) => f[3] === sshd && f.slice(4).join(' ').includes(`pid=${process.pid},`)).map((f) => f[2]!);
  const pids = rows
    .filter((f) => f[2] === sshd && ourPorts.includes(f[3]!))
    .flatMap((f) => [...f.slice(4).join(' ').matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])));
  return [...new Set(pids)];
}

/** Signals each PID; one that already exited (its parent took it along) is what we wanted. */
function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('SSH servers against the test bed sshd and dockerd', () => {
  let app: TestApp;
  /** Set once the restart test has replaced `app`: the app that owns the data folder and the cleanup. */
  let firstApp: TestApp | null = null;
  let events: string[];
  let id = '';
  let engineId = '';
  let tunnelPort = 0;
  let blocker: net.Server;
  let scratch = '';
  let containerId = '';
  let swarmPort = 0;
  let monitorUrl = '';

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'agentswarm-servers-'));
    app = await startTestApp({ ssh: { tuning } });
    events = recordEvents(app);
    tunnelPort = await freePort();
    swarmPort = await freePort();
    // Something else holds the tunnel's preferred local port: the tunnel must take the next one.
    blocker = net.createServer();
    await new Promise<void>((ok) => blocker.listen(tunnelPort, '127.0.0.1', ok));
  });

  afterAll(async () => {
    await new Promise((ok) => blocker?.close(ok));
    if (firstApp) await app?.stop();
    await (firstApp ?? app)?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('adds a server as an engine of its own, with no secret in its endpoint', async () => {
    const enginesChanged = waitForEvent(app.hub, 'engines:changed', () => true);
    const view = await app.handlers['servers:add'](profile({ tunnelLocalPort: tunnelPort }));
    await enginesChanged;
    id = view.profile.id;
    engineId = engineIdOfServer(id);
    expect(view).toMatchObject({ engineId, state: 'disconnected', reason: null, hostKey: null, prompt: null, tunnels: [] });
    expect(id).toBe('testbed');
    const engines = await app.handlers['engines:list']({});
    expect(engines).toContainEqual({ id: engineId, kind: 'ssh-docker', label: 'testbed', endpoint: `ssh://${tb.ssh.user}@${tb.ssh.host}:${tb.ssh.port}/var/run/docker.sock` });
    await expect(app.handlers['servers:add'](profile({ label: 'Testbed' }))).rejects.toMatchObject({ code: 'SERVER_EXISTS' });
    await expect(app.handlers['servers:add'](profile({ label: 'other' }))).rejects.toMatchObject({ code: 'SERVER_EXISTS' });
    await expect(app.handlers['servers:connect']({ serverId: 'nope' })).rejects.toMatchObject({ code: 'SERVER_NOT_FOUND' });
  });

  it('refuses an unknown host key before any login, asks about it, and trusts exactly that key', async () => {
    const from = authAttempts.length;
    const asked = waitForEvent(app.hub, 'servers:changed', (views) => serverIn(views, id)?.hostKey !== null);
    const view = await app.handlers['servers:connect']({ serverId: id });
    expect(view.state).toBe('down');
    expect(view.reason?.code).toBe('SSH_HOST_KEY_UNKNOWN');
    expect(view.hostKey).toMatchObject({ status: 'unknown', fingerprint: tb.ssh.hostKeyFingerprint, keyType: 'ssh-ed25519', hop: 0, host: tb.ssh.host, port: tb.ssh.port, knownFingerprints: [] });
    expect(serverIn(await asked, id)?.hostKey?.fingerprint).toBe(tb.ssh.hostKeyFingerprint);
    expect(authAttempts.slice(from)).toEqual([]);

    // A fingerprint other than the one shown writes nothing.
    const other = `SHA256:${'A'.repeat(43)}`;
    await expect(app.handlers['servers:trust-host-key']({ serverId: id, fingerprint: other })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const knownHosts = join(app.dataDir, 'known_hosts');
    expect(() => statSync(knownHosts)).toThrow();

    const up = await app.handlers['servers:trust-host-key']({ serverId: id, fingerprint: tb.ssh.hostKeyFingerprint });
    expect(up).toMatchObject({ state: 'up', reason: null, hostKey: null, authMethod: 'key', attempt: 0 });
    // The real ssh accepts the line the app wrote, with strict checking and nothing else to go by.
    const out = execFileSync(
      'ssh',
      ['-F', 'none', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-i', tb.ssh.plainKeyPath, '-p', String(tb.ssh.port), `${tb.ssh.user}@${tb.ssh.host}`, 'echo', 'agreed'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(out.trim()).toBe('agreed');
  });

  it('tests the connection in stages with the trusted key, and lists hosts of the app\'s ssh config', async () => {
    const report = await app.handlers['servers:test']({ serverId: id });
    expect(report.serverId).toBe(id);
    const byStage = Object.fromEntries(report.stages.map((st) => [st.stage, st.status]));
    expect(byStage).toMatchObject({ tcp: 'pass', handshake: 'pass', 'host-key': 'pass', auth: 'pass', 'docker-version': 'pass', 'docker-permission': 'pass' });

    writeFileSync(join(app.dataDir, 'ssh_config'), `Host gpu-alias\n  HostName ${tb.ssh.host}\n  Port ${tb.ssh.port}\n  User ${tb.ssh.user}\n`);
    const listing = await app.handlers['servers:ssh-config']({});
    expect(listing).toMatchObject({ path: join(app.dataDir, 'ssh_config'), exists: true });
    expect(listing.hosts.find((h) => h.alias === 'gpu-alias')?.profile).toMatchObject({ host: tb.ssh.host, port: tb.ssh.port, username: tb.ssh.user });
  });

  it('starts the swarm on the server and watches ENGINE.OFFLINE through the tunnel on the next free local port', async () => {
    const statuses = recordSwarmStatuses(app.hub);
    const container = await app.handlers['swarm:start']({ engineId, image: tb.fakeSwarmImage, port: swarmPort, networkMode: 'host', gpus: false, shmSizeGb: 1 });
    containerId = container.id;
    expect(container).toMatchObject({ engineId, state: 'running', port: swarmPort });
    const status = await statuses.of(containerId, (s) => s.engineId === engineId && s.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE').finally(statuses.stop);
    monitorUrl = status.url;

    const views = await serversWhen(app, upAndGreen(id, swarmPort));
    const tunnel = ownTunnel(serverIn(views, id), swarmPort)!;
    expect(tunnel).toMatchObject({ remotePort: swarmPort, requestedLocalPort: tunnelPort, portWasTaken: true });
    expect(tunnel.localPort).toBeGreaterThan(tunnelPort);
    expect(tunnel.url).toBe(`http://127.0.0.1:${tunnel.localPort}`);
    // The URL the monitor polls is the tunnel's, not the taken port.
    expect(monitorUrl).toBe(tunnel.url);
    expect(tunnel.probe).toMatchObject({ ok: true, engineStatus: 'ENGINE.OFFLINE', error: null });
    expect(tunnel.links.map((l) => [l.link, l.ok])).toEqual([
      ['ssh', true],
      ['local-port', true],
      ['remote-container', true],
      ['swarm-api', true],
    ]);
    expect(tunnel.sshCommand).toContain(`-L 127.0.0.1:${tunnel.localPort}:127.0.0.1:${swarmPort}`);
  });

  it('heals after the sshd process serving the connection is killed: up with a green probe within 5 s', async () => {
    const pids = sshdPidsServingUs();
    expect(pids.length).toBeGreaterThan(0);
    const reconnecting = waitForEvent(app.hub, 'servers:changed', (views) => serverIn(views, id)?.state === 'reconnecting');
    const killedAt = Date.now();
    signal(pids, 'SIGKILL');
    const lost = serverIn(await reconnecting, id)!;
    expect(lost.reason?.code).toBe('SSH_DISCONNECTED');
    expect(lost.nextRetryAt).not.toBeNull();
    // Green again: a fresh probe after the reconnect (its time is after the kill).
    await waitForEvent(
      app.hub,
      'servers:changed',
      (views) => upAndGreen(id, swarmPort)(views) && Date.parse(ownTunnel(serverIn(views, id), swarmPort)!.probe!.checkedAt) > killedAt,
      5000,
    );
    const healedMs = Date.now() - killedAt;
    expect(healedMs).toBeLessThan(5000);
    console.log(`ssh-servers: up with a green probe ${healedMs} ms after the kill`);
    expect(sshdPidsServingUs().some((pid) => pids.includes(pid))).toBe(false);

    // Docker calls and the monitor work on the new connection; the monitor's URL did not change.
    expect((await app.handlers['swarm:list']({ engineId })).map((c) => c.id)).toContain(containerId);
    await poll('the monitor to read the server through the healed tunnel', 5000, async () => {
      const s = (await app.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === containerId);
      return s?.connection === 'online' && Date.parse(s.checkedAt) > killedAt ? s : undefined;
    });
    const status = (await app.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === containerId)!;
    expect(status.url).toBe(monitorUrl);
  });

  it('re-validates at once when the system resumes: a dead link reconnects without waiting for keepalives', async () => {
    const before = serverIn(await app.handlers['servers:list']({}), id)!;
    const pids = sshdPidsServingUs();
    // SIGSTOP: the sshd stops answering but its TCP stays open, like a link that died during sleep.
    signal(pids, 'SIGSTOP');
    try {
      const resumedAt = Date.now();
      app.services.systemResumed();
      await waitForEvent(app.hub, 'servers:changed', (views) => {
        const v = serverIn(views, id);
        return v?.state === 'up' && v.connectedSince !== before.connectedSince;
      }, 10_000);
      expect(Date.now() - resumedAt).toBeLessThan(10_000);
    } finally {
      signal(pids, 'SIGKILL');
    }
  });

  it('finds the server and its running container again after an app restart, and watches it through the tunnel', async () => {
    // The test bed's sshd runs on the machine of its dockerd, so Local Docker sees the container too
    // (and watches it on its own port): every lookup below names the SSH engine.
    await app.stop();
    const restarted = await startTestApp({ dataDir: app.dataDir, ssh: { tuning } });
    try {
      const views = await restarted.handlers['servers:list']({});
      expect(serverIn(views, id)?.profile).toMatchObject({ label: 'testbed', tunnelLocalPort: tunnelPort });
      expect((await restarted.handlers['engines:list']({})).map((e) => e.id)).toContain(engineId);
      const status = await poll('the restarted app to watch the container through the tunnel', 15_000, async () => {
        const s = (await restarted.handlers['swarm:statuses']({})).find((x) => x.engineId === engineId && x.containerId === containerId);
        return s?.connection === 'online' && s.engineStatus === 'ENGINE.OFFLINE' ? s : undefined;
      });
      const server = serverIn(await restarted.handlers['servers:list']({}), id)!;
      expect(upForOurs(server, swarmPort), JSON.stringify(server.reason)).toBe(true);
      expect(status.url).toBe(ownTunnel(server, swarmPort)?.url);
      // The profile file holds no secret and no state.
      const stored = readFileSync(join(app.dataDir, 'servers.json'), 'utf8');
      expect(JSON.parse(stored)).toEqual({ servers: [expect.objectContaining({ id, label: 'testbed' })] });
    } finally {
      await restarted.stop();
    }
    // Go on with a third app on the same data folder; the first one (stopped) still owns the folder
    // and the container cleanup, at the end.
    firstApp = app;
    app = await startTestApp({ dataDir: firstApp.dataDir, ssh: { tuning } });
    events = recordEvents(app);
  });

  it('stopping the swarm server closes its tunnel: the local port is free again and the server stays up, not degraded', async () => {
    const before = await poll('the third app to reconnect and reopen the tunnel', 15_000, async () => {
      const view = serverIn(await app.handlers['servers:list']({}), id);
      return upForOurs(view, swarmPort) && ownTunnel(view, swarmPort)?.localPort ? view : undefined;
    });
    const localPort = ownTunnel(before, swarmPort)!.localPort!;
    await app.handlers['swarm:stop']({ engineId, containerId });
    const after = serverIn(await app.handlers['servers:list']({}), id)!;
    expect(ownTunnel(after, swarmPort)).toBeUndefined();
    // Nothing listens on the tunnel's local port any more.
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(localPort, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    // Past one probe period (5 s), the link is still up: no dead tunnel of ours is left to probe.
    await new Promise((ok) => setTimeout(ok, 5500));
    const settled = serverIn(await app.handlers['servers:list']({}), id)!;
    expect(ownTunnel(settled, swarmPort)).toBeUndefined();
    if (settled.tunnels.length === 0) expect(settled).toMatchObject({ state: 'up', reason: null });
    else expect(upForOurs(settled, swarmPort), JSON.stringify(settled.reason)).toBe(true);
  });

  it('a wrong password ends down with SSH_AUTH_FAILED and is never retried', async () => {
    await app.handlers['servers:remove']({ serverId: id });
    const server = await app.handlers['servers:add'](profile({ label: 'password', authMethods: ['password'], identityFiles: [] }));
    const from = authAttempts.length;
    const prompted = waitForEvent(app.hub, 'servers:changed', (views) => serverIn(views, server.profile.id)?.prompt !== null);
    const connecting = app.handlers['servers:connect']({ serverId: server.profile.id });
    const prompt = serverIn(await prompted, server.profile.id)!.prompt!;
    expect(prompt).toMatchObject({ kind: 'password', echo: false, serverId: server.profile.id });
    await app.handlers['servers:answer-prompt']({ promptId: prompt.promptId, value: 'wrong-password-canary' });
    await connecting;
    const down = await poll('the login to fail', 10_000, async () => {
      const v = serverIn(await app.handlers['servers:list']({}), server.profile.id);
      return v?.state === 'down' ? v : undefined;
    });
    expect(down.reason?.code).toBe('SSH_AUTH_FAILED');
    expect(down).toMatchObject({ nextRetryAt: null, prompt: null });
    // Longer than the first backoff step (0.5 s + 20 %): a retry would have shown by now.
    await new Promise((ok) => setTimeout(ok, 1500));
    expect(triedSince(from).map((a) => a.outcome.attempt)).toEqual(['password']);
    expect(serverIn(await app.handlers['servers:list']({}), server.profile.id)?.state).toBe('down');
    await expect(app.handlers['servers:answer-prompt']({ promptId: prompt.promptId, value: 'late' })).rejects.toMatchObject({ code: 'PROMPT_NOT_FOUND' });
    expect(events.join('\n')).not.toContain('wrong-password-canary');
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('a key the server does not know ends down with SSH_AUTH_FAILED after one attempt', async () => {
    const stranger = join(scratch, 'id_stranger');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
    const server = await app.handlers['servers:add'](profile({ label: 'stranger', identityFiles: [stranger] }));
    const from = authAttempts.length;
    const view = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(view.state).toBe('down');
    expect(view.reason?.code).toBe('SSH_AUTH_FAILED');
    await new Promise((ok) => setTimeout(ok, 1500));
    expect(triedSince(from).map((a) => a.outcome.attempt)).toEqual(['key']);
    expect(serverIn(await app.handlers['servers:list']({}), server.profile.id)?.state).toBe('down');
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('refuses a changed host key without logging in, shows old and new fingerprints, and replaces it only when asked', async () => {
    const other = join(scratch, 'other_host_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    const otherFingerprint = execFileSync('ssh-keygen', ['-lf', `${other}.pub`], { encoding: 'utf8' }).split(' ')[1]!;
    const knownHosts = join(app.dataDir, 'known_hosts');
    const otherKey = readFileSync(`${other}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    writeFileSync(knownHosts, `[${tb.ssh.host}]:${tb.ssh.port} ${otherKey}\n`);

    const server = await app.handlers['servers:add'](profile({ label: 'changed' }));
    const from = authAttempts.length;
    const view = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(view.state).toBe('down');
    expect(view.reason?.code).toBe('SSH_HOST_KEY_CHANGED');
    expect(view.hostKey).toMatchObject({ status: 'changed', fingerprint: tb.ssh.hostKeyFingerprint, knownFingerprints: [otherFingerprint] });
    expect(authAttempts.slice(from)).toEqual([]);
    // Trusting is not the way to replace a key.
    await expect(app.handlers['servers:trust-host-key']({ serverId: server.profile.id, fingerprint: tb.ssh.hostKeyFingerprint })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(readFileSync(knownHosts, 'utf8')).toContain(otherKey);

    const replaced = await app.handlers['servers:replace-host-key']({ serverId: server.profile.id, fingerprint: tb.ssh.hostKeyFingerprint });
    expect(replaced).toMatchObject({ state: 'up', hostKey: null });
    expect(readFileSync(knownHosts, 'utf8')).not.toContain(otherKey);
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });

  it('asks for the passphrase of an encrypted key, connects with it, and the passphrase never leaves the session', async () => {
    const server = await app.handlers['servers:add'](profile({ label: 'encrypted', identityFiles: [tb.ssh.encryptedKeyPath] }));
    const prompted = waitForEvent(app.hub, 'servers:changed', (views) => serverIn(views, server.profile.id)?.prompt !== null);
    // connect answers as soon as there is a question for the user, carrying it.
    const asking = await app.handlers['servers:connect']({ serverId: server.profile.id });
    expect(asking.state).toBe('connecting');
    const prompt = serverIn(await prompted, server.profile.id)!.prompt!;
    expect(prompt).toMatchObject({ kind: 'passphrase', echo: false });
    expect(asking.prompt?.promptId).toBe(prompt.promptId);
    expect(prompt.prompt).toContain(tb.ssh.encryptedKeyPath);
    const up = waitForEvent(app.hub, 'servers:changed', (views) => serverIn(views, server.profile.id)?.state === 'up', 10_000);
    expect(await app.handlers['servers:answer-prompt']({ promptId: prompt.promptId, value: tb.ssh.encryptedKeyPassphrase })).toEqual({ accepted: true });
    expect(serverIn(await up, server.profile.id)).toMatchObject({ authMethod: 'key', prompt: null });

    // A reconnect uses the passphrase kept in memory: no second question.
    await app.handlers['servers:disconnect']({ serverId: server.profile.id });
    expect((await app.handlers['servers:connect']({ serverId: server.profile.id })).state).toBe('up');

    const canary = tb.ssh.encryptedKeyPassphrase;
    expect(events.join('\n')).not.toContain(canary);
    for (const file of filesUnder(app.dataDir)) expect(readFileSync(file, 'latin1'), file).not.toContain(canary);
    const log = await app.handlers['app:log']({ lines: 500 });
    expect(log.lines.join('\n')).not.toContain(canary);
    await app.handlers['servers:remove']({ serverId: server.profile.id });
  });
});
