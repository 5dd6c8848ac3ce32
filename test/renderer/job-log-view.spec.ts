import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import JobLogView from '../../renderer/src/components/JobLogView.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi } from './fake-api';
import { JobsFake } from './fakes/jobs';
import { makeJobView } from './fakes/wizard';

// JobLogView against the fake API (a TEST DOUBLE of the backend whose job logs are generated lines).
let api: FakeApi;
let fake: JobsFake;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  fake = new JobsFake(api, [makeJobView({ id: 'job-a' }), makeJobView({ id: 'job-b' })]);
});

function renderLog(label?: string) {
  return render(JobLogView, { props: { api, jobId: 'job-a', ...(label ? { label } : {}) } });
}

const rows = () => screen.queryAllByTestId('job-log-line');
const rowNumbers = () => rows().map((row) => Number(row.dataset.n));

/** jsdom lays nothing out: give the scroller a height, a content height (18 px a row) and a scroll position. */
function fakeGeometry(scroller: HTMLElement, clientHeight = 180): { position: () => number } {
  let top = 0;
  Object.defineProperty(scroller, 'clientHeight', { configurable: true, get: () => clientHeight });
  Object.defineProperty(scroller, 'scrollHeight', { configurable: true, get: () => scroller.querySelectorAll('[data-testid="job-log-line"]').length * 18 });
  Object.defineProperty(scroller, 'scrollTop', {
    configurable: true,
    get: () => top,
    set: (value: number) => (top = Math.max(0, Math.min(value, scroller.scrollHeight - clientHeight))),
  });
  return { position: () => top };
}

