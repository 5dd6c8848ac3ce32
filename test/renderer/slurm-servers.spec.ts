import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SlurmJobView } from '../../electron/shared/schemas-slurm';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import { FakeApi, makeProfileView, makeServerView } from './fake-api';

// The Slurm UI through the fake API: the profile form's Slurm section (its warnings, its fields, the
// schema's messages as field errors), the server card's jobs panel (queued with its reason, running
// with time left ticking down, the time-limit warning, a failed job's output tail) and Cancel's
// confirmation that names the job.

let api: FakeApi;
const ENGINE = 'ssh-hpc';

function job(overrides: Partial<SlurmJobView> = {}): SlurmJobView {
  return {
    id: '123',
    name: 'agentswarm-qwen',
    comment: 'agentswarm profile=qwen app=0.1.0',
    user: 'alice',
    partition: 'debug',
    state: 'RUNNING',
    reason: null,
    node: 'vm',
    exitCode: null,
    signal: null,
    timeLimitSeconds: 3600,
    timeLeftSeconds: 1800,
    submitTime: '2026-12-04T12:00:00Z',
    startTime: '2026-12-04T12:00:01Z',
    endTime: null,
    outputPath: '~/.agentswarm/slurm/agentswarm-qwen/out/123.out',
    gres: 'gres:gpu:1',
    priority: 1,
    pendingPosition: null,
    engineId: ENGINE,
    profileId: 'qwen',
    port: 10086,
    limitWarning: null,
    outputTail: [],
    readAt: new Date().toISOString(),
    ...overrides,
  };
}

let jobs: SlurmJobView[] = [];

beforeEach(() => {
  setLocale('en');
  api = new FakeApi();
  setApiForTests(api);
  const server = makeServerView({ id: 'hpc', label: 'hpc-login', docker: { engine: 'slurm', transport: 'socket', socketPath: '/var/run/docker.sock' } }, { state: 'up' });
  api.serverViews = [server];
  api.engineList.push({ id: ENGINE, kind: 'slurm', label: 'hpc-login', endpoint: 'ssh://alice@hpc.example.org:22' });
  jobs = [];
  api.answer('slurm:jobs', () => structuredClone(jobs));
});

afterEach(() => {
  vi.useRealTimers();
});

async function panel(): Promise<HTMLElement> {
  return screen.findByRole('region', { name: 'Slurm jobs on hpc-login' });
}

async function jobItem(id: string): Promise<HTMLElement> {
  const box = await panel();
  return waitFor(() => {
    const item = within(box).getAllByTestId('slurm-job').find((el) => el.dataset.jobId === id);
    if (!item) throw new Error(`job ${id} not shown`);
    return item;
  });
}

