import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import axe from 'axe-core';
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setLocale } from '../../renderer/src/lib/i18n';
import { DoctorState } from '../../renderer/src/lib/state/doctor.svelte';
import { PullsState } from '../../renderer/src/lib/state/pulls.svelte';
import DoctorPanel from '../../renderer/src/pages/servers/profiles/DoctorPanel.svelte';
import PullProgress from '../../renderer/src/pages/servers/profiles/PullProgress.svelte';
import { FakeApi, makeDoctorCheck, makeDoctorReport, makePull } from './fake-api';

const FAILING = makeDoctorReport('qwen', { ranAt: new Date(Date.now() - 150_000).toISOString(), durationMs: 2400 }, [
  makeDoctorCheck('gpu-runtime', {
    status: 'fail',
    detail: 'Docker has no NVIDIA runtime and no NVIDIA CDI devices (runtimes: runc), so containers get no GPU.',
    fix: 'Install the NVIDIA Container Toolkit on gpu-1 and register it with Docker, or set GPUs to "none".',
    command: 'sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker',
    commandWhere: 'server',
  }),
  makeDoctorCheck('shm', { status: 'warn', detail: 'The container gets only 2 GiB of shared memory.', fix: 'Raise it to 16 GiB.' }),
  makeDoctorCheck('native-ajet', { status: 'skip', detail: 'The profile runs the swarm server in a container, not natively.' }),
]);

afterEach(() => {
  vi.useRealTimers();
});

function cleanupAndRender(report: ReturnType<typeof makeDoctorReport>): void {
  cleanup();
  render(DoctorPanel, { report });
}

