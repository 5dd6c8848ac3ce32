import { render, waitFor } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PAGE_LEASE_RENEW_MS } from '../../electron/shared/schemas-watch';
import { setApiForTests } from '../../renderer/src/lib/api';
import { setLocale } from '../../renderer/src/lib/i18n';
import { PAGE_ID } from '../../renderer/src/lib/page-id';
import { TrainingState } from '../../renderer/src/lib/state/training.svelte';
import { VisibilityReporter } from '../../renderer/src/lib/state/visibility.svelte';
import TrainingDashboard from '../../renderer/src/pages/servers/training/TrainingDashboard.svelte';
import { FakeApi, makeTrainingView } from './fake-api';

// What the page tells the backend's pollers (issue 31): whether it is shown, and which dashboard it shows.
let api: FakeApi;

beforeEach(() => {
  api = new FakeApi();
  setApiForTests(api);
  setLocale('en');
});

afterEach(() => {
  setApiForTests(null);
  vi.useRealTimers();
});

function setVisibility(state: 'visible' | 'hidden'): void {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

describe('the page reports to the backend', () => {
  it('says whether it is shown: at start, on every change, renewed while shown, and hidden when it stops', () => {
    vi.useFakeTimers();
    setVisibility('visible');
    const reporter = new VisibilityReporter(api);
    const stop = reporter.start();
    expect(api.requestsOn('app:visibility')).toEqual([{ pageId: PAGE_ID, shown: true }]);
    vi.advanceTimersByTime(PAGE_LEASE_RENEW_MS);
    expect(api.requestsOn('app:visibility')).toHaveLength(2);
    setVisibility('hidden');
    expect(reporter.shown).toBe(false);
    expect(api.requestsOn('app:visibility').at(-1)).toEqual({ pageId: PAGE_ID, shown: false });
    // Hidden: no renewal (the backend lets the lease run out, which is what hidden means there too).
    vi.advanceTimersByTime(3 * PAGE_LEASE_RENEW_MS);
    expect(api.requestsOn('app:visibility')).toHaveLength(3);
    setVisibility('visible');
    stop();
    expect(api.requestsOn('app:visibility').slice(-2)).toEqual([
      { pageId: PAGE_ID, shown: true },
      { pageId: PAGE_ID, shown: false },
    ]);
  });

  it('holds interest in a server\'s training while its dashboard is shown, and lets go when it closes', async () => {
    api.trainingViews = [makeTrainingView('c0ffee000001')];
    const view = render(TrainingDashboard, { props: { api, engineId: 'local', containerId: 'c0ffee000001' } });
    await waitFor(() => expect(api.requestsOn('training:interest')).toEqual([{ pageId: PAGE_ID, engineId: 'local', containerId: 'c0ffee000001', shown: true }]));
    view.unmount();
    expect(api.requestsOn('training:interest').at(-1)).toEqual({ pageId: PAGE_ID, engineId: 'local', containerId: 'c0ffee000001', shown: false });
  });

  it('renews that interest while the dashboard stays open', () => {
    vi.useFakeTimers();
    const state = new TrainingState(api, 'local', 'c0ffee000001');
    const stop = state.start();
    vi.advanceTimersByTime(2 * PAGE_LEASE_RENEW_MS);
    expect(api.requestsOn('training:interest').filter((r) => (r as { shown: boolean }).shown)).toHaveLength(3);
    stop();
  });
});
