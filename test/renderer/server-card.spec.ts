import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, makeServerView, makeTunnel } from './fake-api';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

afterEach(() => {
  vi.useRealTimers();
});

async function card(): Promise<HTMLElement> {
  return screen.findByTestId('server-card');
}

describe('server card', () => {
  it('shows label, user@host:port, jump hosts and a polite state region', async () => {
    api.serverViews = [
      makeServerView({ label: 'gpu-box', jumps: [{ host: 'bastion', port: 2200, username: 'bob', identityFiles: [] }] }, { state: 'up', authMethod: 'agent' }),
    ];
    render(App);
    const box = await card();
    expect(within(box).getByRole('heading').textContent).toBe('gpu-box');
    expect(within(box).getByTestId('server-address').textContent).toBe('alice@gpu.example.org:22');
    expect(within(box).getByTestId('server-jumps').textContent).toBe('via bob@bastion:2200');
    const region = within(box).getByTestId('server-state');
    expect(region.getAttribute('role')).toBe('status');
    expect(within(region).getByTestId('server-state-badge').textContent).toBe('Connected');
    expect(region.textContent).toContain('logged in with ssh-agent');
    expect(within(box).getByTestId('server-disconnect')).toBeTruthy();
    expect(within(box).queryByTestId('server-connect')).toBeNull();
  });

  it('follows state changes from servers:changed: reconnecting with the reason and "next try in N s"', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, now: new Date('2026-12-03T12:00:00.000Z') });
    api.serverViews = [makeServerView({}, { state: 'up' })];
    render(App);
    const box = await card();
    await waitFor(() => expect(api.listenerCount('servers:changed')).toBe(1));
    api.serverViews[0] = makeServerView(
      {},
      {
        state: 'reconnecting',
        attempt: 2,
        nextRetryAt: '2026-12-03T12:00:08.000Z',
        reason: { code: 'SSH_DISCONNECTED', message: 'Keepalive timeout (3 missed)' },
      },
    );
    api.pushServers();
    await waitFor(() => expect(within(box).getByTestId('server-state-badge').textContent).toBe('Reconnecting'));
    const reason = within(box).getByTestId('server-reason');
    expect(reason.dataset.errorCode).toBe('SSH_DISCONNECTED');
    expect(reason.textContent).toContain('The SSH connection to the server was lost.');
    expect(reason.textContent).toContain('Keepalive timeout (3 missed)');
    expect(within(box).getByTestId('server-next-try').textContent).toBe('next try in 8 s (attempt 2)');
    vi.advanceTimersByTime(3000);
    await waitFor(() => expect(within(box).getByTestId('server-next-try').textContent).toBe('next try in 5 s (attempt 2)'));

    api.serverViews[0] = makeServerView({}, { state: 'down', reason: { code: 'SSH_AUTH_FAILED', message: 'publickey refused' } });
    api.pushServers();
    await waitFor(() => expect(within(box).getByTestId('server-state-badge').textContent).toBe('Down'));
    expect(within(box).queryByTestId('server-next-try')).toBeNull();
    expect(within(box).getByTestId('server-connect')).toBeTruthy();
  });

  it('connects and disconnects through the api, and shows a failed connect as a banner on the card', async () => {
    api.serverViews = [makeServerView()];
    render(App);
    const box = await card();
    await fireEvent.click(within(box).getByTestId('server-connect'));
    await waitFor(() => expect(api.requestsOn('servers:connect')).toEqual([{ serverId: 'gpu-box' }]));
    await waitFor(() => expect(within(box).getByTestId('server-state-badge').textContent).toBe('Connecting…'));
    await fireEvent.click(within(box).getByTestId('server-disconnect'));
    await waitFor(() => expect(api.requestsOn('servers:disconnect')).toEqual([{ serverId: 'gpu-box' }]));

    api.failNext('servers:connect', { code: 'SSH_UNREACHABLE', message: 'connect ECONNREFUSED 10.0.0.5:22' });
    await fireEvent.click(await within(box).findByTestId('server-connect'));
    const banner = await within(box).findByTestId('error-banner');
    expect(banner.textContent).toContain('connect ECONNREFUSED 10.0.0.5:22');
  });

  it('asks before removing, saying containers on the server keep running; Cancel keeps the server', async () => {
    api.serverViews = [makeServerView()];
    render(App);
    const box = await card();
    await fireEvent.click(within(box).getByTestId('server-remove'));
    const confirm = within(box).getByTestId('server-remove-confirm');
    expect(confirm.textContent).toContain('Containers on the server keep running');
    expect(api.requestsOn('servers:remove')).toEqual([]);
    await fireEvent.click(within(confirm).getByTestId('server-remove-cancel'));
    expect(within(box).queryByTestId('server-remove-confirm')).toBeNull();

    // Escape on either button of the question cancels it too, and the keyboard is back on Remove.
    await fireEvent.click(within(box).getByTestId('server-remove'));
    await fireEvent.keyDown(within(box).getByTestId('server-remove-confirm-button'), { key: 'Escape' });
    await waitFor(() => expect(within(box).queryByTestId('server-remove-confirm')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(within(box).getByTestId('server-remove')));
    expect(api.requestsOn('servers:remove')).toEqual([]);

    await fireEvent.click(within(box).getByTestId('server-remove'));
    await fireEvent.click(within(box).getByTestId('server-remove-confirm-button'));
    await waitFor(() => expect(api.requestsOn('servers:remove')).toEqual([{ serverId: 'gpu-box' }]));
    await waitFor(() => expect(screen.queryByTestId('server-card')).toBeNull());
    expect(screen.getByTestId('servers-empty')).toBeTruthy();
  });
});

