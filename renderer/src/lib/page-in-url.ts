/**
 * The current page in the address's fragment (`#page=settings`), next to whatever else the
 * fragment carries (the browser host's `token=` is taken out by the API client before this runs).
 * Electron's main process watches in-page navigations to remember the last page in the shell's
 * store and opens the window at `#page=<last>` (electron/main/last-page.ts); in the browser host a
 * reload keeps the page.
 */

const PAGE_PARAM = 'page';

export function pageFromHash(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get(PAGE_PARAM);
}

/**
 * The page the address names now. The app reads it once, as it starts (main.ts, then App.svelte when it is created),
 * before it shows any page; read at that moment, not when this module is first evaluated, so a test that renders the
 * App after changing the address sees that address (renderer specs share one module graph per worker).
 */
export function pageInAddress(): string | null {
  return typeof location === 'undefined' ? null : pageFromHash(location.hash);
}

/** Replaces (not pushes: the back button is not page navigation here) the fragment's page. */
export function showPageInUrl(page: string, target: Pick<Location, 'hash' | 'replace'> = location): void {
  const params = new URLSearchParams(target.hash.replace(/^#/, ''));
  if (params.get(PAGE_PARAM) === page) return;
  params.set(PAGE_PARAM, page);
  target.replace(`#${params.toString()}`);
}
