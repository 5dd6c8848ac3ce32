import axe from 'axe-core';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TrainingPoint } from '../../electron/shared/schemas-profiles';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import RewardChart from '../../renderer/src/pages/servers/training/RewardChart.svelte';
import StepSummary from '../../renderer/src/pages/servers/training/StepSummary.svelte';
import { rewardRange, rewardSparkline, stepRange, stepSummary, stepTicks } from '../../renderer/src/pages/servers/training/step-stats';
import { tooltipLines } from '../../renderer/src/pages/servers/training/step-words';
import { FakeApi } from './fake-api';

const at = (minute: number) => new Date(Date.UTC(2026, 11, 5, 9, minute)).toISOString();

/** A step as the backend sends it: 8 steps of mean 0.5 (rewards 0 and 1), a minute each, as in the run. */
function step(n: number, overrides: Partial<TrainingPoint> = {}): TrainingPoint {
  return {
    step: n,
    at: at(n),
    batch: 'pool',
    rewardMean: 0.5,
    rewardStd: 0.5,
    rewardMin: 0,
    rewardMax: 1,
    episodes: 2,
    seconds: 60,
    llmTokens: null,
    llmCalls: null,
    failures: null,
    secondsInStatus: {},
    ...overrides,
  };
}

const unobserved = (n: number): TrainingPoint =>
  step(n, { batch: 'unobserved', rewardMean: null, rewardStd: null, rewardMin: null, rewardMax: null, episodes: null, seconds: null });

const eight = () => Array.from({ length: 8 }, (_, i) => step(i + 1));