describe('tunnel panel and link chain', () => {
  it('shows the tunnel URL, a moved port with its holder, and each link green, red or grey with its detail', async () => {
    const tunnel = makeTunnel({
      requestedLocalPort: 10086,
      localPort: 10087,
      url: 'http://127.0.0.1:10087',
      portWasTaken: true,
      portTakenBy: 'python3 (pid 4242)',
      links: [
        { link: 'ssh', ok: true, detail: 'alice@gpu.example.org:22' },
        { link: 'local-port', ok: true, detail: '127.0.0.1:10087' },
        { link: 'remote-container', ok: false, detail: 'no container listens on 127.0.0.1:10086' },
        { link: 'swarm-api', ok: null, detail: null },
      ],
    });
    api.serverViews = [makeServerView({}, { state: 'degraded', tunnels: [tunnel] })];
    render(App);
    const panel = await screen.findByTestId('tunnel');
    expect(within(panel).getByTestId('tunnel-url').textContent).toBe('http://127.0.0.1:10087');
    expect(within(panel).getByTestId('tunnel-port-taken').textContent?.trim()).toBe(
      'Port 10086 was taken by python3 (pid 4242), using 10087.',
    );
    const chain = within(panel).getByTestId('link-chain');
    expect(chain.getAttribute('aria-label')).toBe('Link health');
    const state = (link: string) => within(chain).getByTestId(`link-${link}`).dataset.state;
    expect([state('ssh'), state('local-port'), state('remote-container'), state('swarm-api')]).toEqual(['ok', 'ok', 'bad', 'unknown']);
    const broken = within(chain).getByTestId('link-remote-container');
    expect(broken.textContent).toContain('Remote container');
    expect(broken.textContent).toContain('broken');
    expect(broken.textContent).toContain('no container listens on 127.0.0.1:10086');
    expect(within(chain).getByTestId('link-swarm-api').textContent).toContain('not known yet');
  });

  it('says "was taken" without a holder when the OS does not name one', async () => {
    api.serverViews = [makeServerView({}, { state: 'up', tunnels: [makeTunnel({ localPort: 10087, portWasTaken: true, portTakenBy: null })] })];
    render(App);
    expect((await screen.findByTestId('tunnel-port-taken')).textContent?.trim()).toBe('Port 10086 was taken, using 10087.');
  });

  it('copies the equivalent ssh -N -L command', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const command = 'ssh -N -L 127.0.0.1:10086:127.0.0.1:10086 -J bob@bastion:2200 alice@gpu.example.org -p 22';
    api.serverViews = [makeServerView({}, { state: 'up', tunnels: [makeTunnel({ sshCommand: command })] })];
    render(App);
    const panel = await screen.findByTestId('tunnel');
    expect(within(panel).getByTestId('tunnel-ssh-command').textContent).toBe(command);
    await fireEvent.click(within(panel).getByTestId('tunnel-copy'));
    expect(writeText).toHaveBeenCalledWith(command);
    await waitFor(() => expect(within(panel).getByTestId('tunnel-copy-outcome').textContent?.trim()).toBe('Copied.'));
  });

  it('selects the command for Ctrl+C when the clipboard refuses', async () => {
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new Error('denied')) }, configurable: true });
    api.serverViews = [makeServerView({}, { state: 'up', tunnels: [makeTunnel()] })];
    render(App);
    const panel = await screen.findByTestId('tunnel');
    await fireEvent.click(within(panel).getByTestId('tunnel-copy'));
    await waitFor(() => expect(within(panel).getByTestId('tunnel-copy-outcome').textContent).toContain('press Ctrl+C'));
    expect(window.getSelection()?.toString()).toBe(makeTunnel().sshCommand);
  });
});

