import type { ExposedApi } from '../../../../electron/shared/api';
import { PAGE_LEASE_RENEW_MS } from '../../../../electron/shared/schemas-watch';
import { PAGE_ID } from '../page-id';

/** Whether this page shows anything to the user now: a visible document (minimised or a background tab is not). */
function pageShown(): boolean {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
}

/**
 * Tells the backend whether this page is shown (`app:visibility`), so its pollers ask every server
 * once a second only while someone can see the answers, and every few seconds otherwise. Reported
 * at once on every change, renewed while shown (the backend forgets a page that stops renewing: a
 * closed or disconnected page counts as hidden), and "hidden" when the page goes away.
 */
export class VisibilityReporter {
  shown = $state(pageShown());

  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    const report = (): void => {
      this.shown = pageShown();
      // A lost answer is repaired by the next renewal; the backend's lease covers a page that is gone.
      void this.api.app.visibility({ pageId: PAGE_ID, shown: this.shown }).catch(() => undefined);
    };
    const hide = (): void => void this.api.app.visibility({ pageId: PAGE_ID, shown: false }).catch(() => undefined);
    report();
    const renew = setInterval(() => {
      if (pageShown()) report();
    }, PAGE_LEASE_RENEW_MS);
    document.addEventListener('visibilitychange', report);
    window.addEventListener('focus', report);
    window.addEventListener('pagehide', hide);
    return () => {
      clearInterval(renew);
      document.removeEventListener('visibilitychange', report);
      window.removeEventListener('focus', report);
      window.removeEventListener('pagehide', hide);
      hide();
    };
  }
}