describe('profile form on a Slurm login node', () => {
  async function openForm(): Promise<HTMLElement> {
    render(App);
    const list = await screen.findByRole('region', { name: /Swarm profiles · .*hpc-login/ });
    // The section appears once the engine says it is Slurm.
    await waitFor(() => expect(screen.getByTestId('slurm-jobs')).toBeTruthy());
    await fireEvent.click(within(list).getByTestId('profile-new'));
    return screen.findByTestId('profile-dialog');
  }

  // The first render of the whole App pays for the cold imports: slow on a busy 2-core machine.
  it('shows the Slurm section with the honest warnings instead of the container fields', { timeout: 60_000 }, async () => {
    const dialog = await openForm();
    const section = within(dialog).getByRole('group', { name: 'Slurm job' });
    const warning = within(section).getByRole('note');
    expect(warning.textContent).toContain('listens on every network interface');
    expect(warning.textContent).toContain('has no authentication');
    expect(warning.textContent).toContain('training on this server stops then');
    expect(warning.textContent).toContain('The app warns 300 s before.');
    for (const name of ['Partition', 'Account', 'QoS', 'Time limit', 'Number of GPUs', 'CPUs per task', 'Memory (GB)', 'Warn before the time limit (seconds)']) {
      expect(within(section).getByRole('textbox', { name })).toBeTruthy();
    }
    expect(within(section).getByRole('group', { name: 'GPUs' })).toBeTruthy();
    expect((within(section).getByRole('radio', { name: 'Natively (ajet-swarm from an environment)' }) as HTMLInputElement).checked).toBe(true);
    // The Docker-only fields are gone: no network mode, shared memory or image mirrors.
    expect(within(dialog).queryByRole('group', { name: 'Network' })).toBeNull();
    expect(within(dialog).queryByRole('group', { name: 'Shared memory' })).toBeNull();
    await fireEvent.click(within(section).getByRole('radio', { name: 'In Podman' }));
    expect(within(section).getByRole('textbox', { name: 'Image (pulled on the compute node)' })).toBeTruthy();
    await fireEvent.input(within(section).getByRole('textbox', { name: 'Warn before the time limit (seconds)' }), { target: { value: '600' } });
    expect(warning.textContent).toContain('The app warns 600 s before.');
  });

  it('shows the schema\'s messages as field errors, focuses the first, and sends the job options once fixed', async () => {
    const dialog = await openForm();
    const section = within(dialog).getByRole('group', { name: 'Slurm job' });
    // After a submit a field's name ends with its error (the error is inside its label, as everywhere in the form).
    const field = (name: string) => within(section).getByRole('textbox', { name: new RegExp(`^${name.replace(/[()?.*+]/g, '\\$&')}`) }) as HTMLInputElement;
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Name' }), { target: { value: 'Qwen' } });
    await fireEvent.input(field('Partition'), { target: { value: '-gpu' } });
    await fireEvent.input(field('Time limit'), { target: { value: '1:30' } });
    await fireEvent.input(field('Number of GPUs'), { target: { value: '0' } });
    await fireEvent.input(field('Warn before the time limit (seconds)'), { target: { value: '5' } });
    await fireEvent.click(within(dialog).getByTestId('profile-form-submit'));

    const partitionError = await within(dialog).findByTestId('profile-form-error-slurmPartition');
    expect(partitionError.textContent).toContain('no part may start with "-"');
    expect(field('Partition').getAttribute('aria-invalid')).toBe('true');
    expect(field('Partition').getAttribute('aria-describedby')).toContain(partitionError.id);
    expect(within(dialog).getByTestId('profile-form-error-slurmTimeLimit').textContent).toContain('would mean minutes:seconds to Slurm: write hours as 1:30:00');
    expect(within(dialog).getByTestId('profile-form-error-slurmGpus').textContent).toContain('GPU count must be at least 1');
    expect(within(dialog).getByTestId('profile-form-error-slurmWarn').textContent).toContain('warn at least 10 seconds before the limit');
    await waitFor(() => expect(document.activeElement).toBe(field('Partition')));
    expect(api.requestsOn('profiles:add')).toHaveLength(0);

    await fireEvent.input(field('Partition'), { target: { value: 'debug' } });
    await fireEvent.input(field('Time limit'), { target: { value: '1:30:00' } });
    await fireEvent.input(field('Number of GPUs'), { target: { value: '2' } });
    await fireEvent.input(field('GPU type (optional, e.g. a100)'), { target: { value: 'fake' } });
    await fireEvent.input(field('Warn before the time limit (seconds)'), { target: { value: '120' } });
    await fireEvent.input(field('Activate line (e.g. module load cuda && source ~/venv/bin/activate)'), { target: { value: 'source ~/venv/bin/activate' } });
    await fireEvent.click(within(dialog).getByTestId('profile-form-submit'));
    await waitFor(() => expect(api.requestsOn('profiles:add')).toHaveLength(1));
    const sent = api.requestsOn('profiles:add')[0] as { engineId: string; mode: string; nativeActivate: string | null; slurm: unknown };
    expect(sent.engineId).toBe(ENGINE);
    expect(sent.mode).toBe('native');
    expect(sent.nativeActivate).toBe('source ~/venv/bin/activate');
    expect(sent.slurm).toEqual({
      partition: 'debug',
      account: null,
      qos: null,
      timeLimit: '1:30:00',
      gpus: { flag: 'gres', count: 2, type: 'fake' },
      cpusPerTask: null,
      memoryGb: null,
      warnBeforeLimitSeconds: 120,
      workDir: null,
      run: { mode: 'native', activate: 'source ~/venv/bin/activate' },
    });
  });

  it('in Chinese: the section and its warning are translated', async () => {
    api.settingsValue.language = 'zh-CN';
    render(App);
    await waitFor(() => expect(screen.getByTestId('slurm-jobs')).toBeTruthy());
    const list = screen.getAllByTestId('profile-list').find((el) => el.dataset.engineId === ENGINE)!;
    await fireEvent.click(within(list).getByTestId('profile-new'));
    const dialog = await screen.findByTestId('profile-dialog');
    const section = within(dialog).getByRole('group', { name: 'Slurm 作业' });
    expect(within(section).getByRole('note').textContent).toContain('没有身份验证');
    expect(within(section).getByRole('textbox', { name: '分区' })).toBeTruthy();
  });
});

