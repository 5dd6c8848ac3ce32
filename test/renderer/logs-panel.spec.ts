import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import LogsPanel from '../../renderer/src/pages/servers/logs/LogsPanel.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi, fakeLogLine } from './fake-api';

// The logs panel against the fake API (a TEST DOUBLE of the backend that generates its log lines).
let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

function renderPanel() {
  return render(LogsPanel, { props: { api, engineId: 'local', containerId: 'abc' } });
}

type ReadRequest = { from: number; count: number; filter: { text: string; regex: boolean; stream: string } };

describe('logs panel', () => {
  it('keeps only a bounded number of rows in the DOM for a log of a million lines, reading small windows', async () => {
    api.logTotal = 1_000_000;
    renderPanel();
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('1000000 lines'));
    await waitFor(() => expect(screen.getAllByTestId('log-row')[0]!.textContent).toContain('line 0'));
    const rows = screen.getAllByTestId('log-row');
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(60);
    // Every read is a window, never the whole log.
    const reads = api.requestsOn('logs:read') as ReadRequest[];
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((r) => r.count <= 500)).toBe(true);
  });

  it('marks stderr lines with a text badge, not by colour alone', async () => {
    api.logTotal = 30;
    renderPanel();
    await waitFor(() => expect(screen.getAllByTestId('log-row').length).toBe(30));
    const stderrRow = screen.getAllByTestId('log-row').find((row) => row.dataset.n === '9')!;
    expect(within(stderrRow).getByTitle('stderr').textContent).toBe('ERR');
    const stdoutRow = screen.getAllByTestId('log-row').find((row) => row.dataset.n === '8')!;
    expect(within(stdoutRow).queryByTitle('stderr')).toBeNull();
  });

  it("badges and colours a line by the level it states, not by its stream (loguru writes INFO to stderr)", async () => {
    const texts: [string, 'stdout' | 'stderr'][] = [
      ['12:00:00 | INFO     | Synced train config to Swarm server', 'stderr'],
      ['12:00:01 | WARNING  | Engine is syncing weights', 'stderr'],
      ["ModuleNotFoundError: No module named 'verl'", 'stderr'],
      ['a plain line on stderr', 'stderr'],
      ['2026-12-05 12:00:02,000 - ray - ERROR - worker died', 'stdout'],
    ];
    api.answer('logs:read', () => ({
      total: texts.length,
      matching: texts.length,
      from: 0,
      lines: texts.map(([text, stream], n) => ({ n, stream, time: '2026-12-03T15:00:00.000000000Z', text })),
      following: false,
    }));
    renderPanel();
    await waitFor(() => expect(screen.getAllByTestId('log-row').length).toBe(5));
    const rows = screen.getAllByTestId('log-row');
    expect(rows.map((row) => row.dataset.level ?? null)).toEqual(['info', 'warning', 'error', null, 'error']);
    expect(rows.map((row) => within(row).queryByTestId('log-level')?.textContent ?? null)).toEqual([null, 'WARN', 'ERROR', null, 'ERROR']);
    // An INFO line on stderr is not painted as an error; a line that states no level keeps its stream's colour.
    expect(rows.map((row) => row.classList.contains('stderr'))).toEqual([false, false, false, true, false]);
    expect(rows.map((row) => row.classList.contains('level-error'))).toEqual([false, false, true, false, true]);
    // The stream's own badge stays on every stderr line.
    expect(rows.map((row) => within(row).queryByTitle('stderr') !== null)).toEqual([true, true, true, true, false]);
  });

  it('adds lines from logs:appended without a round trip and counts them', async () => {
    api.logTotal = 5;
    renderPanel();
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('5 lines'));
    const readsBefore = api.requestsOn('logs:read').length;
    api.logTotal = 7;
    api.emit('logs:appended', { engineId: 'local', containerId: 'abc', total: 7, lines: [fakeLogLine(5), fakeLogLine(6)] });
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('7 lines'));
    await waitFor(() => expect(screen.getAllByTestId('log-row').map((r) => r.dataset.n)).toContain('6'));
    expect(api.requestsOn('logs:read').length).toBe(readsBefore);
    // Another container's lines are not ours.
    api.emit('logs:appended', { engineId: 'local', containerId: 'other', total: 99, lines: [] });
    expect(screen.getByTestId('logs-count').textContent).toContain('7 lines');
  });

  it('searches by substring and by regex, filters by stream, and shows the match count', async () => {
    api.logTotal = 200;
    renderPanel();
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('200 lines'));
    await fireEvent.input(screen.getByTestId('logs-search'), { target: { value: 'LINE 1' } });
    // line 1, 10–19, 100–199.
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('111 of 200 lines match'));
    expect((api.requestsOn('logs:read').at(-1) as ReadRequest).filter).toEqual({ text: 'LINE 1', regex: false, stream: 'all' });

    await fireEvent.input(screen.getByTestId('logs-search'), { target: { value: '^line 1\\d$' } });
    await fireEvent.click(screen.getByTestId('logs-regex'));
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('10 of 200 lines match'));

    await fireEvent.input(screen.getByTestId('logs-search'), { target: { value: '' } });
    await fireEvent.change(screen.getByTestId('logs-stream'), { target: { value: 'stderr' } });
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('20 of 200 lines match'));
  });

  it('says why a regular expression is refused', async () => {
    api.logTotal = 10;
    renderPanel();
    await waitFor(() => expect(screen.getByTestId('logs-count').textContent).toContain('10 lines'));
    api.failNext('logs:read', { code: 'VALIDATION_FAILED', message: 'The search is not a valid regular expression: Unterminated group.' });
    await fireEvent.click(screen.getByTestId('logs-regex'));
    await waitFor(() => expect(screen.getByTestId('logs-error').textContent).toContain('Unterminated group'));
  });

  it('downloads the log and says where it went', async () => {
    api.logTotal = 42;
    renderPanel();
    await fireEvent.click(screen.getByTestId('logs-download'));
    await waitFor(() => expect(screen.getByTestId('logs-exported').textContent).toBe('Saved 42 lines to /home/u/Downloads/agentswarm-log-local-abc-2026-12-03T15-00-00.txt'));
  });

  it('shows the server log file tab, keyboard reachable, with a plain note when the file is missing', async () => {
    renderPanel();
    const tab = screen.getByTestId('logs-tab-server');
    const outputTab = screen.getByRole('tab', { name: 'Container output' });
    outputTab.focus();
    await fireEvent.keyDown(outputTab, { key: 'ArrowRight' });
    expect(tab.getAttribute('aria-selected')).toBe('true');
    await waitFor(() => expect(screen.getByTestId('server-log-missing').textContent).toContain('/workspace/log/swarm_server.log does not exist'));

    api.serverLogTail = { path: '/workspace/log/swarm_server.log', found: true, lines: ['a', 'b'] };
    await fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
    await waitFor(() => expect(screen.getByTestId('server-log').textContent).toBe('a\nb'));
  });
});