describe('DoctorPanel', () => {
  it('shows the verdict, counts and when it ran; each check with an icon and a word, detail, fix and command', () => {
    render(DoctorPanel, { report: FAILING });
    const panel = screen.getByTestId('doctor-panel');
    expect(panel.dataset.verdict).toBe('fail');
    const verdict = screen.getByTestId('doctor-verdict');
    expect(verdict.textContent).toContain('Will not start until fixed');
    expect(verdict.textContent).toContain('9 passed · 1 warning · 1 failed · 1 skipped');
    expect(screen.getByTestId('doctor-ran').textContent).toContain('checked 2 min ago · in 2.4 s');

    const runtime = screen.getByTestId('doctor-check-gpu-runtime');
    expect(runtime.dataset.status).toBe('fail');
    // Not colour alone: a shape and the word.
    expect(runtime.querySelector('.badge')?.textContent?.replace(/\s+/g, ' ').trim()).toBe('✕ Fail');
    expect(runtime.textContent).toContain('GPUs for containers (NVIDIA runtime or CDI)');
    expect(runtime.textContent).toContain('no NVIDIA runtime');
    expect(within(runtime).getByTestId('doctor-fix').textContent).toContain('Install the NVIDIA Container Toolkit');
    expect(runtime.textContent).toContain('Run on the server:');
    expect(within(runtime).getByTestId('doctor-command').textContent).toBe('sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker');

    expect(screen.getByTestId('doctor-check-shm').querySelector('.badge')?.textContent).toContain('Warning');
    expect(screen.getByTestId('doctor-check-native-ajet').querySelector('.badge')?.textContent).toContain('Skipped');
    // A passing check has no fix and no command to copy.
    const port = screen.getByTestId('doctor-check-port');
    expect(within(port).queryByTestId('doctor-fix')).toBeNull();
    expect(within(port).queryByTestId('doctor-copy')).toBeNull();
    expect(screen.getAllByTestId('doctor-copy')).toHaveLength(1);
  });

  it('folds an all-pass report into one line ("12 checks passed") with the checks a click away (issue 32)', async () => {
    const report = makeDoctorReport('p');
    render(DoctorPanel, { report });
    const total = report.checks.length;
    expect(total).toBeGreaterThanOrEqual(10);
    expect(screen.getByTestId('doctor-counts').textContent).toBe(`${total} checks passed`);
    expect(screen.queryByTestId('doctor-needs-you')).toBeNull();
    const fold = screen.getByTestId('doctor-passed') as HTMLDetailsElement;
    expect(fold.open).toBe(false);
    expect(fold.querySelector('summary')?.textContent).toBe('Show each check');
    await fireEvent.click(fold.querySelector('summary')!);
    expect(fold.open).toBe(true);
    expect(within(fold).getAllByRole('listitem')).toHaveLength(total);
  });

  it('lists only what needs the user; passed and skipped checks fold away; counts use plural forms', () => {
    render(DoctorPanel, { report: FAILING });
    const needs = screen.getByTestId('doctor-needs-you');
    expect(within(needs).getAllByRole('listitem').map((li) => li.dataset.testid)).toEqual(['doctor-check-gpu-runtime', 'doctor-check-shm']);
    const fold = screen.getByTestId('doctor-passed') as HTMLDetailsElement;
    expect(fold.open).toBe(false);
    expect(fold.querySelector('summary')?.textContent).toBe('Show the checks that passed or do not apply (10)');
    // The install command and each fix appear once in the panel.
    expect(screen.getAllByTestId('doctor-command')).toHaveLength(1);
    expect(screen.getAllByTestId('doctor-fix')).toHaveLength(2);
    cleanupAndRender(makeDoctorReport('p', {}, [makeDoctorCheck('shm', { status: 'warn', detail: 'small', fix: 'raise' }), makeDoctorCheck('image', { status: 'warn', detail: 'old', fix: 'pull' })]));
    expect(screen.getByTestId('doctor-counts').textContent).toMatch(/^\d+ passed · 2 warnings$/);
    cleanupAndRender(makeDoctorReport('p', {}, [makeDoctorCheck('shm', { status: 'warn', detail: 'small', fix: 'raise' })]));
    expect(screen.getByTestId('doctor-counts').textContent).toMatch(/^\d+ passed · 1 warning$/);
    setLocale('zh-CN');
    cleanupAndRender(makeDoctorReport('p'));
    expect(screen.getByTestId('doctor-counts').textContent).toMatch(/^\d+ 项检查全部通过$/);
    setLocale('en');
  });

  it('copies the command; when the clipboard refuses, selects it and says to press Ctrl+C', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    // TEST DOUBLE: jsdom has no clipboard.
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(DoctorPanel, { report: FAILING });
    const runtime = screen.getByTestId('doctor-check-gpu-runtime');
    await fireEvent.click(within(runtime).getByTestId('doctor-copy'));
    expect(writeText).toHaveBeenCalledWith('sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker');
    await waitFor(() => expect(within(runtime).getByTestId('doctor-copy-outcome').textContent).toContain('Copied.'));

    Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new Error('denied')) }, configurable: true });
    await fireEvent.click(within(runtime).getByTestId('doctor-copy'));
    await waitFor(() => expect(within(runtime).getByTestId('doctor-copy-outcome').textContent).toContain('press Ctrl+C'));
    expect(window.getSelection()?.toString()).toBe('sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker');
  });

  it('"checked … ago" moves on with the clock', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-12-03T12:00:00Z') });
    render(DoctorPanel, { report: makeDoctorReport('p', { ranAt: '2026-12-03T11:59:30Z' }) });
    expect(screen.getByTestId('doctor-ran').textContent).toContain('checked just now');
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(screen.getByTestId('doctor-ran').textContent).toContain('checked 3 min ago');
  });

  it('says when it has not run yet, and that it is checking', () => {
    const { rerender } = render(DoctorPanel, { report: null });
    expect(screen.getByTestId('doctor-panel').textContent).toContain('Not checked yet.');
    void rerender({ report: null, running: true });
    flushSync();
    expect(screen.getByTestId('doctor-running').textContent).toBe('Checking…');
    expect(screen.getByTestId('doctor-panel').getAttribute('aria-busy')).toBe('true');
  });

  it("a rootless Podman report: each Podman check has its own title (en and zh-CN), and the fix says what the app does instead", () => {
    const ids = ['engine-reachable', 'podman-cdi', 'podman-init', 'podman-linger', 'podman-runtime-dir', 'podman-storage', 'podman-network'] as const;
    const report = {
      ...makeDoctorReport('rootless', { verdict: 'fail' }),
      checks: ids.map((id) =>
        id === 'podman-network'
          ? makeDoctorCheck(id, { status: 'fail', detail: '/dev/net/tun cannot be opened.', fix: 'Or switch the profile\'s network to "host".', command: 'sudo chmod 0666 /dev/net/tun', commandWhere: 'server' })
          : makeDoctorCheck(id),
      ),
    };
    const titles = {
      'podman-cdi': ['GPUs for Podman containers (CDI spec)', 'Podman 容器可用的 GPU（CDI 规范）'],
      'podman-init': ['Container init for Podman (catatonit)', 'Podman 容器的 init 进程（catatonit）'],
      'podman-linger': ['Rootless Podman keeps running after logout (lingering)', '注销后 rootless Podman 继续运行（lingering）'],
      'podman-runtime-dir': ['Rootless Podman runtime folder (XDG_RUNTIME_DIR)', 'rootless Podman 运行时目录（XDG_RUNTIME_DIR）'],
      'podman-storage': ['Rootless Podman storage driver', 'rootless Podman 存储驱动'],
      'podman-network': ['Rootless Podman networking (slirp4netns, /dev/net/tun)', 'rootless Podman 网络（slirp4netns、/dev/net/tun）'],
    } as const;
    const { unmount } = render(DoctorPanel, { report });
    for (const [id, [en]] of Object.entries(titles)) expect(screen.getByTestId(`doctor-check-${id}`).querySelector('.name')?.textContent).toBe(en);
    const network = screen.getByTestId('doctor-check-podman-network');
    expect(network.dataset.status).toBe('fail');
    expect(within(network).getByTestId('doctor-command').textContent).toBe('sudo chmod 0666 /dev/net/tun');
    expect(within(network).getByRole('button', { name: 'Copy: Rootless Podman networking (slirp4netns, /dev/net/tun)' })).toBeTruthy();
    unmount();
    setLocale('zh-CN');
    render(DoctorPanel, { report });
    for (const [id, [, zh]] of Object.entries(titles)) expect(screen.getByTestId(`doctor-check-${id}`).querySelector('.name')?.textContent).toBe(zh);
  });

  it('titles and statuses in Chinese', () => {
    setLocale('zh-CN');
    render(DoctorPanel, { report: FAILING });
    expect(screen.getByTestId('doctor-verdict').textContent).toContain('修复之前无法启动');
    const runtime = screen.getByTestId('doctor-check-gpu-runtime');
    expect(runtime.textContent).toContain('容器可用的 GPU（NVIDIA 运行时或 CDI）');
    expect(runtime.textContent).toContain('失败');
    expect(runtime.textContent).toContain('在服务器上运行：');
  });
});

