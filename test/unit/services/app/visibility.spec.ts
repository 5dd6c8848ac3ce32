import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PageLeases } from '../../../../electron/services/app/page-leases';
import { PageVisibility } from '../../../../electron/services/app/visibility';

describe('PageVisibility: whether any page shows the app', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is hidden with no page, shown while any page is, and says so once per change', () => {
    const visibility = new PageVisibility(45_000);
    const heard: boolean[] = [];
    visibility.onChange((shown) => heard.push(shown));
    expect(visibility.shown()).toBe(false);
    expect(visibility.report('window-1', true)).toBe(true);
    expect(visibility.report('window-2', true)).toBe(true);
    expect(visibility.report('window-1', false)).toBe(true); // window 2 still shows it
    expect(visibility.report('window-2', false)).toBe(false);
    expect(heard).toEqual([true, false]);
    visibility.dispose();
  });

  it('counts a page that stops renewing (closed, disconnected) as hidden once its lease runs out', () => {
    const visibility = new PageVisibility(45_000);
    const heard: boolean[] = [];
    visibility.onChange((shown) => heard.push(shown));
    visibility.report('tab', true);
    vi.advanceTimersByTime(30_000);
    visibility.report('tab', true); // renewed
    vi.advanceTimersByTime(30_000);
    expect(visibility.shown()).toBe(true);
    vi.advanceTimersByTime(15_001);
    expect(visibility.shown()).toBe(false);
    expect(heard).toEqual([true, false]);
    visibility.dispose();
  });
});

describe('PageLeases: what each page holds, ref-counted by page', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('holds a key while any page does, and lets it go when the last page does or its lease ends', () => {
    const leases = new PageLeases(1000);
    let changes = 0;
    leases.onChange(() => (changes += 1));
    leases.set('a', 'local:c1', true);
    leases.set('b', 'local:c1', true);
    leases.set('a', 'local:c1', true); // a renewal is no change
    expect(leases.has('local:c1')).toBe(true);
    leases.set('a', 'local:c1', false);
    expect(leases.has('local:c1')).toBe(true);
    vi.advanceTimersByTime(1001);
    expect(leases.has('local:c1')).toBe(false);
    leases.set('c', 'local:c1', false); // letting go of what was never held: nothing happens
    expect(changes).toBe(4);
    leases.dispose();
  });
});
