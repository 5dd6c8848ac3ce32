import type { ExposedApi } from '../../../../electron/shared/api';

/** Which row of the Servers page's list is shown; null: the default row (`defaultRow`). */
export interface ServerSelection {
  id: string | null;
}

const selections = new WeakMap<ExposedApi, ServerSelection>();

/**
 * The Servers page's choice, kept outside the page (issue 32): going to the Jobs page and back
 * keeps the server the user was looking at. Kept per API object, i.e. per app instance (each
 * renderer test's app starts with no choice).
 */
export function serverSelectionFor(api: ExposedApi): ServerSelection {
  const known = selections.get(api);
  if (known) return known;
  const selection = $state<ServerSelection>({ id: null });
  selections.set(api, selection);
  return selection;
}
