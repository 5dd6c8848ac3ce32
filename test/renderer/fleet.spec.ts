import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { gpuHours, sparkline, stepsPerHour, timeLeftSeconds } from '../../renderer/src/pages/fleet/fleet-numbers';
import { FakeApi, makeStatus, makeTrainingView } from './fake-api';
import { installFleetFake, makeGpuSample } from './fakes/fleet';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

const at = (minutes: number) => new Date(Date.parse('2026-12-05T10:00:00Z') + minutes * 60_000).toISOString();

describe('fleet numbers', () => {
  it('counts steps per hour from the last hour, or from the pace so far in a younger run', () => {
    const points = [0, 10, 20, 30].map((m, i) => ({ step: i + 1, at: at(m) }));
    expect(stepsPerHour(points, Date.parse(at(31)))).toBeCloseTo(6);
    const long = Array.from({ length: 9 }, (_, i) => ({ step: i + 1, at: at(i * 15) }));
    expect(stepsPerHour(long, Date.parse(at(120)))).toBe(5);
    expect(stepsPerHour(points.slice(0, 1), Date.parse(at(1)))).toBeNull();
  });

  it('draws the mean reward into its box, skipping steps without one', () => {
    expect(sparkline([{ step: 1, rewardMean: 0 }, { step: 2, rewardMean: null }, { step: 3, rewardMean: 1 }], 100, 20)).toBe('0.0,20.0 100.0,0.0');
    expect(sparkline([{ step: 1, rewardMean: 0.5 }], 100, 20)).toBe('');
  });

  it('counts GPU-hours as GPUs × hours held, and time left down from when Slurm was read', () => {
    const state = { phase: 'training' as const, container: { startedAt: at(0), finishedAt: null } as never };
    expect(gpuHours(state, 4, Date.parse(at(90)))).toBeCloseTo(6);
    expect(gpuHours(state, 0, Date.parse(at(90)))).toBeNull();
    expect(timeLeftSeconds({ timeLeftSeconds: 600, readAt: at(0) }, Date.parse(at(1)))).toBe(540);
  });
});