describe('Test connection', () => {
  it('renders every stage with its status, detail, error and fix', async () => {
    api.serverViews = [makeServerView()];
    api.diagnosticsReport = {
      serverId: 'gpu-box',
      target: 'alice@gpu.example.org:22',
      finishedAt: '2026-12-03T12:00:00.000Z',
      stages: [
        { stage: 'tcp', status: 'pass', detail: '10.0.0.5:22 in 4 ms', error: null, fix: null, durationMs: 4 },
        { stage: 'handshake', status: 'pass', detail: 'OpenSSH_9.2p1', error: null, fix: null, durationMs: 20 },
        { stage: 'host-key', status: 'pass', detail: 'ssh-ed25519 SHA256:abc', error: null, fix: null, durationMs: 1 },
        { stage: 'auth', status: 'pass', detail: 'agent', error: null, fix: null, durationMs: 30 },
        { stage: 'docker-version', status: 'pass', detail: 'Docker 27.5.1 (API 1.47)', error: null, fix: null, durationMs: 12 },
        {
          stage: 'docker-permission',
          status: 'fail',
          detail: null,
          error: { code: 'ENGINE_PERMISSION_DENIED', message: 'permission denied on /var/run/docker.sock' },
          fix: 'sudo usermod -aG docker alice',
          durationMs: 3,
        },
        { stage: 'gpus', status: 'skipped', detail: null, error: null, fix: null, durationMs: 0 },
      ],
    };
    render(App);
    const box = await card();
    await fireEvent.click(within(box).getByTestId('server-test'));
    const report = await within(box).findByTestId('diagnostics');
    expect(api.requestsOn('servers:test')).toEqual([{ serverId: 'gpu-box' }]);
    expect(report.textContent).toContain('Tested against alice@gpu.example.org:22.');
    const stages = within(report).getAllByRole('listitem');
    // Issue 32: the failing stage first; the passed and skipped ones folded (closed) under one line.
    expect(stages.map((li) => li.dataset.status)).toEqual(['fail', 'pass', 'pass', 'pass', 'pass', 'pass', 'skipped']);
    expect(within(report).getByTestId('diag-summary').textContent?.trim()).toBe('5 stages passed');
    const fold = within(report).getByTestId('diag-passed') as HTMLDetailsElement;
    expect(fold.open).toBe(false);
    expect(fold.querySelector('summary')?.textContent).toBe('Show the stages that passed or were skipped (6)');
    // Said once: the stage's error is not repeated as the link's reason or a second box.
    expect(within(box).getAllByText(/permission denied on \/var\/run\/docker.sock/)).toHaveLength(1);
    expect(within(report).getByTestId('diag-stage-docker-version').textContent).toContain('Docker 27.5.1 (API 1.47)');
    const failed = within(report).getByTestId('diag-stage-docker-permission');
    expect(failed.textContent).toContain('Engine socket permission');
    expect(failed.textContent).toContain('fail');
    expect(within(failed).getByTestId('diag-error').textContent).toContain('permission denied on /var/run/docker.sock');
    expect(within(failed).getByTestId('diag-fix').textContent).toBe('Fix: sudo usermod -aG docker alice');
    expect(within(report).getByTestId('diag-stage-gpus').textContent).toContain('skipped');
  });
});