beforeEach(() => {
  setApiForTests(new FakeApi());
  setLocale('en');
  // TEST DOUBLE: jsdom has no canvas (axe measures icon ligatures with one); no canvas is the same answer, quietly.
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

afterEach(() => {
  setApiForTests(null);
  vi.restoreAllMocks();
});

describe('reward chart axes', () => {
  it('ticks whole steps only, at a stride that fits', () => {
    expect(stepTicks(0.5, 8.5, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(stepTicks(0.5, 8.5, 4)).toEqual([2, 4, 6, 8]);
    expect(stepTicks(2.5, 3.5, 8)).toEqual([3]);
    expect(stepTicks(0.5, 1000.5, 6)).toEqual([200, 400, 600, 800, 1000]);
    for (const tick of stepTicks(0.5, 37.5, 7)) expect(Number.isInteger(tick)).toBe(true);
  });

  it('takes the y range from the data (never a default 0–100), padded; a flat series gets room around its value', () => {
    expect(rewardRange(eight())).toEqual([-0.1, 1.1]);
    expect(rewardRange([step(1, { rewardMean: 0.5, rewardStd: 0, rewardMin: 0.5, rewardMax: 0.5 })])).toEqual([0, 1]);
    expect(rewardRange([unobserved(1)])).toEqual([0, 1]);
    expect(rewardRange([step(1, { rewardMean: 40, rewardStd: 2, rewardMin: 35, rewardMax: 45 })])).toEqual([34, 46]);
    expect(stepRange(eight())).toEqual([0.5, 8.5]);
  });

  it('draws 8 points for 8 steps, with integer ticks and the data range on the figure', async () => {
    render(RewardChart, { props: { points: eight() } });
    const chart = await screen.findByTestId('reward-chart');
    expect(chart.getAttribute('data-steps')).toBe('1,2,3,4,5,6,7,8');
    expect(chart.getAttribute('data-means')).toBe('0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5');
    expect(chart.getAttribute('data-ticks')).toBe('1,2,3,4,5,6,7,8');
    expect(chart.getAttribute('data-y-range')).toBe('-0.1,1.1');
  });
});

describe('tooltip per step', () => {
  it('says the step, its episodes and reward, time, and what the server reports', () => {
    expect(tooltipLines(step(3, { llmTokens: 900, failures: 1 }))).toEqual(['Step 3', '2 episodes', 'mean 0.5 ± 0.5', 'min 0, max 1', 'Time: 60 s', 'LLM tokens: 900', 'Failures: 1']);
    expect(tooltipLines(unobserved(4))).toEqual(['Step 4', 'not observed']);
    expect(tooltipLines(step(5, { batch: 'partial', episodes: 3 }))[1]).toBe('at least 3 episodes (seen before the batch was complete)');
  });

  it('speaks Chinese', () => {
    setLocale('zh-CN');
    expect(tooltipLines(unobserved(4))).toEqual(['第 4 步', '未观测到']);
  });
});

describe('table view', () => {
  it('lists every step with its episodes (never "0 episodes" for an unobserved one), for screen readers always, for everyone on the toggle', async () => {
    render(RewardChart, { props: { points: [...eight().slice(0, 3), unobserved(4), step(5, { batch: 'partial', episodes: 1, llmTokens: 300, failures: 0 })] } });
    const table = await screen.findByTestId('step-table');
    // Hidden visually while the chart shows, but in the page (and the accessibility tree).
    expect(screen.getByTestId('step-table-wrap').className).toContain('visually-hidden');
    const rows = within(table).getAllByTestId('step-row');
    expect(rows.map((r) => [r.dataset['step'], within(r).getByTestId('step-episodes').textContent])).toEqual([
      ['5', 'at least 1'],
      ['4', 'not observed'],
      ['3', '2'],
      ['2', '2'],
      ['1', '2'],
    ]);
    expect(rows[0]?.textContent).toContain('300');
    expect(rows[2]?.textContent).toContain('not reported');
    expect(screen.getByTestId('reward-unobserved').textContent).toContain('1 of 5 steps were not observed');
    const toggle = screen.getByTestId('reward-table-toggle');
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(toggle.textContent).toBe('Show as a chart');
    expect(screen.getByTestId('step-table-wrap').className).not.toContain('visually-hidden');
  });

  it('says when the newest step was not observed', async () => {
    render(RewardChart, { props: { points: [step(1), unobserved(2)] } });
    expect((await screen.findByTestId('reward-last')).textContent).toContain('Step 2: not observed');
  });

  it('has no axe violations, as a chart and as a table', async () => {
    const { container } = render(RewardChart, { props: { points: [...eight(), unobserved(9)] } });
    await screen.findByTestId('step-table');
    const audit = async () =>
      (
        await axe.run(container, {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
          rules: { region: { enabled: false }, 'page-has-heading-one': { enabled: false }, 'landmark-one-main': { enabled: false }, 'color-contrast': { enabled: false } },
          resultTypes: ['violations'],
        })
      ).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(await audit()).toEqual([]);
    await fireEvent.click(screen.getByTestId('reward-table-toggle'));
    await waitFor(() => expect(screen.getByTestId('step-table-wrap').className).not.toContain('visually-hidden'));
    expect(await audit()).toEqual([]);
    // Two axe runs over a 9-row table: seconds on a shared 2-core machine.
  }, 20_000);
});

describe('per-step figures', () => {
  it('steps per hour, time per step, episodes; tokens and failures "not reported" by a GPU server', async () => {
    const summary = stepSummary(eight());
    expect(summary).toMatchObject({ stepsPerHour: 60, secondsPerStep: 60, episodesPerStep: 2, tokensPerStep: null, failuresPerStep: null, unobserved: 0, steps: 8 });
    render(StepSummary, { props: { points: eight() } });
    expect(screen.getByTestId('summary-steps-per-hour').textContent).toBe('60');
    expect(screen.getByTestId('summary-time-per-step').textContent).toBe('60 s');
    expect(screen.getByTestId('summary-episodes-per-step').textContent).toBe('2');
    expect(screen.getByTestId('summary-tokens-per-step').textContent).toBe('not reported by this server');
    expect(screen.getByTestId('summary-failures-per-step').textContent).toBe('not reported by this server');
  });

  it('averages tokens and failures where the trainer counts them (the dry run), over observed steps only', () => {
    const points = [step(1, { batch: 'exact', llmTokens: 100, failures: 0 }), unobserved(2), step(3, { batch: 'exact', llmTokens: 300, failures: 2, seconds: 120 })];
    expect(stepSummary(points)).toMatchObject({ stepsPerHour: 60, secondsPerStep: 90, episodesPerStep: 2, tokensPerStep: 200, failuresPerStep: 1, unobserved: 1 });
    expect(rewardSparkline(points)).toEqual([
      { step: 1, mean: 0.5 },
      { step: 2, mean: null },
      { step: 3, mean: 0.5 },
    ]);
  });
});