describe('the fleet home', () => {
  it('shows every engine with its servers: state, engine status, step, clients, reward, GPUs and GPU-hours', async () => {
    const reports = installFleetFake(api, [makeGpuSample()], [{ engineId: 'local', perGpuHour: 2.5, currency: 'EUR' }]);
    const c = api.makeContainer({ name: 'agentswarm-night-run' });
    api.containers = [c];
    api.statusList = [makeStatus(c.id, { engineStatus: 'ENGINE.ROLLING', globalStep: 12, connection: 'online' })];
    api.trainingViews = [makeTrainingView(c.id, { globalStep: 12, activeClients: [{ clientUuid: 'a', agreedSyncWeight: true }, { clientUuid: 'b', agreedSyncWeight: true }] })];
    api.trainingSeries = [
      {
        engineId: 'local',
        containerId: c.id,
        runId: 'r1',
        timeline: [],
        points: [1, 2, 3].map((step) => ({ step, at: new Date(Date.now() - (4 - step) * 60_000).toISOString(), rewardMean: step / 10, rewardStd: 0, rewardMin: 0, rewardMax: 1, episodes: 2, secondsInStatus: {}, batch: 'pool' as const, seconds: 60, llmTokens: null, llmCalls: null, failures: null })),
      },
    ];
    render(App);
    await fireEvent.click(screen.getByTestId('nav-fleet'));
    const row = await screen.findByTestId('fleet-server');
    expect(within(row).getByText('agentswarm-night-run')).toBeTruthy();
    expect(within(row).getByTestId('fleet-phase').dataset.phase).toBe('training');
    expect(within(row).getByTestId('fleet-engine-status').textContent).toContain('ENGINE.ROLLING');
    expect(within(row).getByTestId('fleet-step').textContent).toBe('12');
    await waitFor(() => expect(within(row).getByTestId('fleet-clients').textContent).toBe('2'));
    await waitFor(() => expect(within(row).getByRole('img', { name: 'Mean reward over 3 steps, last 0.300' })).toBeTruthy());
    expect(Number(within(row).getByTestId('fleet-steps-per-hour').textContent)).toBeCloseTo(60, -1);
    // Two GPUs for two minutes.
    expect(Number(within(row).getByTestId('fleet-gpu-hours').textContent)).toBeCloseTo(0.07, 1);
    // What they cost at the engine's price per GPU-hour (2.5 EUR): about 0.17 EUR.
    await waitFor(() => expect(within(row).getByTestId('fleet-cost').textContent).toMatch(/^0\.1[67] EUR$/));
    const gpus = screen.getAllByTestId('fleet-gpu');
    expect(gpus.map((g) => g.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['GPU 0 97 % 40.0 / 80.0 GiB', 'GPU 1 2 % 0.5 / 80.0 GiB']);
    // The backend samples faster while the home is shown; it is told so.
    await waitFor(() => expect(reports.shown).toContain(true));
    await fireEvent.click(screen.getByTestId('nav-servers'));
    await waitFor(() => expect(reports.shown.at(-1)).toBe(false));
  });

  it('follows new GPU samples and says why a host has none, in zh-CN too', async () => {
    api.settingsValue.language = 'zh-CN';
    installFleetFake(api, []);
    const c = api.makeContainer();
    api.containers = [c];
    api.statusList = [makeStatus(c.id, { connection: 'online' })];
    render(App);
    await fireEvent.click(await screen.findByTestId('nav-fleet'));
    await screen.findByTestId('fleet-server');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('总览');
    // No price set for this engine: no cost shown.
    expect(screen.queryByTestId('fleet-cost')).toBeNull();
    api.emit('gpus:sampled', makeGpuSample({ gpus: [], error: { kind: 'no-nvidia-smi', message: 'sh: nvidia-smi: not found' } }));
    // This computer in the language shown (the backend's label is English); an SSH server by its label.
    await waitFor(() => expect(screen.getByTestId('fleet-gpus-error').textContent).toBe('本机 上没有 nvidia-smi：那里没有 NVIDIA 驱动，或不在其 PATH 中。'));
    api.emit('gpus:sampled', makeGpuSample({ hostLabel: 'gpu-1 (alice@10.0.0.5)', hostKind: 'ssh', gpus: [], error: { kind: 'failed', message: 'exit 9' } }));
    await waitFor(() => expect(screen.getByTestId('fleet-gpus-error').textContent).toBe('nvidia-smi 在 gpu-1 (alice@10.0.0.5) 上运行失败。'));
  });

  it('lists the alerts, open first, and acknowledges one', async () => {
    installFleetFake(api);
    const alert = { id: 'a1', rule: 'gpus-idle' as const, engineId: 'local', containerId: 'c1', name: '"night run"', state: 'open' as const, openedAt: at(0), resolvedAt: null, detail: '4 GPUs under 5 % for 15 min' };
    const old = { ...alert, id: 'a0', rule: 'no-client' as const, state: 'resolved' as const, resolvedAt: at(5) };
    api.answer('alerts:list', () => [old, alert]);
    api.answer('alerts:acknowledge', () => ({ ...alert, state: 'acknowledged' as const }));
    render(App);
    await fireEvent.click(screen.getByTestId('nav-fleet'));
    const rows = await screen.findAllByTestId('fleet-alert');
    expect(rows.map((r) => [r.dataset.rule, r.dataset.state])).toEqual([['gpus-idle', 'open'], ['no-client', 'resolved']]);
    await fireEvent.click(within(rows[0]!).getByRole('button', { name: 'Acknowledge' }));
    await waitFor(() => expect(screen.getAllByTestId('fleet-alert')[0]!.dataset.state).toBe('acknowledged'));
  });

  it('sends a new user with no server to the Servers page', async () => {
    installFleetFake(api);
    render(App);
    await fireEvent.click(screen.getByTestId('nav-fleet'));
    await fireEvent.click(await screen.findByRole('button', { name: 'Go to Servers' }));
    expect(screen.getByTestId('nav-servers').getAttribute('aria-current')).toBe('page');
  });
});