describe('Test connection, all passed', () => {
  it('folds the seven stages into one line, "All 7 stages passed", with each stage a click away (issue 32)', async () => {
    api.serverViews = [makeServerView()];
    const pass = (stage: 'tcp' | 'handshake' | 'host-key' | 'auth' | 'docker-version' | 'docker-permission' | 'gpus') => ({ stage, status: 'pass' as const, detail: 'ok', error: null, fix: null, durationMs: 2 });
    api.diagnosticsReport = {
      serverId: 'gpu-box',
      target: 'alice@gpu.example.org:22',
      finishedAt: '2026-12-03T12:00:00.000Z',
      stages: [pass('tcp'), pass('handshake'), pass('host-key'), pass('auth'), pass('docker-version'), pass('docker-permission'), pass('gpus')],
    };
    render(App);
    const box = await card();
    await fireEvent.click(within(box).getByTestId('server-test'));
    const report = await within(box).findByTestId('diagnostics');
    expect(within(report).getByTestId('diag-summary').textContent?.trim()).toBe('All 7 stages passed');
    expect(within(report).queryByTestId('diag-needs-you')).toBeNull();
    const fold = within(report).getByTestId('diag-passed') as HTMLDetailsElement;
    expect(fold.open).toBe(false);
    await fireEvent.click(fold.querySelector('summary')!);
    expect(fold.open).toBe(true);
    expect(within(fold).getAllByRole('listitem')).toHaveLength(7);
  });
});

describe('remote engine section', () => {
  it('checks the engine and reloads its containers again when the link comes (back) up', async () => {
    api.serverViews = [makeServerView({}, { state: 'reconnecting' })];
    api.engineList.push({ id: 'ssh-gpu-box', kind: 'ssh-docker', label: 'gpu-box', endpoint: 'ssh://alice@gpu.example.org:22' });
    render(App);
    const section = await screen.findByTestId('server-section');
    await waitFor(() => expect(api.requestsOn('swarm:list')).toContainEqual({ engineId: 'ssh-gpu-box' }));
    const before = api.requestsOn('swarm:list').filter((r) => JSON.stringify(r).includes('ssh-gpu-box')).length;
    api.serverViews[0]!.state = 'up';
    api.pushServers();
    await waitFor(() =>
      expect(api.requestsOn('swarm:list').filter((r) => JSON.stringify(r).includes('ssh-gpu-box')).length).toBe(before + 1),
    );
    expect(api.requestsOn('engines:health')).toContainEqual({ engineId: 'ssh-gpu-box' });
    expect(within(section).getByTestId('engine-card').textContent).toContain('Docker engine on gpu-box');
  });
});

describe('start form of a remote engine', () => {
  it('says the port is on the server and reached through the tunnel, not at 127.0.0.1 directly', async () => {
    api.serverViews = [makeServerView({}, { state: 'up' })];
    api.engineList.push({ id: 'ssh-gpu-box', kind: 'ssh-docker', label: 'gpu-box', endpoint: 'ssh://alice@gpu.example.org:22' });
    render(App);
    const section = await screen.findByTestId('server-section');
    const hint = await within(section).findByTestId('swarm-url-hint');
    expect(hint.textContent).toContain('It listens on port 10086 of the server.');
    expect(hint.textContent).not.toContain('127.0.0.1');
  });
});

describe('disconnect while connecting', () => {
  it('sends disconnect while a connect is still running', async () => {
    api.serverViews = [makeServerView()];
    render(App);
    const box = await card();
    const release = api.hold('servers:connect');
    await fireEvent.click(within(box).getByTestId('server-connect'));
    api.serverViews[0]!.state = 'connecting';
    api.pushServers();
    const disconnect = await within(box).findByTestId('server-disconnect');
    expect(disconnect.getAttribute('aria-disabled')).toBe('false');
    await fireEvent.click(disconnect);
    await waitFor(() => expect(api.requestsOn('servers:disconnect')).toEqual([{ serverId: 'gpu-box' }]));
    release();
  });
});
