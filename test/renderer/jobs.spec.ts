import axe from 'axe-core';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import type { PageContext } from '../../renderer/src/lib/pages';
import JobsPage from '../../renderer/src/pages/JobsPage.svelte';
import { FakeApi } from './fake-api';
import { JobsFake } from './fakes/jobs';
import { makeJobView } from './fakes/wizard';

// The Jobs page against the fake API (a TEST DOUBLE of the backend's job runner, fakes/jobs.ts).
let api: FakeApi;
let fake: JobsFake;
let navigated: string[];

// One fixed clock for the whole file: the fixtures' times, the fake backend's start times (Run again) and the
// page's "so far" durations all read it, so the newest-first order holds on any day (a running run once started at
// Date.now() - 5 s beside a rerun at a fixed date, and the order flipped once the wall clock passed that date).
const NOW = Date.parse('2026-12-04T12:00:00.000Z');

const ended = (at: string, ms: number) => ({ startedAt: at, endedAt: new Date(Date.parse(at) + ms).toISOString(), durationMs: ms, pid: null });

function history() {
  return [
    makeJobView({
      id: 'train-1',
      kind: 'train',
      label: 'Training on gpu-box',
      state: 'running',
      startedAt: new Date(NOW - 5000).toISOString(),
      swarmUrl: 'http://127.0.0.1:10086',
    }),
    makeJobView({
      id: 'ep-2',
      kind: 'episode-test',
      label: 'Test episode · item 3',
      state: 'succeeded',
      exitCode: 0,
      ...ended('2026-12-04T10:10:00.000Z', 12_000),
      result: { reward: 0.75, count: null, items: [], raw: { reward: 0.75 } },
    }),
    makeJobView({
      id: 'ds-1',
      kind: 'dataset-test',
      label: null,
      state: 'failed',
      exitCode: 1,
      ...ended('2026-12-04T10:00:00.000Z', 2_000),
      failure: { code: 'JOB_CRASHED', message: 'collector.py raised KeyError.', traceback: null },
    }),
  ];
}

beforeEach(() => {
  // Only Date is faked (testing-library's waitFor keeps real timers); it advances with real time.
  vi.useFakeTimers({ now: NOW, toFake: ['Date'], shouldAdvanceTime: true });
  api = new FakeApi();
  setApiForTests(api);
  fake = new JobsFake(api, history());
  navigated = [];
});

afterEach(() => {
  vi.useRealTimers();
});

function renderPage() {
  const context = { api, navigate: (page: string) => void navigated.push(page) } as unknown as PageContext;
  return render(JobsPage, { props: { context } });
}

const rows = () => screen.queryAllByTestId('job-row');
const rowIds = () => rows().map((row) => row.dataset.jobId);
const row = (jobId: string) => rows().find((r) => r.dataset.jobId === jobId)!;

async function openDetail(name: string): Promise<HTMLElement> {
  await fireEvent.click(await screen.findByRole('button', { name }));
  return screen.getByTestId('job-detail');
}

