import { describe, expect, it } from 'vitest';
import { pageFromHash, showPageInUrl } from '../../renderer/src/lib/page-in-url';

/** A TEST DOUBLE location that records `replace` like a fragment navigation would. */
function fakeLocation(hash: string): { hash: string; replace(url: string): void; calls: string[] } {
  const calls: string[] = [];
  return {
    hash,
    calls,
    replace(url: string) {
      calls.push(url);
      this.hash = url;
    },
  };
}

describe('the page in the URL fragment', () => {
  it('reads #page=…, also next to other params', () => {
    expect(pageFromHash('#page=jobs')).toBe('jobs');
    expect(pageFromHash('#a=1&page=settings')).toBe('settings');
    expect(pageFromHash('')).toBeNull();
  });

  it('replaces the page and keeps the other params; no navigation when it is already shown', () => {
    const location = fakeLocation('#a=1');
    showPageInUrl('jobs', location);
    expect(location.calls).toEqual(['#a=1&page=jobs']);
    showPageInUrl('jobs', location);
    expect(location.calls).toHaveLength(1);
  });
});