describe('PullProgress', () => {
  it('a real progress bar with its value, percent, layers, megabytes, time left and phase; Cancel', async () => {
    const oncancel = vi.fn();
    render(PullProgress, {
      pull: makePull({ phase: 'downloading', percent: 42.7, layersDone: 2, layersTotal: 5, bytesDone: 300 * 1024 * 1024, bytesTotal: 1024 * 1024 * 1024, etaSeconds: 75 }),
      oncancel,
    });
    const bar = screen.getByRole('progressbar');
    expect(bar.tagName).toBe('PROGRESS');
    expect(bar.getAttribute('aria-valuenow')).toBe('42');
    expect((bar as HTMLProgressElement).value).toBeCloseTo(42.7);
    expect(screen.getByTestId('pull-phase').textContent).toBe('Downloading');
    expect(screen.getByTestId('pull-facts').textContent).toBe('42 % · layers 2/5 · 300 / 1024 MB · about 1 min 15 s left');
    await fireEvent.click(screen.getByTestId('pull-cancel'));
    expect(oncancel).toHaveBeenCalledOnce();
  });

  it('sizes not known yet: an indeterminate bar, not 0 %', () => {
    render(PullProgress, { pull: makePull(), oncancel: () => undefined });
    const bar = screen.getByRole('progressbar');
    expect(bar.hasAttribute('value')).toBe(false);
    expect(screen.getByTestId('pull-phase').textContent).toBe('Looking up the image…');
    expect(screen.getByTestId('pull-facts').textContent).toBe('size not known yet');
  });

  it('done: 100 %, no Cancel', () => {
    render(PullProgress, { pull: makePull({ phase: 'done', percent: 100, layersDone: 4, layersTotal: 4, bytesDone: 5e6, bytesTotal: 5e6, endedAt: new Date().toISOString() }), oncancel: () => undefined });
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    expect(screen.getByTestId('pull-phase').textContent).toBe('Pulled');
    expect(screen.queryByTestId('pull-cancel')).toBeNull();
  });

  it('failed: the error title, the backend message and the help, no bar', () => {
    const message = 'ghcr.io/modelscope/agentjet:nope was not found on ghcr.io (manifest unknown): the repository or the tag does not exist.';
    render(PullProgress, { pull: makePull({ image: 'ghcr.io/modelscope/agentjet:nope', phase: 'failed', endedAt: new Date().toISOString(), error: { code: 'IMAGE_NOT_FOUND', message } }), oncancel: () => undefined });
    const error = screen.getByTestId('pull-error');
    expect(error.dataset.errorCode).toBe('IMAGE_NOT_FOUND');
    expect(error.textContent).toContain(message);
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.getByTestId('pull-phase').textContent).toBe('Pull failed');
  });

  it('in Chinese', () => {
    setLocale('zh-CN');
    render(PullProgress, { pull: makePull({ phase: 'extracting', percent: 80, layersDone: 3, layersTotal: 4, bytesDone: 1e8, bytesTotal: 1e8 }), oncancel: () => undefined });
    expect(screen.getByTestId('pull-phase').textContent).toBe('正在解压');
    expect(screen.getByTestId('pull-facts').textContent).toContain('镜像层 3/4');
    expect(screen.getByTestId('pull-cancel').textContent).toBe('取消');
  });
});