describe('Slurm jobs panel on the server card', () => {
  it('a queued job: "Queued" with its reason in words and its position', async () => {
    jobs = [job({ state: 'PENDING', reason: 'Resources', node: null, pendingPosition: 2, timeLeftSeconds: 3600 }), job({ id: '124', state: 'PENDING', reason: 'QOSMaxGRESPerUser', node: null, pendingPosition: 3 })];
    render(App);
    const item = await jobItem('123');
    expect(within(item).getByRole('heading').textContent).toBe('Job 123 (agentswarm-qwen)');
    const state = within(item).getByRole('status', { name: 'State of Slurm job 123' });
    expect(within(state).getByTestId('slurm-job-state').textContent).toBe('Queued');
    expect(within(item).getByTestId('slurm-job-reason').textContent).toMatch(/Queued: waiting for free GPUs\/CPUs\s*·\s*position 2 in the queue/);
    expect(within(item).queryByTestId('slurm-job-node')).toBeNull();
    const other = await jobItem('124');
    expect(within(other).getByTestId('slurm-job-reason').textContent).toContain('a QoS limit is reached (too many GPUs or jobs of yours already run) (QOSMaxGRESPerUser)');
  });

  it('a running job: node, GPUs, and time left counting down from when it was read; refreshed on change events, not on a timer', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, now: new Date('2026-12-04T12:30:00.000Z') });
    jobs = [job({ readAt: '2026-12-04T12:30:00.000Z', timeLeftSeconds: 1800 })];
    render(App);
    const item = await jobItem('123');
    expect(within(item).getByTestId('slurm-job-state').textContent).toBe('Running');
    expect(within(item).getByTestId('slurm-job-slurm-state').textContent).toBe('Slurm: RUNNING');
    expect(within(item).getByTestId('slurm-job-node').textContent).toBe('vm');
    expect(within(item).getByTestId('slurm-job-gpus').textContent).toBe('gres:gpu:1');
    expect(within(item).getByTestId('slurm-job-time-left').textContent?.trim()).toBe('30:00 of 1:00:00');
    const calls = api.requestsOn('slurm:jobs').length;
    await vi.advanceTimersByTimeAsync(5_000);
    await waitFor(() => expect(within(item).getByTestId('slurm-job-time-left').textContent?.trim()).toBe('29:55 of 1:00:00'));
    // No timer of its own: the backend's one queue poll tells of changes (each window polling cost the controller).
    await vi.advanceTimersByTimeAsync(60_000);
    expect(api.requestsOn('slurm:jobs').length).toBe(calls);
    api.emit('swarm:containers-changed', { engineId: 'local' });
    api.emit('swarm:containers-changed', { engineId: ENGINE });
    await vi.advanceTimersByTimeAsync(400);
    await waitFor(() => expect(api.requestsOn('slurm:jobs').length).toBe(calls + 1));
    expect(api.requestsOn('slurm:jobs').at(-1)).toEqual({ engineId: ENGINE });
  });

  it('ended jobs can be cleared one by one or all at once; a queued or running one has Cancel, not Clear', async () => {
    jobs = [job({ id: '121', state: 'FAILED', exitCode: 1, timeLeftSeconds: null }), job({ id: '122', state: 'COMPLETED', exitCode: 0, timeLeftSeconds: null }), job({ id: '123' })];
    api.answer('slurm:clear', (request) => {
      const ids = (request as { jobIds?: string[] }).jobIds ?? ['121', '122'];
      jobs = jobs.filter((j) => !ids.includes(j.id));
      return { cleared: ids };
    });
    render(App);
    expect(within(await jobItem('123')).queryByTestId('slurm-job-clear')).toBeNull();
    await fireEvent.click(within(await jobItem('121')).getByRole('button', { name: 'Clear job 121' }));
    await waitFor(() => expect(api.requestsOn('slurm:clear')).toEqual([{ engineId: ENGINE, jobIds: ['121'] }]));
    await waitFor(() => expect(screen.getAllByTestId('slurm-job').map((el) => el.dataset.jobId)).toEqual(['122', '123']));
    await fireEvent.click(screen.getByRole('button', { name: 'Clear ended jobs (1)' }));
    await waitFor(() => expect(api.requestsOn('slurm:clear').at(-1)).toEqual({ engineId: ENGINE }));
    await waitFor(() => expect(screen.getAllByTestId('slurm-job').map((el) => el.dataset.jobId)).toEqual(['123']));
    expect(screen.queryByTestId('slurm-jobs-clear-ended')).toBeNull();
  });

  it('the time-limit warning is shown prominently, as an alert', async () => {
    jobs = [job({ timeLeftSeconds: 250, limitWarning: { at: '2026-12-04T12:55:00Z', seconds: 300 } })];
    render(App);
    const item = await jobItem('123');
    const alert = within(item).getByRole('alert');
    expect(alert.textContent).toContain('Time limit in 300 s');
    expect(alert.textContent).toContain('training on it stops');
  });

  it('a failed job: its exit code, reason and the tail of its output; no Cancel', async () => {
    jobs = [job({ state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 127, timeLeftSeconds: null, outputTail: ['[agentswarm] ajet-swarm is not on PATH on vm after the activate line', 'bye'] })];
    render(App);
    const item = await jobItem('123');
    expect(within(item).getByTestId('slurm-job-state').textContent).toBe('Failed');
    expect(within(item).getByTestId('slurm-job-exit').textContent).toMatch(/Exit code 127\s*· Reason: NonZeroExitCode/);
    expect(within(item).getByTestId('slurm-job-tail').textContent).toBe('[agentswarm] ajet-swarm is not on PATH on vm after the activate line\nbye');
    expect(within(item).queryByTestId('slurm-job-cancel')).toBeNull();
  });

  it('a job that hit its time limit: TIMEOUT in words with its output tail', async () => {
    jobs = [job({ state: 'TIMEOUT', reason: 'TimeLimit', exitCode: 0, signal: 15, timeLeftSeconds: null, outputTail: ['*** JOB 123 ON vm CANCELLED AT 2026-12-04T13:00:00 DUE TO TIME LIMIT ***'] })];
    render(App);
    const item = await jobItem('123');
    expect(within(item).getByTestId('slurm-job-state').textContent).toBe('Stopped at its time limit');
    expect(within(item).getByTestId('slurm-job-exit').textContent).toContain('Exit code 0, signal 15');
    expect(within(item).getByTestId('slurm-job-tail').textContent).toContain('DUE TO TIME LIMIT');
  });

  it('Cancel asks first, naming the job and the server; "Keep it" sends nothing; yes stops the profile', async () => {
    api.profileViews = [makeProfileView({ id: 'qwen', label: 'Qwen', engineId: ENGINE, mode: 'native' })];
    jobs = [job()];
    render(App);
    const item = await jobItem('123');
    await fireEvent.click(within(item).getByRole('button', { name: 'Cancel job 123' }));
    let dialog = await screen.findByRole('dialog', { name: 'Cancel Slurm job 123?' });
    expect(within(dialog).getByTestId('slurm-cancel-text').textContent).toBe('Cancel Slurm job 123 (agentswarm-qwen) on hpc-login? Training on it stops.');
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep it' })));
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    await waitFor(() => expect(screen.queryByTestId('slurm-cancel-dialog')).toBeNull());
    expect(api.requestsOn('profiles:stop')).toHaveLength(0);

    await fireEvent.click(within(item).getByRole('button', { name: 'Cancel job 123' }));
    dialog = await screen.findByRole('dialog', { name: 'Cancel Slurm job 123?' });
    jobs = [job({ state: 'CANCELLED', timeLeftSeconds: null, exitCode: 0, signal: 15 })];
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel the job' }));
    await waitFor(() => expect(api.requestsOn('profiles:stop')).toEqual([{ profileId: 'qwen' }]));
    await waitFor(async () => expect(within(await jobItem('123')).getByTestId('slurm-job-state').textContent).toBe('Cancelled'));
  });

  it('the profile card\'s Stop on a Slurm node names the job too, and stops through the profile', async () => {
    const view = makeProfileView({ id: 'qwen', label: 'Qwen', engineId: ENGINE, mode: 'native' });
    view.runtime.container = api.makeContainer({ id: '123', engineId: ENGINE, name: 'agentswarm-qwen-ab12cd' });
    api.profileViews = [view];
    jobs = [job()];
    render(App);
    const card = await screen.findByRole('article', { name: 'Qwen' });
    await fireEvent.click(within(card).getByTestId('profile-stop'));
    const confirm = within(card).getByTestId('profile-confirm-stop');
    expect(within(confirm).getByTestId('profile-confirm-text').textContent).toBe('Cancel Slurm job 123 (agentswarm-qwen) on hpc-login? Training on it stops.');
    await fireEvent.click(within(confirm).getByTestId('profile-confirm-yes'));
    await waitFor(() => expect(api.requestsOn('profiles:stop')).toEqual([{ profileId: 'qwen' }]));
  });

  it('a job without a profile is cancelled by its id (swarm:stop)', async () => {
    api.containers = [api.makeContainer({ id: '77', engineId: ENGINE })];
    jobs = [job({ id: '77', profileId: null, name: 'agentswarm-quick' })];
    render(App);
    const item = await jobItem('77');
    await fireEvent.click(within(item).getByRole('button', { name: 'Cancel job 77' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel Slurm job 77?' });
    expect(within(dialog).getByTestId('slurm-cancel-text').textContent).toBe('Cancel Slurm job 77 (agentswarm-quick) on hpc-login? Training on it stops.');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel the job' }));
    await waitFor(() => expect(api.requestsOn('swarm:stop')).toEqual([{ engineId: ENGINE, containerId: '77' }]));
  });

  it('in Chinese: state, reason and the confirmation', async () => {
    api.settingsValue.language = 'zh-CN';
    jobs = [job({ state: 'PENDING', reason: 'Priority', node: null, pendingPosition: 4 })];
    render(App);
    const box = await screen.findByRole('region', { name: 'hpc-login 上的 Slurm 作业' });
    const item = await waitFor(() => within(box).getByTestId('slurm-job'));
    expect(within(item).getByTestId('slurm-job-state').textContent).toBe('排队中');
    expect(within(item).getByTestId('slurm-job-reason').textContent).toContain('优先级更高的作业先运行');
    await fireEvent.click(within(item).getByRole('button', { name: '取消作业 123' }));
    const dialog = await screen.findByTestId('slurm-cancel-dialog');
    expect(within(dialog).getByTestId('slurm-cancel-text').textContent).toBe('要取消 hpc-login 上的 Slurm 作业 123（agentswarm-qwen）吗？其上的训练将停止。');
  });
});
