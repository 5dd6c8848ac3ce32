/**
 * This page's id for the backend's per-page reports (shown or hidden, which dashboards it shows): a
 * random one per load, so a reload or a second window counts as another page and a page that stops
 * renewing its reports lets go of them when their lease runs out.
 */
function randomId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `page-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
}

export const PAGE_ID = randomId();
