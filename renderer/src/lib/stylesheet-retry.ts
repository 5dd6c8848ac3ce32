/**
 * A chunk's stylesheet that failed to load is loaded again, until it loads. In the browser host the chunks come from
 * the backend, and while it restarts every fetch fails. A page's code is fetched again on the next look (App.svelte,
 * lazy-parts), but Vite's preload adds a chunk's stylesheet once per page life, so a failed one left that part
 * unstyled until a reload (e2e backend-link, idle CI-AJ: there axe found the failed link and re-added its text inline,
 * which the CSP refused).
 *
 * The failed link leaves the page at once (a comment holds its place, so the cascade keeps its order), and a fresh
 * link to the same address takes that place after a wait that grows to `maxDelayMs`.
 */
export interface StylesheetRetryOptions {
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Then it stops asking: a stylesheet that never loads (a page of an older build) is not asked for forever. */
  maxAttempts?: number;
}

export function retryFailedStylesheets(doc: Document = document, options: StylesheetRetryOptions = {}): () => void {
  const { firstDelayMs = 1000, maxDelayMs = 10_000, maxAttempts = 100 } = options;
  const attempts = new Map<string, number>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const onError = (event: Event): void => {
    const link = event.target;
    // Capture phase on the document: a link's error does not bubble. The event still reaches the link's own
    // listeners (Vite's, which rejects the load it waits for).
    if (!(link instanceof HTMLLinkElement) || link.rel !== 'stylesheet' || !link.isConnected) return;
    const attempt = (attempts.get(link.href) ?? 0) + 1;
    attempts.set(link.href, attempt);
    const place = doc.createComment(` stylesheet ${link.href} failed to load; asked for again `);
    link.replaceWith(place);
    if (attempt > maxAttempts) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (place.isConnected) place.replaceWith(link.cloneNode(false));
    }, Math.min(maxDelayMs, firstDelayMs * 2 ** (attempt - 1)));
    timers.add(timer);
  };
  // Loaded: a later outage starts again from the first wait.
  const onLoad = (event: Event): void => {
    if (event.target instanceof HTMLLinkElement) attempts.delete(event.target.href);
  };
  doc.addEventListener('error', onError, true);
  doc.addEventListener('load', onLoad, true);
  return () => {
    doc.removeEventListener('error', onError, true);
    doc.removeEventListener('load', onLoad, true);
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}