describe('DoctorState and PullsState with the fake backend', () => {
  let api: FakeApi;
  beforeEach(() => {
    api = new FakeApi();
  });

  it('DoctorState: lists kept reports, runs the doctor, takes pushed reports', async () => {
    api.doctorReports = [makeDoctorReport('a')];
    const state = new DoctorState(api);
    const stop = state.start();
    await waitFor(() => expect(state.reports.a?.verdict).toBe('pass'));
    api.doctorAnswer = (id) => makeDoctorReport(id, {}, [makeDoctorCheck('port', { status: 'fail' })]);
    const report = await state.run('b');
    expect(report?.verdict).toBe('fail');
    expect(state.reports.b?.verdict).toBe('fail');
    expect(api.requestsOn('doctor:run')).toEqual([{ profileId: 'b' }]);
    api.emit('doctor:report', makeDoctorReport('a', { verdict: 'warn' }));
    expect(state.reports.a?.verdict).toBe('warn');
    stop();
  });

  it('PullsState: an answer that arrives after the pull\'s last event does not bring it back to life', async () => {
    const image = 'ghcr.io/modelscope/agentjet:main';
    // The backend already runs this pull; its answer to images:pull will be the resolving snapshot.
    api.pullViews = [makePull({ pullId: 'pull-quick', image })];
    const state = new PullsState(api, 'local');
    const stop = state.start();
    await waitFor(() => expect(state.byImage[image]?.pullId).toBe('pull-quick'));
    const release = api.hold('images:pull');
    const answered = state.pull(image);
    api.emit('images:pull-progress', makePull({ pullId: 'pull-quick', image, phase: 'done', percent: 100, endedAt: new Date().toISOString() }));
    release();
    await answered;
    expect(state.byImage[image]?.phase).toBe('done');
    expect(state.active(image)).toBe(false);
    stop();
  });

  it('DoctorState: an older answer does not replace a newer pushed report', async () => {
    api.doctorAnswer = (id) => makeDoctorReport(id, { ranAt: '2026-12-03T12:00:00.000Z', verdict: 'fail' });
    const state = new DoctorState(api);
    const stop = state.start();
    const release = api.hold('doctor:run');
    const run = state.run('p');
    api.emit('doctor:report', makeDoctorReport('p', { ranAt: '2026-12-03T12:00:05.000Z', verdict: 'pass' }));
    release();
    expect((await run)?.verdict).toBe('fail');
    expect(state.reports.p?.verdict).toBe('pass');
    stop();
  });

  it('PullsState: starts a pull, follows its events (this engine only), cancels it', async () => {
    const state = new PullsState(api, 'local');
    const stop = state.start();
    const image = 'ghcr.io/modelscope/agentjet:main';
    const started = await state.pull(image);
    expect(state.active(image)).toBe(true);
    api.emit('images:pull-progress', { ...started!, phase: 'downloading', percent: 10 });
    expect(state.byImage[image]?.percent).toBe(10);
    api.emit('images:pull-progress', makePull({ pullId: 'other', engineId: 'ssh-gpu', image, percent: 99 }));
    expect(state.byImage[image]?.percent).toBe(10);
    await state.cancel(image);
    expect(state.byImage[image]?.phase).toBe('cancelled');
    expect(state.active(image)).toBe(false);
    stop();
  });
});