describe('Jobs page: the history', () => {
  it('lists runs newest first with kind, label, state, started, duration, exit and reward', async () => {
    renderPage();
    await waitFor(() => expect(rowIds()).toEqual(['train-1', 'ep-2', 'ds-1']));
    const table = screen.getByRole('table', { name: 'Run history' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Run', 'Kind', 'State', 'Started', 'Duration', 'Exit', 'Reward']);
    const episode = within(row('ep-2'));
    expect(episode.getByRole('button', { name: 'Test episode · item 3' })).toBeTruthy();
    expect(episode.getByText('Test episode')).toBeTruthy();
    expect(episode.getByTestId('job-state').textContent).toContain('Succeeded');
    expect(episode.getByTestId('job-row-duration').textContent).toBe('12 s');
    expect(episode.getByTestId('job-row-exit').textContent).toBe('exit code 0');
    expect(episode.getByTestId('job-row-reward').textContent).toBe('0.75');
    expect(row('ep-2').textContent).toContain('2026');
    // A run without a label is named by its kind and id.
    expect(within(row('ds-1')).getByRole('button', { name: 'Dataset test ds-1' })).toBeTruthy();
    expect(within(row('ds-1')).getByTestId('job-state').textContent).toContain('Failed');
    expect(within(row('train-1')).getByTestId('job-row-duration').textContent).toMatch(/so far$/);
    expect(within(row('train-1')).getByTestId('job-row-exit').textContent).toBe('—');
  });

  it('follows jobs:changed: a state change updates its row, a new run appears on top', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    fake.change('train-1', { state: 'failed', exitCode: null, signal: 'SIGKILL', endedAt: new Date().toISOString(), durationMs: 61_000 });
    await waitFor(() => expect(within(row('train-1')).getByTestId('job-state').textContent).toContain('Failed'));
    expect(within(row('train-1')).getByTestId('job-row-exit').textContent).toBe('signal SIGKILL');
    expect(within(row('train-1')).getByTestId('job-row-duration').textContent).toBe('1 min 1 s');

    fake.change('ep-3', { kind: 'episode-test', label: 'Test episode · item 4', state: 'starting', startedAt: new Date().toISOString() });
    await waitFor(() => expect(rowIds()).toEqual(['ep-3', 'train-1', 'ep-2', 'ds-1']));
    expect(within(row('ep-3')).getByTestId('job-state').textContent).toContain('Starting');
  });

  it('keeps a jobs:changed that arrives while the list is loading (the event is newer)', async () => {
    const release = api.hold('jobs:list');
    renderPage();
    fake.change('ep-2', { state: 'running', result: null, exitCode: null });
    // The list answer was produced before the change: simulate by answering the old view.
    api.answer('jobs:list', () => history());
    release();
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(within(row('ep-2')).getByTestId('job-state').textContent).toContain('Running');
  });

  it('filters by kind and by state, and says when nothing matches', async () => {
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    const filters = screen.getByRole('group', { name: 'Filter the runs' });
    await fireEvent.change(within(filters).getByRole('combobox', { name: 'Kind' }), { target: { value: 'episode-test' } });
    expect(rowIds()).toEqual(['ep-2']);
    expect(screen.getByTestId('jobs-count').textContent).toBe('1 of 3 runs');
    await fireEvent.change(within(filters).getByRole('combobox', { name: 'Kind' }), { target: { value: 'all' } });
    await fireEvent.change(within(filters).getByRole('combobox', { name: 'State' }), { target: { value: 'active' } });
    expect(rowIds()).toEqual(['train-1']);
    await fireEvent.change(within(filters).getByRole('combobox', { name: 'State' }), { target: { value: 'failed' } });
    expect(rowIds()).toEqual(['ds-1']);
    // A live change moves a run into (or out of) the filter.
    fake.change('train-1', { state: 'failed', exitCode: 1, endedAt: new Date().toISOString(), durationMs: 9000 });
    await waitFor(() => expect(rowIds()).toEqual(['train-1', 'ds-1']));

    await fireEvent.change(within(filters).getByRole('combobox', { name: 'Kind' }), { target: { value: 'script' } });
    expect(rows()).toHaveLength(0);
    expect(screen.getByTestId('jobs-none-match').textContent).toContain('No run matches these filters.');
    await fireEvent.click(screen.getByRole('button', { name: 'Show all runs' }));
    expect(rows()).toHaveLength(3);
  });

  it('with no runs yet says what creates them and opens the wizard', async () => {
    fake.jobs = [];
    renderPage();
    const empty = await screen.findByTestId('jobs-empty');
    expect(empty.textContent).toContain('Runs are created by the wizard');
    await fireEvent.click(within(empty).getByRole('button', { name: 'Open the wizard' }));
    expect(navigated).toEqual(['wizard']);
  });

  it('is reached from the navigation, and its empty-history button goes to the Wizard page', async () => {
    fake.jobs = [];
    render(App);
    await fireEvent.click(screen.getByTestId('nav-jobs'));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Rollout jobs');
    await fireEvent.click(await screen.findByRole('button', { name: 'Open the wizard' }));
    expect(screen.getByTestId('nav-wizard').getAttribute('aria-current')).toBe('page');
  });

  it('shows why the history could not be read', async () => {
    api.failNext('jobs:list', { code: 'INTERNAL', message: 'history file unreadable' });
    renderPage();
    const banner = await screen.findByTestId('error-banner');
    expect(banner.textContent).toContain('history file unreadable');
    expect(screen.queryByTestId('jobs-empty')).toBeNull();
  });
});

describe('Jobs page: a run in detail', () => {
  it('selecting a run shows its summary, log and actions, and moves focus to its heading', async () => {
    fake.grow('ds-1', 3, false);
    renderPage();
    const detail = await openDetail('Dataset test ds-1');
    const heading = within(detail).getByRole('heading', { name: 'Dataset test ds-1' });
    expect(document.activeElement).toBe(heading);
    expect(within(row('ds-1')).getByRole('button', { name: 'Dataset test ds-1' }).getAttribute('aria-current')).toBe('true');
    expect(within(detail).getByTestId('job-failure').textContent).toContain('collector.py raised KeyError.');
    const log = within(detail).getByRole('region', { name: 'Log of Dataset test ds-1' });
    await waitFor(() => expect(within(log).getAllByTestId('job-log-line')).toHaveLength(3));
    // An ended run: Run again, no Cancel.
    expect(within(detail).getByRole('button', { name: 'Run again' })).toBeTruthy();
    expect(within(detail).queryByRole('button', { name: 'Cancel' })).toBeNull();

    await fireEvent.click(within(detail).getByRole('button', { name: 'Close the details' }));
    expect(screen.queryByTestId('job-detail')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(within(row('ds-1')).getByRole('button')));
  });

  it('says when a run is not in the saved history (full disk), in the row and the detail, and clears it once saved', async () => {
    renderPage();
    const detail = await openDetail('Test episode · item 3');
    expect(within(detail).queryByTestId('job-not-saved')).toBeNull();
    fake.change('ep-2', { notSaved: { code: 'ENOSPC', file: '/data/jobs/history.json' } });
    const notice = await within(detail).findByTestId('job-not-saved');
    expect(notice.textContent).toContain('This run is not in the saved history yet');
    expect(notice.textContent).toContain('Writing /data/jobs/history.json failed: the disk is full.');
    expect(within(row('ep-2')).getByTestId('job-row-not-saved').textContent).toBe('not saved');
    fake.change('ep-2', { notSaved: null });
    await waitFor(() => expect(within(detail).queryByTestId('job-not-saved')).toBeNull());
    expect(within(row('ep-2')).queryByTestId('job-row-not-saved')).toBeNull();
  });

  it('follows jobs:changed in the detail too', async () => {
    renderPage();
    const detail = await openDetail('Training on gpu-box');
    expect(within(detail).getByTestId('job-state').textContent).toContain('Running');
    fake.change('train-1', { state: 'succeeded', exitCode: 0, endedAt: new Date().toISOString(), durationMs: 70_000, result: { reward: 0.5, count: null, items: [], raw: { reward: 0.5 } } });
    await waitFor(() => expect(within(detail).getByTestId('job-state').textContent).toContain('Succeeded'));
    expect(within(detail).getByTestId('job-reward').textContent).toBe('0.5');
  });

  it('cancels a running run: shows "Cancelling…" while the backend escalates, then the ended run', async () => {
    renderPage();
    const detail = await openDetail('Training on gpu-box');
    const release = api.hold('jobs:cancel');
    within(detail).getByRole('button', { name: 'Cancel' }).focus();
    await fireEvent.click(within(detail).getByRole('button', { name: 'Cancel' }));
    const busy = within(detail).getByTestId('job-cancel');
    expect(busy.textContent?.trim()).toBe('Cancelling…');
    expect(busy.getAttribute('aria-disabled')).toBe('true');
    // A second press while it runs sends nothing more.
    await fireEvent.click(busy);
    expect(api.requestsOn('jobs:cancel')).toEqual([{ jobId: 'train-1' }]);
    fake.change('train-1', { state: 'cancelling' });
    await waitFor(() => expect(within(detail).getByTestId('job-state').textContent).toContain('Cancelling'));
    release();
    await waitFor(() => expect(within(detail).getByTestId('job-state').textContent).toContain('Cancelled'));
    expect(within(detail).getByTestId('job-exit').textContent).toBe('signal SIGINT');
    expect(within(detail).queryByTestId('job-cancel')).toBeNull();
    // The pressed Cancel is gone: Run again has the keyboard.
    await waitFor(() => expect(document.activeElement).toBe(within(detail).getByRole('button', { name: 'Run again' })));
  });

  it('shows a cancelling run (from another window) as cancelling, its button busy', async () => {
    fake.jobs[0]!.state = 'cancelling';
    renderPage();
    const detail = await openDetail('Training on gpu-box');
    expect(within(detail).getByTestId('job-cancel').textContent?.trim()).toBe('Cancelling…');
    await fireEvent.click(within(detail).getByTestId('job-cancel'));
    expect(api.requestsOn('jobs:cancel')).toEqual([]);
  });

  it('shows why a cancel failed', async () => {
    renderPage();
    const detail = await openDetail('Training on gpu-box');
    api.failNext('jobs:cancel', { code: 'JOB_BUSY', message: 'The run already ended.' });
    await fireEvent.click(within(detail).getByRole('button', { name: 'Cancel' }));
    const banner = await within(detail).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('JOB_BUSY');
    await fireEvent.click(within(banner).getByRole('button', { name: 'Dismiss' }));
    expect(within(detail).queryByTestId('error-banner')).toBeNull();
  });

  it('runs a run again and selects the new run', async () => {
    renderPage();
    const detail = await openDetail('Test episode · item 3');
    await fireEvent.click(within(detail).getByRole('button', { name: 'Run again' }));
    await waitFor(() => expect(screen.getByTestId('job-detail').dataset.jobId).toBe('ep-2-again-1'));
    expect(api.requestsOn('jobs:rerun')).toEqual([{ jobId: 'ep-2' }]);
    expect(rowIds()[0]).toBe('ep-2-again-1');
    const fresh = screen.getByTestId('job-detail');
    expect(within(fresh).getByTestId('job-state').textContent).toContain('Running');
    expect(within(fresh).getByRole('button', { name: 'Cancel' })).toBeTruthy();
    expect(within(fresh).getByRole('region', { name: 'Log of Test episode · item 3' }).dataset.jobId).toBe('ep-2-again-1');
  });

  it('keeps the newer word when a quick run ended before the answer to Run again came', async () => {
    renderPage();
    const detail = await openDetail('Test episode · item 3');
    const rerun = api.hold('jobs:rerun');
    await fireEvent.click(within(detail).getByRole('button', { name: 'Run again' }));
    // The backend's jobs:changed for the new run's end overtakes the answer (which says running).
    fake.change('ep-2-again-1', { ...fake.jobs.find((j) => j.id === 'ep-2')!, id: 'ep-2-again-1', state: 'succeeded', startedAt: new Date(Date.now() + 1000).toISOString() });
    rerun();
    await waitFor(() => expect(screen.getByTestId('job-detail').dataset.jobId).toBe('ep-2-again-1'));
    expect(within(screen.getByTestId('job-detail')).getByTestId('job-state').textContent).toContain('Succeeded');
    expect(within(row('ep-2-again-1')).getByTestId('job-state').textContent).toContain('Succeeded');
  });

  it('speaks Chinese', async () => {
    setLocale('zh-CN');
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(screen.getByRole('table', { name: '运行历史' })).toBeTruthy();
    expect(within(row('ep-2')).getByTestId('job-state').textContent).toContain('成功');
    expect(within(row('ds-1')).getByRole('button', { name: '数据集测试 ds-1' })).toBeTruthy();
    const detail = await openDetail('数据集测试 ds-1');
    expect(within(detail).getByRole('button', { name: '再次运行' })).toBeTruthy();
    expect(within(detail).getByRole('region', { name: '数据集测试 ds-1 的日志' })).toBeTruthy();
  });

  it('opens the log; in the browser host (LOG_UNAVAILABLE) it shows the path to copy instead', async () => {
    renderPage();
    const detail = await openDetail('Test episode · item 3');
    await fireEvent.click(within(detail).getByRole('button', { name: 'Open the log' }));
    await waitFor(() => expect(api.requestsOn('jobs:open-log')).toEqual([{ jobId: 'ep-2' }]));
    expect(within(detail).queryByTestId('job-log-unavailable')).toBeNull();
    expect(within(detail).queryByTestId('error-banner')).toBeNull();

    fake.browserHost = true;
    await fireEvent.click(within(detail).getByRole('button', { name: 'Open the log' }));
    const notice = await within(detail).findByTestId('job-log-unavailable');
    expect(notice.textContent).toContain('The log cannot be opened from here.');
    expect(within(notice).getByRole('textbox', { name: 'Log file' })).toHaveProperty('value', '/data/jobs/ep-2.log');
    expect(within(notice).getByRole('button', { name: 'Copy the path' })).toBeTruthy();
    expect(within(notice).getByText(/browser host cannot open files/).getAttribute('lang')).toBe('en');
    expect(within(detail).queryByTestId('error-banner')).toBeNull();
    await fireEvent.click(within(notice).getByRole('button', { name: 'Hide' }));
    expect(within(detail).queryByTestId('job-log-unavailable')).toBeNull();

    api.failNext('jobs:open-log', { code: 'JOB_NOT_FOUND', message: 'No job ep-2.' });
    await fireEvent.click(within(detail).getByRole('button', { name: 'Open the log' }));
    expect((await within(detail).findByTestId('error-banner')).dataset.errorCode).toBe('JOB_NOT_FOUND');
  });
});

describe('accessibility (axe-core on the rendered page; page-level rules left to the e2e audit)', () => {
  // TEST DOUBLE: jsdom has no canvas (axe measures icon ligatures with one); no canvas is the same answer, quietly.
  beforeEach(() => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function violations(container: HTMLElement): Promise<string[]> {
    const results = await axe.run(container, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      rules: { region: { enabled: false }, 'page-has-heading-one': { enabled: false }, 'landmark-one-main': { enabled: false }, 'color-contrast': { enabled: false }, 'heading-order': { enabled: false } },
      resultTypes: ['violations'],
    });
    return results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  it('the history with a failed run open (summary, traceback, log, log-path notice) has no violations', async () => {
    fake.jobs[2]!.failure = {
      code: 'JOB_CRASHED',
      message: 'collector.py raised KeyError.',
      traceback: { file: '/home/me/agent/collector.py', line: 7, exception: "KeyError: 'id'", text: 'Traceback …\nKeyError: \'id\'' },
    };
    fake.grow('ds-1', 25, false);
    fake.browserHost = true;
    const { container } = renderPage();
    const detail = await openDetail('Dataset test ds-1');
    await waitFor(() => expect(within(detail).getAllByTestId('job-log-line')).toHaveLength(25));
    await fireEvent.click(within(detail).getByRole('button', { name: 'Open the log' }));
    await within(detail).findByTestId('job-log-unavailable');
    expect(await violations(container)).toEqual([]);
  });

  it('a running run open (Cancel, live log) and the empty history have no violations', async () => {
    fake.grow('train-1', 3, false);
    const { container, unmount } = renderPage();
    const detail = await openDetail('Training on gpu-box');
    await waitFor(() => expect(within(detail).getAllByTestId('job-log-line')).toHaveLength(3));
    expect(await violations(container)).toEqual([]);
    unmount();
    fake.jobs = [];
    const empty = renderPage();
    await screen.findByTestId('jobs-empty');
    expect(await violations(empty.container)).toEqual([]);
  });
});