describe('JobLogView', () => {
  it('is a region named by its label (else "Log of job <id>") whose lines are not announced one by one', async () => {
    fake.grow('job-a', 3, false);
    const { unmount } = renderLog();
    const region = screen.getByRole('region', { name: 'Log of job job-a' });
    const lines = within(region).getByRole('log', { name: 'Output lines' });
    expect(lines.getAttribute('aria-live')).toBe('off');
    expect(lines.getAttribute('tabindex')).toBe('0');
    unmount();
    renderLog('Log of Test episode · item 3');
    expect(screen.getByRole('region', { name: 'Log of Test episode · item 3' })).toBeTruthy();
  });

  it('reads the log by cursor: the first window, then from the last total when jobs:log-appended says it grew', async () => {
    fake.grow('job-a', 12, false);
    renderLog();
    await waitFor(() => expect(rows()).toHaveLength(12));
    expect(fake.logRequests()).toEqual([{ jobId: 'job-a', from: 0, limit: 500 }]);
    expect(screen.getByTestId('job-log-count').textContent).toBe('12 lines');

    fake.grow('job-a', 20);
    await waitFor(() => expect(rows()).toHaveLength(20));
    expect(fake.logRequests().at(-1)).toEqual({ jobId: 'job-a', from: 12, limit: 500 });
    expect(rowNumbers()).toEqual(Array.from({ length: 20 }, (_, n) => n));

    // Another job's lines are not ours: no request for them.
    const before = fake.logRequests().length;
    fake.grow('job-b', 99);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.logRequests()).toHaveLength(before);
  });

  it('coalesces a burst of jobs:log-appended into one request at a time', async () => {
    fake.grow('job-a', 10, false);
    renderLog();
    await waitFor(() => expect(rows()).toHaveLength(10));
    const release = api.hold('jobs:log');
    fake.grow('job-a', 20);
    fake.grow('job-a', 30);
    fake.grow('job-a', 40);
    fake.grow('job-a', 300);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Four events while the first read waits: still exactly one request out.
    expect(fake.logRequests()).toHaveLength(2);
    release();
    await waitFor(() => expect(rows()).toHaveLength(300));
    // Then one read from the cursor for all four: never one per event.
    expect(fake.logRequests().slice(1).map((r) => r.from)).toEqual([10]);
  });

  // jsdom needs seconds for 2,000 rows (Chromium does not): JobLogState's own spec covers the
  // window with small numbers; this one checks the real limit once, end to end.
  it('keeps the newest 2,000 lines of a long log, says how many earlier lines there are, and opens the full log (path to copy in the browser host)', async () => {
    fake.grow('job-a', 5000, false);
    fake.browserHost = true;
    renderLog();
    await waitFor(() => expect(rows()).toHaveLength(2000), { timeout: 60_000 });
    expect(screen.getByTestId('job-log-earlier').textContent).toContain('3000 earlier lines are not shown here.');
    expect(rowNumbers()[0]).toBe(3000);
    expect(rowNumbers().at(-1)).toBe(4999);
    // It skipped the middle instead of reading all of it.
    expect(fake.logRequests().map((r) => r.from)).toEqual([0, 3000, 3500, 4000, 4500]);

    // Scrolled up, the user's place stays put when the oldest rows are trimmed (jsdom lays nothing
    // out: rows report their place as index × 18 px).
    const scroller = screen.getByTestId('job-log-lines');
    const geometry = fakeGeometry(scroller);
    const offsetTop = vi.spyOn(HTMLElement.prototype, 'offsetTop', 'get').mockImplementation(function (this: HTMLElement) {
      return this.dataset.testid === 'job-log-line' ? [...scroller.querySelectorAll('[data-testid="job-log-line"]')].indexOf(this) * 18 : 0;
    });
    scroller.scrollTop = 1000 * 18;
    await fireEvent.scroll(scroller);
    expect(screen.getByTestId('job-log-jump')).toBeTruthy();
    fake.grow('job-a', 5100);
    await waitFor(() => expect(rowNumbers().at(-1)).toBe(5099));
    // Line 4000 was at the top of the view; 100 rows above it went, so the view moved up by 100 rows.
    expect(geometry.position()).toBe(900 * 18);
    expect(screen.getByRole('button', { name: 'Jump to the end (100 new lines)' })).toBeTruthy();
    offsetTop.mockRestore();

    await fireEvent.click(screen.getByRole('button', { name: 'Open the full log' }));
    const notice = await screen.findByTestId('job-log-unavailable');
    expect(within(notice).getByRole('textbox', { name: 'Log file' })).toHaveProperty('value', '/data/jobs/job-a.log');
    expect(within(notice).getByRole('button', { name: 'Copy the path' })).toBeTruthy();
    expect(notice.textContent).toContain('The browser host cannot open files');
    expect(api.requestsOn('jobs:open-log')).toEqual([{ jobId: 'job-a' }]);
  }, 120_000);

  it('marks stderr and app lines with a text badge, not by colour alone', async () => {
    fake.grow('job-a', 12, false);
    renderLog();
    await waitFor(() => expect(rows()).toHaveLength(12));
    const stderrRow = rows().find((row) => row.dataset.n === '9')!;
    expect(within(stderrRow).getByTitle('error output (stderr)').textContent).toBe('ERR');
    const stdoutRow = rows().find((row) => row.dataset.n === '8')!;
    expect(within(stdoutRow).queryByTitle('error output (stderr)')).toBeNull();
    expect(stdoutRow.textContent).toContain('line 8');
  });

  it("highlights only stderr lines that read like a failure (Python's logging writes its INFO lines to stderr too)", async () => {
    api.answer('jobs:log', () => ({
      jobId: 'job-a',
      total: 3,
      lines: [
        { n: 0, stream: 'err' as const, text: '17:25:14 | INFO     | Synced train config to Swarm server' },
        { n: 1, stream: 'err' as const, text: 'Traceback (most recent call last):' },
        { n: 2, stream: 'out' as const, text: 'Error budget: none (stdout is never highlighted)' },
      ],
    }));
    renderLog();
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(rows().map((row) => row.dataset.alarm)).toEqual(['false', 'true', 'false']);
    // Every stderr line still carries its badge.
    expect(rows().slice(0, 2).every((row) => within(row).queryByTitle('error output (stderr)') !== null)).toBe(true);
  });

  it('shows app lines (the runner\'s own messages) marked as such', async () => {
    api.answer('jobs:log', () => ({ jobId: 'job-a', total: 1, lines: [{ n: 0, stream: 'app' as const, text: 'Sent SIGINT to the script.' }] }));
    renderLog();
    const row = await screen.findByTestId('job-log-line');
    expect(within(row).getByTitle('a message from AgentSwarm Desktop').textContent).toBe('APP');
  });

  it('follows the end; once the user scrolls up it stays put and offers "Jump to the end (N new lines)"', async () => {
    fake.grow('job-a', 20, false);
    renderLog();
    const scroller = screen.getByTestId('job-log-lines');
    const geometry = fakeGeometry(scroller);
    await waitFor(() => expect(rows()).toHaveLength(20));
    fake.grow('job-a', 30);
    await waitFor(() => expect(rows()).toHaveLength(30));
    // Following: at the bottom (30 rows × 18 px − 180 px visible).
    await waitFor(() => expect(geometry.position()).toBe(30 * 18 - 180));
    expect(screen.queryByTestId('job-log-jump')).toBeNull();

    scroller.scrollTop = 0;
    await fireEvent.scroll(scroller);
    expect(screen.getByRole('button', { name: 'Jump to the end' })).toBeTruthy();
    fake.grow('job-a', 45);
    await waitFor(() => expect(rows()).toHaveLength(45));
    expect(geometry.position()).toBe(0);
    const jump = screen.getByRole('button', { name: 'Jump to the end (15 new lines)' });

    await fireEvent.click(jump);
    await waitFor(() => expect(screen.queryByTestId('job-log-jump')).toBeNull());
    expect(geometry.position()).toBe(45 * 18 - 180);
    fake.grow('job-a', 50);
    await waitFor(() => expect(geometry.position()).toBe(50 * 18 - 180));
  });

  it('lets the keyboard scroll: Home stops following, End follows again', async () => {
    fake.grow('job-a', 40, false);
    renderLog();
    const scroller = screen.getByTestId('job-log-lines');
    const geometry = fakeGeometry(scroller);
    await waitFor(() => expect(rows()).toHaveLength(40));
    await fireEvent.keyDown(scroller, { key: 'Home' });
    expect(geometry.position()).toBe(0);
    expect(screen.getByRole('button', { name: 'Jump to the end' })).toBeTruthy();
    await fireEvent.keyDown(scroller, { key: 'PageDown' });
    expect(geometry.position()).toBe(162);
    await fireEvent.keyDown(scroller, { key: 'End' });
    expect(geometry.position()).toBe(40 * 18 - 180);
    await waitFor(() => expect(screen.queryByTestId('job-log-jump')).toBeNull());
  });

  it('says when there is no output yet, and shows a read error (retrying on the next event)', async () => {
    renderLog();
    await waitFor(() => expect(screen.getByText('No output yet.')).toBeTruthy());
    api.failNext('jobs:log', { code: 'JOB_NOT_FOUND', message: 'No job job-a.' });
    fake.grow('job-a', 5);
    expect((await screen.findByTestId('error-banner')).dataset.errorCode).toBe('JOB_NOT_FOUND');
    fake.grow('job-a', 6);
    await waitFor(() => expect(rows()).toHaveLength(6));
    expect(screen.queryByTestId('error-banner')).toBeNull();
  });
});