describe('accessibility (axe-core on the rendered components; page-level rules left to the e2e audit)', () => {
  // TEST DOUBLE: jsdom has no canvas (axe measures icon ligatures with one) and logs "not implemented"; no canvas is the same answer, quietly.
  beforeEach(() => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function violations(container: HTMLElement): Promise<string[]> {
    const results = await axe.run(container, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      // A component alone is not a page: landmarks and the h1 belong to the page; jsdom has no layout for contrast.
      rules: { region: { enabled: false }, 'page-has-heading-one': { enabled: false }, 'landmark-one-main': { enabled: false }, 'color-contrast': { enabled: false }, 'heading-order': { enabled: false } },
      resultTypes: ['violations'],
    });
    return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  }

  it('DoctorPanel with a failing report has no violations', async () => {
    const { container } = render(DoctorPanel, { report: FAILING });
    expect(await violations(container)).toEqual([]);
  });

  it('PullProgress running, indeterminate and failed has no violations', async () => {
    const running = render(PullProgress, { pull: makePull({ pullId: 'pull-a', phase: 'downloading', percent: 40, layersDone: 1, layersTotal: 3, bytesDone: 4e7, bytesTotal: 1e8, etaSeconds: 12 }), oncancel: () => undefined });
    expect(await violations(running.container)).toEqual([]);
    const unknown = render(PullProgress, { pull: makePull({ pullId: 'pull-b' }), oncancel: () => undefined });
    expect(await violations(unknown.container)).toEqual([]);
    const failed = render(PullProgress, { pull: makePull({ pullId: 'pull-c', phase: 'failed', error: { code: 'IMAGE_PULL_FAILED', message: 'x' }, endedAt: new Date().toISOString() }), oncancel: () => undefined });
    expect(await violations(failed.container)).toEqual([]);
  });
});
