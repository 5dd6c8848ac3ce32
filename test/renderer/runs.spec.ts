import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import { frameOf, runDuration, seriesOf, startedText } from '../../renderer/src/pages/runs/run-format';
import { FakeApi } from './fake-api';
import { installRunsFake, makeRun } from './fakes/runs';

let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
});

async function openRuns(): Promise<void> {
  render(App);
  await fireEvent.click(screen.getByTestId('nav-runs'));
  await screen.findByTestId('runs-page');
}

describe('run numbers', () => {
  it('puts each run on the step axis or on hours since it began, leaving out steps without a reward', () => {
    const run = makeRun('r1', { rewards: [0.2, null, 0.6], startedAt: '2026-12-05T00:00:00.000Z' });
    expect(seriesOf([run], 'step')[0]!.points).toEqual([
      { x: 1, y: 0.2 },
      { x: 3, y: 0.6 },
    ]);
    expect(seriesOf([run], 'time')[0]!.points.map((p) => Number(p.x.toFixed(3)))).toEqual([0.017, 0.05]);
    expect(frameOf(seriesOf([run], 'step'))).toEqual({ x0: 1, x1: 3, y0: 0.2, y1: 0.6 });
    expect(runDuration({ startedAt: '2026-12-05T00:00:00Z', endedAt: '2026-12-05T02:05:00Z' }, 0)).toBe('2 h 05 min');
  });

  it('writes when a run began in the language shown, not the browser\'s', () => {
    const began = '2026-12-05T14:30:00Z';
    expect(startedText(began)).toBe(new Date(began).toLocaleString('en', { dateStyle: 'short', timeStyle: 'short' }));
    setLocale('zh-CN');
    expect(startedText(began)).toBe(new Date(began).toLocaleString('zh-CN', { dateStyle: 'short', timeStyle: 'short' }));
    expect(startedText(began)).not.toMatch(/AM|PM/);
  });
});

describe('the Runs page', () => {
  it('lists the kept runs, filters them, compares two (curves, durations, cost, the YAML side by side) and deletes one', async () => {
    const calls = installRunsFake(api, [
      makeRun('20261205T010000000Z-bbbb', { serverName: 'Second', startedAt: '2026-12-05T01:00:00.000Z', rewards: [0.5, 0.7], cost: 12.5, currency: 'EUR' }),
      makeRun('20261204T220000000Z-aaaa', { serverName: 'First' }),
      makeRun('20261205T020000000Z-cccc', { serverName: 'Still going', startedAt: '2026-12-05T02:00:00.000Z', endedAt: null, endKind: null }),
    ]);
    await openRuns();
    await waitFor(() => expect(screen.getAllByTestId('run-row')).toHaveLength(3));
    expect(screen.getAllByTestId('run-row').map((r) => r.dataset.end)).toEqual(['engine-stopped', 'engine-stopped', 'running']);

    // The state filter is the backend's: the page asks again with it.
    await fireEvent.change(screen.getByTestId('runs-filter-state'), { target: { value: 'ended' } });
    await waitFor(() => expect(screen.getAllByTestId('run-row')).toHaveLength(2));
    expect(calls.listed.at(-1)).toMatchObject({ state: 'ended' });

    const compare = screen.getByTestId('runs-compare-button') as HTMLButtonElement;
    expect(compare.disabled).toBe(true);
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Compare run 20261205T010000000Z-bbbb' }));
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Compare run 20261204T220000000Z-aaaa' }));
    expect(compare.disabled).toBe(false);
    await fireEvent.click(compare);
    const panel = await screen.findByTestId('runs-compare');
    expect(within(panel).getAllByTestId('runs-compare-line').map((l) => l.dataset.run)).toEqual(['20261204T220000000Z-aaaa', '20261205T010000000Z-bbbb']);
    expect(within(panel).getAllByTestId('runs-compare-cost').map((c) => c.textContent)).toEqual(['20.00 USD', '12.50 EUR']);
    const diff = within(panel).getByTestId('runs-yaml-diff');
    const changed = diff.querySelector('tr[data-kind="changed"]')!;
    expect([...changed.querySelectorAll('.code')].map((c) => c.textContent)).toEqual(['  lr: 0.001', '  lr: 0.0005']);
    expect(within(diff).getByText('40 unchanged lines')).toBeTruthy();

    await fireEvent.click(within(panel).getByRole('radio', { name: 'By wall time' }));
    expect(within(panel).getByTestId('runs-compare-chart').dataset.axis).toBe('time');

    const row = screen.getAllByTestId('run-row').find((r) => r.dataset.run === '20261204T220000000Z-aaaa')!;
    await fireEvent.click(within(row).getByRole('button', { name: /Delete run/ }));
    await fireEvent.click(within(row).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getAllByTestId('run-row')).toHaveLength(1));
    expect(calls.deleted).toEqual(['20261204T220000000Z-aaaa']);
  });

  it('exports an HTML card and says where it went', async () => {
    const calls = installRunsFake(api, [makeRun('20261204T220000000Z-aaaa')]);
    await openRuns();
    await fireEvent.click(await screen.findByRole('button', { name: /Export run .* as an HTML card/ }));
    expect((await screen.findByTestId('runs-exported')).textContent).toContain('/downloads/agentswarm-run-20261204T220000000Z-aaaa.html');
    expect(calls.exported).toEqual([{ format: 'html', runId: '20261204T220000000Z-aaaa' }]);
  });

  it('says so when nothing is kept yet', async () => {
    installRunsFake(api, []);
    await openRuns();
    expect((await screen.findByTestId('runs-empty')).textContent).toContain('No training run kept yet');
  });
});
