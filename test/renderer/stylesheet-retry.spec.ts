import { afterEach, describe, expect, it, vi } from 'vitest';
import { retryFailedStylesheets } from '../../renderer/src/lib/stylesheet-retry';

// A chunk's stylesheet that failed to load is asked for again in its place (Vite's preload adds it once per page
// life). The e2e spec test/e2e/backend-link.spec.ts checks it in Chromium against a restarted browser host.
let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  vi.useRealTimers();
  // Only what these tests added (the renderer project's files share one document).
  for (const node of [...document.head.childNodes]) if (node instanceof HTMLLinkElement || node instanceof Comment) node.remove();
});

function link(rel: string, href: string): HTMLLinkElement {
  const element = document.createElement('link');
  element.rel = rel;
  element.href = href;
  element.crossOrigin = '';
  document.head.appendChild(element);
  return element;
}
const links = () => [...document.head.querySelectorAll('link')].map((l) => l.getAttribute('href'));

describe('retryFailedStylesheets', () => {
  it('takes a failed stylesheet out of the page at once, its own listeners still told, and puts a fresh one in its place after a growing wait', () => {
    vi.useFakeTimers();
    stop = retryFailedStylesheets(document, { firstDelayMs: 1000, maxDelayMs: 4000 });
    const failed = link('stylesheet', '/assets/RunsPage.css');
    link('stylesheet', '/assets/After.css');
    let viteHeard = 0;
    failed.addEventListener('error', () => (viteHeard += 1));
    failed.dispatchEvent(new Event('error'));
    expect(viteHeard).toBe(1);
    expect(links()).toEqual(['/assets/After.css']);
    vi.advanceTimersByTime(999);
    expect(links()).toEqual(['/assets/After.css']);
    vi.advanceTimersByTime(1);
    // Back in its place, before the stylesheet that came after it: the cascade keeps its order.
    expect(links()).toEqual(['/assets/RunsPage.css', '/assets/After.css']);
    const second = document.head.querySelector<HTMLLinkElement>('link[href="/assets/RunsPage.css"]')!;
    expect(second).not.toBe(failed);
    expect(second.crossOrigin).toBe('');
    second.dispatchEvent(new Event('error'));
    vi.advanceTimersByTime(1999);
    expect(links()).toEqual(['/assets/After.css']);
    vi.advanceTimersByTime(1);
    const third = document.head.querySelector<HTMLLinkElement>('link[href="/assets/RunsPage.css"]')!;
    // Loaded: the next failure waits the first delay again.
    third.dispatchEvent(new Event('load'));
    third.dispatchEvent(new Event('error'));
    vi.advanceTimersByTime(1000);
    expect(links()).toEqual(['/assets/RunsPage.css', '/assets/After.css']);
  });

  it('leaves other links and elements alone, gives up after its attempts, and stops when asked', () => {
    vi.useFakeTimers();
    stop = retryFailedStylesheets(document, { firstDelayMs: 10, maxDelayMs: 10, maxAttempts: 2 });
    const script = link('modulepreload', '/assets/chunk.js');
    script.dispatchEvent(new Event('error'));
    expect(script.isConnected).toBe(true);
    link('stylesheet', '/assets/Gone.css');
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      document.head.querySelector('link[href="/assets/Gone.css"]')!.dispatchEvent(new Event('error'));
      vi.advanceTimersByTime(10);
    }
    expect(links()).toEqual(['/assets/chunk.js']);
    stop();
    const later = link('stylesheet', '/assets/Later.css');
    later.dispatchEvent(new Event('error'));
    expect(later.isConnected).toBe(true);
  });
});
